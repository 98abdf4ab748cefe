"""The work panel's entries from the orchestration core's agent states (spec 05): whether an agent is stalled,
what it waits for from the person, its usage limit and when IdeA resumes it. A `WorkContributor`, fed with
the core's events on the core loop; registered for every project where its knowledge is composed."""

from __future__ import annotations

from dataclasses import dataclass, replace

from idea.domain.agent_state_events import (
    AgentAttentionCleared,
    AgentLivenessChanged,
    AgentNeedsAttention,
    AgentRateLimited,
    AgentRateLimitSuspected,
    AgentResumeCancelled,
    AgentResumed,
    AgentResumeScheduled,
    ResumeCancelReason,
)
from idea.domain.ids import AgentId
from idea.domain.liveness import Liveness as CoreLiveness
from idea.domain.work_state import AgentWork, Attention, Liveness, NoticeLevel, RateLimit, WorkNotice

SUSPECTED = "IdeA does not know when its usage limit resets: say when to resume it under Needs you (Agents panel)"
CANCELLED = {
    ResumeCancelReason.USER: "Automatic resume cancelled",
    ResumeCancelReason.USER_TOOK_OVER: "Automatic resume cancelled: you typed in its cell",
}


@dataclass
class _State:
    stalled: bool = False
    attention: Attention | None = None
    limit: RateLimit | None = None
    notice: WorkNotice | None = None


class AgentStateEntries:
    refreshing_events: tuple[type, ...] = (
        AgentLivenessChanged,
        AgentNeedsAttention,
        AgentAttentionCleared,
        AgentRateLimited,
        AgentResumeScheduled,
        AgentResumed,
        AgentResumeCancelled,
        AgentRateLimitSuspected,
    )

    def __init__(self) -> None:
        self._states: dict[AgentId, _State] = {}

    def observe(self, event: object) -> None:
        match event:
            case AgentLivenessChanged(agent_id=agent, liveness=liveness):
                self._of(agent).stalled = liveness is CoreLiveness.STALLED
            case AgentNeedsAttention(agent_id=agent, reason=reason, message=message):
                self._of(agent).attention = Attention(reason.value, message or None)
            case AgentAttentionCleared(agent_id=agent):
                self._of(agent).attention = None
            case AgentRateLimited(agent_id=agent, resets_at_ms=resets_at):
                self._of(agent).limit, self._of(agent).notice = RateLimit(resets_at, None), None
            case AgentResumeScheduled(agent_id=agent, fire_at_ms=fire_at):
                state = self._of(agent)
                state.limit = RateLimit(state.limit.resets_at_ms if state.limit else None, fire_at)
                state.notice = None
            case AgentResumed(agent_id=agent):
                self._of(agent).limit, self._of(agent).notice = None, None
            case AgentResumeCancelled(agent_id=agent, reason=reason):
                state = self._of(agent)
                state.limit = RateLimit(state.limit.resets_at_ms, None) if state.limit else None
                state.notice = WorkNotice(CANCELLED[reason])
            case AgentRateLimitSuspected(agent_id=agent):
                self._of(agent).notice = WorkNotice(SUSPECTED, NoticeLevel.WARNING)

    def annotate(self, agent: AgentWork) -> AgentWork:
        state = self._states.get(agent.agent_id)
        if state is None:
            return agent
        return replace(
            agent,
            liveness=Liveness.STALLED if state.stalled else agent.liveness,
            attention=state.attention or agent.attention,
            rate_limit=state.limit or agent.rate_limit,
            notices=(*agent.notices, state.notice) if state.notice else agent.notices,
        )

    def _of(self, agent: AgentId) -> _State:
        return self._states.setdefault(agent, _State())
