"""A project's knowledge composed with its runtime: the team the knowledge services see (the agent
catalogue, the live sessions, the orchestration core's queues) and the knowledge family of the dispatch.

Built by `ProjectRuntime` for each open project, before its orchestration core, which then records every
turn through `ProjectKnowledge.append` and serves the six knowledge tools through `KnowledgeCommands`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from idea.application.agents.catalogue import AgentCatalogue
from idea.application.knowledge.agent_state_entries import AgentStateEntries
from idea.application.knowledge.runtime import KnowledgeStores, ProjectKnowledge
from idea.application.orchestrator.handlers.knowledge import KnowledgeCommands
from idea.application.ports import Clock, Diagnostics, EventPublisher, IdGenerator
from idea.application.sessions import SessionRegistry
from idea.application.write_behind import Sleeper
from idea.domain import layout as lay
from idea.domain.agent import AgentManifest
from idea.domain.ids import AgentId
from idea.domain.knowledge.work_state import LiveSession
from idea.domain.orchestration.events import AgentQueueSnapshot


class QueueSource(Protocol):
    def queue_snapshots(self) -> tuple[AgentQueueSnapshot, ...]: ...


class TeamHost(Protocol):
    """What the knowledge's view of the team reads of the project runtime (`ProjectRuntime` is one)."""

    @property
    def agents(self) -> AgentCatalogue: ...

    @property
    def sessions(self) -> SessionRegistry: ...

    @property
    def active(self) -> lay.Layout: ...

    @property
    def orchestrator(self) -> QueueSource: ...


class ProjectTeam:
    """The knowledge's `Team`, `TeamView` and `QueueView` over a project runtime. The orchestration core is
    read when asked, so it may be built after this."""

    def __init__(self, host: TeamHost) -> None:
        self._host = host

    def manifest(self) -> AgentManifest:
        return self._host.agents.manifest()

    def persona(self, agent_id: AgentId) -> str:
        return self._host.agents.persona(agent_id)

    async def update_persona(self, agent_id: AgentId, body: str) -> None:
        await self._host.agents.update_persona(agent_id, body)

    async def change_manifest(self, change: Callable[[AgentManifest], AgentManifest]) -> AgentManifest:
        return await self._host.agents.change_manifest(change)

    def live_session(self, agent_id: AgentId) -> LiveSession | None:
        info = self._host.sessions.live_agent_session(agent_id)
        if info is None:
            return None
        leaf = lay.leaf_showing_session(self._host.active.root, info.id)
        return LiveSession(node_id=leaf.id if leaf else None, session_id=info.id, kind="pty")

    def queue_snapshots(self) -> tuple[AgentQueueSnapshot, ...]:
        return self._host.orchestrator.queue_snapshots()


def compose_project_knowledge(
    host: TeamHost,
    stores: KnowledgeStores,
    *,
    clock: Clock,
    timer: Sleeper,
    ids: IdGenerator,
    events: EventPublisher,
    diagnostics: Diagnostics,
) -> tuple[ProjectKnowledge, KnowledgeCommands]:
    """The project's knowledge services and the command family that serves them to agents."""
    team = ProjectTeam(host)
    knowledge = ProjectKnowledge(
        stores,
        team=team,
        team_view=team,
        queues=team,
        clock=clock,
        timer=timer,
        ids=ids,
        events=events,
        diagnostics=diagnostics,
    )
    knowledge.work.add_contributor(AgentStateEntries())  # liveness, attention, usage limits (spec 05)
    family = KnowledgeCommands(knowledge.memory, knowledge.skills, knowledge.context, team, knowledge.guard)
    return knowledge, family
