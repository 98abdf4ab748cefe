"""LR-2..LR-5: `SessionLimitService` events, arming, cancelling, resuming and the human net."""

from __future__ import annotations

import asyncio

import pytest

from idea.application.limits.service import AgentPlace, SessionLimitService
from idea.domain.agent_states.events import (
    AgentLimitDismissed,
    AgentRateLimited,
    AgentRateLimitSuspected,
    AgentResumeCancelled,
    AgentResumed,
    AgentResumeScheduled,
    ResumeCancelReason,
    SuspicionReason,
)
from idea.domain.agent_states.session_limit import DAY_MS, HOUR_MS, RESUME_PROMPT, RateLimitSource, ResumeAgent
from idea.domain.errors import AppError, ErrorCode
from tests.fakes import FakeClock, RecordingDiagnostics, RecordingEvents
from tests.fakes_limits import ManualScheduler, RecordingResumer

A = "agent-a"
B = "agent-b"


class Rig:
    def __init__(self) -> None:
        self.clock = FakeClock()
        self.scheduler = ManualScheduler()
        self.events = RecordingEvents()
        self.resumer = RecordingResumer()
        self.places: dict[str, AgentPlace] = {A: AgentPlace("node-1", "conv-a")}
        self.service = SessionLimitService(
            clock=self.clock,
            scheduler=self.scheduler,
            events=self.events,
            resumer=self.resumer,
            diagnostics=RecordingDiagnostics(),
            locate=self.places.get,
        )

    @property
    def now(self) -> int:
        return self.clock.now_ms()

    def limited(self, agent: str = A, resets: int | None = None, source: RateLimitSource = RateLimitSource.PATTERN):
        self.service.on_rate_limited(agent, "node-1", "conv-a", resets, source)


@pytest.fixture
def rig() -> Rig:
    return Rig()


class TestOnRateLimited:
    def test_future_reset_publishes_limited_then_scheduled(self, rig: Rig) -> None:
        reset = rig.now + HOUR_MS
        rig.limited(resets=reset)
        assert rig.events.events == [AgentRateLimited(A, reset), AgentResumeScheduled(A, reset)]
        _, deadline, task = rig.scheduler.only_pending()
        assert deadline == reset and task == ResumeAgent(A, "node-1", "conv-a")

    def test_a_second_signal_rearms_silently_exactly_one_armed(self, rig: Rig) -> None:
        rig.limited(resets=rig.now + HOUR_MS)
        rig.limited(resets=rig.now + 2 * HOUR_MS)
        assert [type(e) for e in rig.events.events] == [
            AgentRateLimited,
            AgentResumeScheduled,
            AgentRateLimited,
            AgentResumeScheduled,
        ]
        assert not rig.events.of_type(AgentResumeCancelled)
        assert len(rig.scheduler.pending) == 1
        assert rig.scheduler.only_pending()[1] == rig.now + 2 * HOUR_MS

    def test_past_reset_announces_the_raw_time_and_fires_now(self, rig: Rig) -> None:
        reset = rig.now - 60_000
        rig.limited(resets=reset)
        assert rig.events.events == [AgentRateLimited(A, reset), AgentResumeScheduled(A, rig.now)]

    def test_unknown_reset_raises_the_human_net_and_arms_nothing(self, rig: Rig) -> None:
        rig.limited(resets=None)
        assert rig.events.events == [AgentRateLimited(A, None), AgentRateLimitSuspected(A, None)]
        assert rig.scheduler.pending == {}

    def test_implausible_reset_is_asked_with_the_value_prefilled(self, rig: Rig) -> None:
        reset = rig.now + 9 * DAY_MS
        rig.limited(resets=reset)
        assert rig.events.events == [
            AgentRateLimited(A, reset),
            AgentRateLimitSuspected(A, reset, SuspicionReason.IMPLAUSIBLE_RESET),
        ]
        assert rig.scheduler.pending == {}

    def test_resumes_of_agents_sharing_a_reset_are_staggered(self, rig: Rig) -> None:
        reset = rig.now + HOUR_MS
        rig.limited(A, reset)
        rig.limited(B, reset)
        assert rig.events.of_type(AgentResumeScheduled) == [
            AgentResumeScheduled(A, reset),
            AgentResumeScheduled(B, reset + 2000),
        ]

    def test_reports_of_one_episode_count_once(self, rig: Rig) -> None:
        reset = rig.now + HOUR_MS
        assert rig.service.report(A, "node-1", "conv-a", reset, RateLimitSource.PATTERN)
        rig.clock.advance(2000)
        assert not rig.service.report(A, "node-1", "conv-a", reset + 30_000, RateLimitSource.PATTERN)
        assert len(rig.events.of_type(AgentRateLimited)) == 1

    def test_the_source_is_recorded_faithfully(self, rig: Rig) -> None:
        rig.limited(resets=rig.now + HOUR_MS, source=RateLimitSource.PATTERN)
        limit = rig.service.limit_of(A)
        assert limit is not None and limit.source is RateLimitSource.PATTERN


