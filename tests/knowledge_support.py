"""A project's knowledge on real files with a fake team, for the knowledge services' tests."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from idea.application.knowledge.runtime import ProjectKnowledge
from idea.application.orchestrator.dispatch import CommandDispatch
from idea.application.orchestrator.handlers.knowledge import KnowledgeCommands
from idea.domain.agent import AgentEntry, AgentManifest
from idea.domain.knowledge.work_state import LiveSession
from idea.domain.orchestration.commands import Outcome, Requester, Source
from idea.domain.orchestration.events import AgentQueueSnapshot
from idea.infrastructure.knowledge_adapters import LocalKnowledgeAdapters
from tests.fakes import FakeClock, RecordingDiagnostics, RecordingEvents, SequentialIds
from tests.fakes_orchestration import VirtualTime

MAIN = "a6ced819-b893-4213-b003-9e9dc79b9641"
ARCHITECT = "dce19c75-9669-4e45-b8de-9950025157da"
QA = "c932c770-cf36-4fb2-a966-71bb1644e4b4"


class FakeTeam:
    def __init__(self) -> None:
        self.team = AgentManifest(
            agents=tuple(
                AgentEntry(agent_id=agent_id, name=name, md_path=f"agents/{name.lower()}.md", profile_id="p")
                for agent_id, name in ((MAIN, "Main"), (ARCHITECT, "Architect"), (QA, "QA"))
            )
        )
        self.personas: dict[str, str] = {MAIN: "# Main\n", ARCHITECT: "# Architect\n", QA: "# QA\n"}
        self.live: dict[str, LiveSession] = {}
        self.queues: tuple[AgentQueueSnapshot, ...] = ()

    def manifest(self) -> AgentManifest:
        return self.team

    def persona(self, agent_id: str) -> str:
        return self.personas[agent_id]

    async def update_persona(self, agent_id: str, body: str) -> None:
        self.personas[agent_id] = body

    async def change_manifest(self, change: Callable[[AgentManifest], AgentManifest]) -> AgentManifest:
        self.team = change(self.team)
        return self.team

    def live_session(self, agent_id: str) -> LiveSession | None:
        return self.live.get(agent_id)

    def queue_snapshots(self) -> tuple[AgentQueueSnapshot, ...]:
        return self.queues


class KnowledgeTools:
    """The knowledge family registered on a dispatch of its own, called as the MCP door calls it."""

    def __init__(self, family: KnowledgeCommands) -> None:
        self.dispatch = CommandDispatch()
        family.register(self.dispatch)

    async def handle(self, requester: Requester, command: object) -> Outcome:
        return await self.dispatch.dispatch(requester, command, Source.MCP)  # type: ignore[arg-type]


class KnowledgeWorld:
    def __init__(self, root: Path, data_dir: Path) -> None:
        self.root = root
        self.data_dir = data_dir
        self.team = FakeTeam()
        self.clock = FakeClock()
        self.time = VirtualTime()
        self.events = RecordingEvents()
        self.diagnostics = RecordingDiagnostics()
        self.stores = LocalKnowledgeAdapters(data_dir).for_project(str(root))
        self.knowledge = ProjectKnowledge(
            self.stores,
            team=self.team,
            team_view=self.team,
            queues=self.team,
            clock=self.clock,
            timer=self.time,
            ids=SequentialIds(),
            events=self.events,
            diagnostics=self.diagnostics,
        )
        knowledge = self.knowledge
        self.tools = KnowledgeTools(
            KnowledgeCommands(knowledge.memory, knowledge.skills, knowledge.context, self.team, knowledge.guard)
        )

    @property
    def memory_dir(self) -> Path:
        return self.root / ".ideai" / "memory"
