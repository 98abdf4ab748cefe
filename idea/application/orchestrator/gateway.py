"""The one entrance of a project's orchestration core, shared by every door.

The MCP server, the request-folder watcher and the hook relay are adapters that translate their wire
format into these calls; none of them contains orchestration logic.
"""

from __future__ import annotations

from typing import Any, Protocol

from idea.domain.ids import AgentId, ProjectId
from idea.domain.orchestration.commands import Command, Outcome, Requester, Source


class OrchestrationGateway(Protocol):
    @property
    def project_id(self) -> ProjectId: ...

    def authenticate(self, agent_id: AgentId, token: str) -> bool:
        """True when `agent_id` is an agent of the project and `token` the secret of its current launch."""
        ...

    async def dispatch(self, requester: Requester, command: Command, source: Source) -> Outcome:
        """Run one command. Raises AppError with a stable code for every failure. Cancelling the awaiting
        task cancels the command (an MCP `notifications/cancelled`, a bridge that hung up)."""
        ...

    def bridge_connected(self, agent_id: AgentId) -> None:
        """An authenticated bridge of this agent opened a connection."""
        ...

    def bridge_initialized(self, agent_id: AgentId) -> None:
        """The agent's MCP client sent `initialize`: its CLI is up (releases a cold-start gate)."""
        ...

    def bridge_disconnected(self, agent_id: AgentId) -> None: ...

    def hook_event(self, agent_id: AgentId, source: str, event: str, payload: dict[str, Any]) -> None:
        """A lifecycle event relayed from the agent's CLI (Claude hooks, Codex notify)."""
        ...