class TestCancel:
    def test_unknown_agent_is_false_without_event(self, rig: Rig) -> None:
        assert rig.service.cancel_resume(A) is False
        assert rig.events.events == [] and rig.scheduler.cancelled == []

    def test_armed_is_true_with_event(self, rig: Rig) -> None:
        rig.limited(resets=rig.now + HOUR_MS)
        assert rig.service.cancel_resume(A) is True
        assert rig.events.events[-1] == AgentResumeCancelled(A, ResumeCancelReason.USER)
        assert rig.scheduler.pending == {}
        assert rig.service.cancel_resume(A) is False

    async def test_already_fired_is_false_without_event_and_the_resume_goes_ahead(self, rig: Rig) -> None:
        rig.limited(resets=rig.now + HOUR_MS)
        schedule_id, _, _ = rig.scheduler.only_pending()
        task = rig.scheduler.fire(schedule_id)
        assert rig.service.cancel_resume(A) is False
        assert not rig.events.of_type(AgentResumeCancelled)
        await rig.service.execute_resume(task)
        assert rig.events.events[-1] == AgentResumed(A)
        assert rig.service.armed_fire_at(A) is None

    def test_the_person_pressing_enter_takes_over(self, rig: Rig) -> None:
        rig.limited(resets=rig.now + HOUR_MS)
        assert rig.service.user_took_over(A)
        assert rig.events.events[-1] == AgentResumeCancelled(A, ResumeCancelReason.USER_TOOK_OVER)


class TestExecute:
    async def test_success_publishes_resumed_and_removes_the_entry(self, rig: Rig) -> None:
        rig.limited(resets=rig.now + HOUR_MS)
        schedule_id, _, _ = rig.scheduler.only_pending()
        await rig.service.execute_resume(rig.scheduler.fire(schedule_id))
        assert rig.resumer.calls == [(A, "node-1", "conv-a", RESUME_PROMPT)]
        assert rig.events.events[-1] == AgentResumed(A)
        assert rig.service.armed_fire_at(A) is None and rig.service.limit_of(A) is None

    async def test_failure_propagates_without_event_and_removes_the_entry(self, rig: Rig) -> None:
        rig.limited(resets=rig.now + HOUR_MS)
        schedule_id, _, _ = rig.scheduler.only_pending()
        rig.resumer.fail()
        with pytest.raises(AppError):
            await rig.service.execute_resume(rig.scheduler.fire(schedule_id))
        assert not rig.events.of_type(AgentResumed)
        assert rig.service.armed_fire_at(A) is None

    async def test_resume_now_cancels_the_timer_and_resumes(self, rig: Rig) -> None:
        rig.limited(resets=rig.now + HOUR_MS)
        assert await rig.service.resume_now(A)
        assert rig.scheduler.pending == {} and rig.scheduler.fired == []
        assert rig.resumer.calls and rig.events.events[-1] == AgentResumed(A)
        assert not rig.events.of_type(AgentResumeCancelled)
        assert not await rig.service.resume_now(A)

    async def test_three_relimits_within_an_hour_hand_over_to_the_person(self, rig: Rig) -> None:
        for _ in range(3):
            rig.limited(resets=rig.now + 60_000)
            schedule_id, _, _ = rig.scheduler.only_pending()
            rig.clock.advance(60_000)
            await rig.service.execute_resume(rig.scheduler.fire(schedule_id))
            rig.clock.advance(30_000)  # limited again half a minute after the resume
        rig.limited(resets=rig.now + 60_000)
        assert rig.events.events[-1] == AgentRateLimitSuspected(A, rig.now + 60_000, SuspicionReason.RELIMITED)
        assert rig.scheduler.pending == {}

    async def test_drain_runs_fired_resumes_and_survives_a_failure(self, rig: Rig) -> None:
        queue: asyncio.Queue[ResumeAgent] = asyncio.Queue()
        drain = asyncio.create_task(rig.service.drain(queue))
        rig.resumer.fail()
        queue.put_nowait(ResumeAgent(A, None, None))
        await asyncio.sleep(0)
        rig.resumer.fail_with = None
        queue.put_nowait(ResumeAgent(B, None, None))
        while not rig.events.of_type(AgentResumed):
            await asyncio.sleep(0)
        drain.cancel()
        assert [call[0] for call in rig.resumer.calls] == [A, B]
        assert rig.events.of_type(AgentResumed) == [AgentResumed(B)]

    async def test_a_failed_automatic_resume_asks_the_person_and_their_time_resumes_it_there(self, rig: Rig) -> None:
        queue: asyncio.Queue[ResumeAgent] = asyncio.Queue()
        drain = asyncio.create_task(rig.service.drain(queue))
        rig.service.on_rate_limited(B, "node-9", "conv-b", rig.now + HOUR_MS, RateLimitSource.PATTERN)
        rig.resumer.fail("Codex is not signed in: run `codex login`")
        schedule_id, _, _ = rig.scheduler.only_pending()
        queue.put_nowait(rig.scheduler.fire(schedule_id))
        while not rig.events.of_type(AgentRateLimitSuspected):
            await asyncio.sleep(0)
        drain.cancel()
        assert rig.events.events[-2:] == [
            AgentRateLimited(B, rig.now + HOUR_MS),
            AgentRateLimitSuspected(B, None, SuspicionReason.RESUME_FAILED, "Codex is not signed in: run `codex login`"),
        ]
        # B's CLI is gone (nothing locates it): "Resume at this time" tries again where it would have run.
        rig.resumer.fail_with = None
        rig.service.set_resume_at(B, rig.now + 60_000)
        assert rig.scheduler.only_pending()[2] == ResumeAgent(B, "node-9", "conv-b")
        rig.service.dismiss(B)
        with pytest.raises(AppError):
            rig.service.set_resume_at(B, rig.now + 60_000)  # answered: nothing kept


