"""The seams of the usage-limit service: a scheduler that survives suspends, and whoever can resume an agent."""

from __future__ import annotations

from typing import Protocol

from idea.domain.agent_states.session_limit import ResumeAgent
from idea.domain.ids import AgentId, NodeId

ScheduleId = int
ScheduledTask = ResumeAgent


class Scheduler(Protocol):
    """Wall-clock timers: a task fires when the wall clock passes its deadline, even after a suspend."""

    def arm(self, deadline_ms: int, task: ScheduledTask) -> ScheduleId:
        """Fire `task` at `deadline_ms` (epoch ms); a deadline already past fires as soon as possible."""
        ...

    def cancel(self, schedule_id: ScheduleId) -> bool:
        """True iff a pending timer was disarmed (False: unknown, or already fired)."""
        ...


class AgentResumer(Protocol):
    async def resume(self, agent_id: AgentId, node_id: NodeId | None, conversation_id: str | None, prompt: str) -> None:
        """Give `prompt` to the agent: typed into its CLI when it still runs, else relaunched with its engine
        session (or its handoff) in its cell or in the background. Raises AppError when it cannot."""
        ...
