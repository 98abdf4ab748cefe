"""The work panel's entries from the core's agent states (spec 05 through spec 04 §15): stalls, what an agent
waits for, its usage limit and resume, learned from the core's events."""

from __future__ import annotations

from idea.application.knowledge.agent_state_entries import (
    CANCELLED,
    SUSPECTED,
    SUSPECTED_BY_REASON,
    AgentStateEntries,
)
from idea.domain.agent_states.events import (
    AgentLimitDismissed,
    AgentAttentionCleared,
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
from idea.domain.agent_states.attention import AttentionReason
from idea.domain.agent_states.liveness import Liveness as CoreLiveness
from idea.domain.knowledge.work_state import AgentWork, Attention, Liveness, NoticeLevel, RateLimit

QA = "c932c770-cf36-4fb2-a966-71bb1644e4b4"
MAIN = "a6ced819-b893-4213-b003-9e9dc79b9641"


def entry(agent_id: str = QA) -> AgentWork:
    return AgentWork(agent_id, "QA", "p", None, None)


def test_an_agent_nothing_was_said_of_is_left_as_it_is() -> None:
    entries = AgentStateEntries()
    entries.observe(AgentLivenessChanged(MAIN, CoreLiveness.STALLED))
    assert entries.annotate(entry()) == entry()


def test_stall_attention_and_limit_follow_the_events() -> None:
    entries = AgentStateEntries()
    entries.observe(AgentLivenessChanged(QA, CoreLiveness.STALLED))
    entries.observe(AgentNeedsAttention(QA, AttentionReason.TRUST, "Do you trust this folder?", visible=False))
    entries.observe(AgentRateLimited(QA, 1_000))
    entries.observe(AgentResumeScheduled(QA, 2_000))
    work = entries.annotate(entry())
    assert work.liveness is Liveness.STALLED
    assert work.attention == Attention("trust", "Do you trust this folder?")
    assert work.rate_limit == RateLimit(1_000, 2_000) and work.notices == ()

    entries.observe(AgentLivenessChanged(QA, CoreLiveness.ALIVE))
    entries.observe(AgentAttentionCleared(QA))
    entries.observe(AgentResumeCancelled(QA, ResumeCancelReason.USER_TOOK_OVER))
    work = entries.annotate(entry())
    assert work.liveness is None and work.attention is None
    assert work.rate_limit == RateLimit(1_000, None)
    assert [notice.text for notice in work.notices] == [CANCELLED[ResumeCancelReason.USER_TOOK_OVER]]

    entries.observe(AgentResumed(QA))
    assert entries.annotate(entry()) == entry()


def test_a_limit_without_a_reset_time_asks_the_person() -> None:
    entries = AgentStateEntries()
    entries.observe(AgentRateLimited(QA, None))
    entries.observe(AgentRateLimitSuspected(QA))
    work = entries.annotate(entry())
    assert work.rate_limit == RateLimit(None, None)
    assert [(n.text, n.level) for n in work.notices] == [(SUSPECTED, NoticeLevel.WARNING)]
    assert all(isinstance(event_type, type) for event_type in entries.refreshing_events)


def test_each_reason_of_the_net_has_its_words_and_an_answer_clears_the_entry() -> None:
    entries = AgentStateEntries()
    entries.observe(AgentRateLimitSuspected(QA, None, SuspicionReason.STALLED))
    (notice,) = entries.annotate(entry()).notices
    assert notice.text == SUSPECTED_BY_REASON[SuspicionReason.STALLED] and "keep waiting" in notice.text
    assert len(set(SUSPECTED_BY_REASON.values())) == len(SuspicionReason)

    entries.observe(AgentRateLimited(QA, None))
    entries.observe(AgentRateLimitSuspected(QA))
    entries.observe(AgentLimitDismissed(QA))  # "Not a limit — dismiss", "Keep waiting" or "Interrupt agent"
    assert entries.annotate(entry()) == entry()
    assert AgentLimitDismissed in entries.refreshing_events

    entries.observe(AgentRateLimitSuspected(QA, None, SuspicionReason.RESUME_FAILED, "Codex is not signed in"))
    (notice,) = entries.annotate(entry()).notices
    assert notice.text.startswith("IdeA could not resume it after its usage limit: Codex is not signed in — answer")
