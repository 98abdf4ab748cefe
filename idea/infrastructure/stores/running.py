"""`.ideai/running.json`: the agents running at the last snapshot (background ones included)."""

from __future__ import annotations

from idea.domain.providers import RunningAgents
from idea.infrastructure.stores.document_file import ProjectDocumentStore

FILE_NAME = "running.json"


class JsonRunningAgentsStore(ProjectDocumentStore[RunningAgents]):
    def __init__(self) -> None:
        super().__init__(FILE_NAME, RunningAgents)
