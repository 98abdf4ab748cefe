"""`.ideai/providers.json`: the CLIs' own session ids per conversation and provider."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from idea.domain.project import IDEAI_DIR
from idea.domain.providers import ProviderSessions
from idea.infrastructure.stores.document_file import DocumentFile

FILE_NAME = "providers.json"


class JsonProviderSessionStore:
    @staticmethod
    def path(root: str) -> Path:
        return Path(root) / IDEAI_DIR / FILE_NAME

    def load(self, root: str) -> ProviderSessions:
        return self._file(root).load()

    def save(self, root: str, sessions: ProviderSessions) -> None:
        self._file(root).save(sessions)

    def update(self, root: str, change: Callable[[ProviderSessions], ProviderSessions]) -> ProviderSessions:
        return self._file(root).update(change)

    def _file(self, root: str) -> DocumentFile[ProviderSessions]:
        return DocumentFile(self.path(root), ProviderSessions)
