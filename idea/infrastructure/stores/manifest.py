"""`.ideai/agents.json`, in the original IdeA's format."""

from __future__ import annotations

from idea.domain.agent import AgentManifest
from idea.infrastructure.stores.document_file import ProjectDocumentStore

FILE_NAME = "agents.json"


class JsonManifestStore(ProjectDocumentStore[AgentManifest]):
    def __init__(self) -> None:
        super().__init__(FILE_NAME, AgentManifest, salvage=True)  # one broken agent never hides the team