class TestHumanNet:
    def test_confirmation_produces_the_same_events_as_the_automatic_path(self, rig: Rig) -> None:
        reset = rig.now + HOUR_MS
        rig.limited(resets=reset)
        automatic = list(rig.events.events)
        other = Rig()
        other.service.confirm_human_resume(A, "node-1", "conv-a", reset)
        assert other.events.events == automatic
        limit = other.service.limit_of(A)
        assert limit is not None and limit.source is RateLimitSource.HUMAN

    def test_confirmation_and_detection_deduplicate_both_ways(self, rig: Rig) -> None:
        reset = rig.now + HOUR_MS
        rig.limited(resets=None)  # human net
        rig.service.confirm_human_resume(A, "node-1", "conv-a", reset)
        assert len(rig.scheduler.pending) == 1
        assert not rig.service.report(A, "node-1", "conv-a", reset, RateLimitSource.PATTERN)
        rig.limited(resets=reset)  # a structured signal after the confirmation re-arms, still one
        assert len(rig.scheduler.pending) == 1
        rig.service.confirm_human_resume(A, "node-1", "conv-a", reset)
        assert len(rig.scheduler.pending) == 1

    def test_set_resume_at_needs_a_live_session(self, rig: Rig) -> None:
        with pytest.raises(AppError) as raised:
            rig.service.set_resume_at(B, rig.now + HOUR_MS)
        assert raised.value.code is ErrorCode.NOT_FOUND and "no live session for agent" in raised.value.message
        assert rig.scheduler.pending == {}
        rig.service.set_resume_at(A, rig.now + HOUR_MS)
        assert rig.scheduler.only_pending()[2] == ResumeAgent(A, "node-1", "conv-a")

    def test_stall_without_a_known_limit_raises_the_net_once_known_limits_do_not(self, rig: Rig) -> None:
        rig.service.stall_suspected(A)
        assert rig.events.events == [AgentRateLimitSuspected(A, None, SuspicionReason.STALLED)]
        rig.limited(B, rig.now + HOUR_MS)
        rig.service.stall_suspected(B)
        assert not [e for e in rig.events.of_type(AgentRateLimitSuspected) if e.agent_id == B]

    def test_a_view_opened_later_reads_the_limits_armed_resumes_and_open_nets(self, rig: Rig) -> None:
        reset = rig.now + HOUR_MS
        rig.limited(A, reset)
        rig.places[B] = AgentPlace(None, "conv-b")
        rig.limited(B, None)
        raised = rig.now
        rig.clock.advance(5_000)
        rig.service.stall_suspected("agent-c")
        state = rig.service.state()
        assert [event for event, _ in state] == [
            AgentRateLimited(A, reset),
            AgentResumeScheduled(A, reset),
            AgentRateLimited(B, None),
            AgentRateLimitSuspected(B, None, SuspicionReason.NO_RESET_TIME),
            AgentRateLimitSuspected("agent-c", None, SuspicionReason.STALLED),
        ]
        assert [at for event, at in state if isinstance(event, AgentRateLimitSuspected)] == [raised, raised + 5_000]
        assert rig.events.of_type(AgentRateLimitSuspected)[0].raised_at_ms == raised  # as the live views saw it

        rig.service.set_resume_at(B, rig.now + HOUR_MS)  # answered: a time
        rig.service.dismiss("agent-c")  # answered: keep waiting
        assert not [event for event, _ in rig.service.state() if isinstance(event, AgentRateLimitSuspected)]

    def test_dismiss_forgets_without_a_cancel_and_tells_the_views(self, rig: Rig) -> None:
        rig.limited(resets=rig.now + HOUR_MS)
        count = len(rig.events.events)
        rig.service.dismiss(A)
        assert rig.events.events[count:] == [AgentLimitDismissed(A)] and rig.scheduler.pending == {}
        assert rig.service.limit_of(A) is None
