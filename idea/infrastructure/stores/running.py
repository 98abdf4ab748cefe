"""`.ideai/running.json`: the agents running at the last snapshot (background ones included)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from idea.domain.project import IDEAI_DIR
from idea.domain.providers import RunningAgents
from idea.infrastructure.stores.document_file import DocumentFile

FILE_NAME = "running.json"


class JsonRunningAgentsStore:
    @staticmethod
    def path(root: str) -> Path:
        return Path(root) / IDEAI_DIR / FILE_NAME

    def load(self, root: str) -> RunningAgents:
        return self._file(root).load()

    def save(self, root: str, running: RunningAgents) -> None:
        self._file(root).save(running)

    def update(self, root: str, change: Callable[[RunningAgents], RunningAgents]) -> RunningAgents:
        return self._file(root).update(change)

    def _file(self, root: str) -> DocumentFile[RunningAgents]:
        return DocumentFile(self.path(root), RunningAgents)
