"""The project's agents as the orchestration core sees them (its `AgentLifecycle` port): processes and
secrets from the runner, cells from the placement service."""

from __future__ import annotations

from collections.abc import Callable

from idea.application.agents.placement import AgentPlacement
from idea.application.agents.placement_rules import InBackground, InCell, InFirstEmptyCell, Place
from idea.application.agents.runner import AgentRunner
from idea.application.orchestrator.ports import LiveAgent
from idea.application.ports import Unsubscribe
from idea.domain.agent import AgentManifest
from idea.domain.ids import AgentId, ConversationId, NodeId
from idea.domain.profile import Profile


class TeamLifecycle:
    def __init__(self, runner: AgentRunner, placement: AgentPlacement) -> None:
        self._runner = runner
        self._placement = placement

    def manifest(self) -> AgentManifest:
        return self._runner.manifest()

    def profile_of(self, agent_id: AgentId) -> Profile:
        return self._runner.profile_of(agent_id)

    def live(self, agent_id: AgentId) -> LiveAgent | None:
        return self._runner.live(agent_id)

    def conversation_of(self, agent_id: AgentId) -> ConversationId | None:
        return self._runner.conversation_of(agent_id)

    async def launch(
        self,
        agent_id: AgentId,
        *,
        node_id: NodeId | None,
        visible: bool,
        reason: str,
        conversation_id: ConversationId | None = None,
    ) -> LiveAgent:
        return await self._placement.start(
            agent_id, place_for(node_id, visible=visible), reason=reason, conversation_id=conversation_id
        )

    async def stop(self, agent_id: AgentId) -> None:
        await self._placement.stop(agent_id)

    def on_exit(self, listener: Callable[[AgentId, int | None], None]) -> Unsubscribe:
        return self._runner.on_exit(listener)

    def verify_token(self, agent_id: AgentId, token: str) -> bool:
        return self._runner.verify_token(agent_id, token)

    async def update_persona(self, agent_id: AgentId, content: str) -> None:
        await self._runner.update_persona(agent_id, content)


def place_for(node_id: NodeId | None, *, visible: bool) -> Place:
    """idea_launch_agent's `nodeId` / `visible`: that cell, else the first empty cell when visible, else
    the background."""
    if node_id is not None:
        return InCell(node_id)
    return InFirstEmptyCell() if visible else InBackground()
