"""The work panel's entries from the orchestration core's agent states (spec 05): whether an agent is stalled,
what it waits for from the person, its usage limit and when IdeA resumes it. A `WorkContributor`, fed with
the core's events on the core loop; registered for every project where its knowledge is composed."""

from __future__ import annotations

from dataclasses import dataclass, replace

from idea.domain.agent_states.events import (
    AgentAttentionCleared,
    AgentLimitDismissed,
    AgentLivenessChanged,
    AgentNeedsAttention,
    AgentRateLimited,
    AgentRateLimitSuspected,
    AgentResumeCancelled,
    AgentResumed,
    AgentResumeScheduled,
    ResumeCancelReason,
    SuspicionReason,
)
from idea.domain.agent_states.liveness import Liveness as CoreLiveness
from idea.domain.ids import AgentId
from idea.domain.knowledge.work_state import AgentWork, Attention, Liveness, NoticeLevel, RateLimit, WorkNotice

WHERE_TO_ANSWER = "answer in the window's notice or under Needs you (Agents panel)"
_WHY = {
    SuspicionReason.NO_RESET_TIME: "IdeA does not know when its usage limit resets: say when to resume it",
    SuspicionReason.STALLED: "No sign of work for a long while during a task: keep waiting, interrupt it or give a "
    "time to resume it",
    SuspicionReason.IMPLAUSIBLE_RESET: "The usage-limit reset IdeA read looks wrong: check the time",
    SuspicionReason.RELIMITED: "Limited again right after each resume, so IdeA stopped resuming it",
    SuspicionReason.RESUME_FAILED: "IdeA could not resume it after its usage limit",
}


def suspected_text(reason: SuspicionReason, detail: str | None = None) -> str:
    return _WHY[reason] + (f": {detail}" if detail else "") + f" — {WHERE_TO_ANSWER}"


SUSPECTED_BY_REASON = {reason: suspected_text(reason) for reason in SuspicionReason}
SUSPECTED = SUSPECTED_BY_REASON[SuspicionReason.NO_RESET_TIME]
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
        AgentLimitDismissed,
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
            case AgentRateLimitSuspected(agent_id=agent, reason=reason, detail=detail):
                self._of(agent).notice = WorkNotice(suspected_text(reason, detail), NoticeLevel.WARNING)
            case AgentLimitDismissed(agent_id=agent):
                self._of(agent).limit, self._of(agent).notice = None, None

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
