"""`.ideai/agents.json`, in the original IdeA's format."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from idea.domain.agent import AgentManifest
from idea.domain.project import IDEAI_DIR
from idea.infrastructure.stores.document_file import DocumentFile

FILE_NAME = "agents.json"


class JsonManifestStore:
    @staticmethod
    def path(root: str) -> Path:
        return Path(root) / IDEAI_DIR / FILE_NAME

    def load(self, root: str) -> AgentManifest:
        return self._file(root).load()

    def save(self, root: str, manifest: AgentManifest) -> None:
        self._file(root).save(manifest)

    def update(self, root: str, change: Callable[[AgentManifest], AgentManifest]) -> AgentManifest:
        return self._file(root).update(change)

    def _file(self, root: str) -> DocumentFile[AgentManifest]:
        return DocumentFile(self.path(root), AgentManifest)
