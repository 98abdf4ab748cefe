"""`.ideai/providers.json`: the CLIs' own session ids per conversation and provider."""

from __future__ import annotations

from idea.domain.providers import ProviderSessions
from idea.infrastructure.stores.document_file import ProjectDocumentStore

FILE_NAME = "providers.json"


class JsonProviderSessionStore(ProjectDocumentStore[ProviderSessions]):
    def __init__(self) -> None:
        super().__init__(FILE_NAME, ProviderSessions)
