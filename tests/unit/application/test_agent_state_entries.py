"""The work panel's entries from the core's agent states (spec 05 through spec 04 §15): stalls, what an agent
waits for, its usage limit and resume, learned from the core's events."""

from __future__ import annotations

from idea.application.knowledge.agent_state_entries import CANCELLED, SUSPECTED, AgentStateEntries
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
from idea.domain.attention import AttentionReason
from idea.domain.liveness import Liveness as CoreLiveness
from idea.domain.work_state import AgentWork, Attention, Liveness, NoticeLevel, RateLimit

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
