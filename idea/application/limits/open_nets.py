"""The human nets the person has not answered yet (spec 05 §10), so a view that
starts to show the project later (another tab, another window) shows them too: events alone are lost to a
view that was not listening."""

from __future__ import annotations

from idea.domain.agent_states.events import AgentRateLimitSuspected
from idea.domain.ids import AgentId


class OpenNets:
    def __init__(self) -> None:
        self._nets: dict[AgentId, AgentRateLimitSuspected] = {}

    def raised(self, net: AgentRateLimitSuspected) -> None:
        self._nets[net.agent_id] = net

    def closed(self, agent_id: AgentId) -> None:
        """Answered (a time, "Not a limit", "Keep waiting"), or the agent resumed."""
        self._nets.pop(agent_id, None)

    def all(self) -> list[AgentRateLimitSuspected]:
        return list(self._nets.values())
