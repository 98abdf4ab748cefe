"""LR-6: the wall-clock scheduler fires after a clock jump (a suspended laptop) within its 30 s re-check."""

from __future__ import annotations

import asyncio

from idea.domain.agent_states.session_limit import HOUR_MS, ResumeAgent
from idea.infrastructure.scheduler import AsyncioWallClockScheduler
from tests.fakes import FakeClock

TASK = ResumeAgent("agent-a", None, "conv")


class SteppedSleep:
    """Sleeps that end only when the test says; records what was asked."""

    def __init__(self) -> None:
        self.asked: list[int] = []
        self._wake = asyncio.Event()

    async def __call__(self, ms: int) -> None:
        self.asked.append(ms)
        await self._wake.wait()
        self._wake.clear()

    def wake(self) -> None:
        self._wake.set()


async def settle() -> None:
    for _ in range(10):
        await asyncio.sleep(0)


async def test_fires_after_a_clock_jump_at_the_next_thirty_second_check() -> None:
    clock = FakeClock()
    fired: asyncio.Queue[ResumeAgent] = asyncio.Queue()
    sleep = SteppedSleep()
    scheduler = AsyncioWallClockScheduler(clock, fired, sleep=sleep)
    scheduler.start()
    scheduler.arm(clock.now_ms() + 3 * HOUR_MS, TASK)
    await settle()
    assert sleep.asked[-1] == 30_000  # never longer, whatever the deadline
    clock.advance(4 * HOUR_MS)  # the machine slept; the monotonic sleep did not count it
    sleep.wake()  # ... and the 30 s sleep ends
    assert await asyncio.wait_for(fired.get(), 1) == TASK
    await scheduler.close()


async def test_near_deadline_sleeps_just_until_it_and_fires() -> None:
    clock = FakeClock()
    fired: asyncio.Queue[ResumeAgent] = asyncio.Queue()
    sleep = SteppedSleep()
    scheduler = AsyncioWallClockScheduler(clock, fired, sleep=sleep)
    scheduler.start()
    await settle()
    scheduler.arm(clock.now_ms() + 1500, TASK)
    await settle()
    assert sleep.asked[-1] == 1500  # an arming wakes the loop to sleep the shorter time
    assert fired.empty()
    clock.advance(1500)
    sleep.wake()
    assert await asyncio.wait_for(fired.get(), 1) == TASK
    await scheduler.close()


async def test_past_deadline_fires_at_once_and_cancel_reports_pending_only() -> None:
    clock = FakeClock()
    fired: asyncio.Queue[ResumeAgent] = asyncio.Queue()
    scheduler = AsyncioWallClockScheduler(clock, fired, sleep=SteppedSleep())
    scheduler.start()
    first = scheduler.arm(clock.now_ms() - 1000, TASK)
    assert await asyncio.wait_for(fired.get(), 1) == TASK
    assert scheduler.cancel(first) is False  # already fired
    second = scheduler.arm(clock.now_ms() + HOUR_MS, TASK)
    assert scheduler.cancel(second) is True
    assert scheduler.cancel(second) is False
    await settle()
    assert scheduler.pending() == 0 and fired.empty()
    await scheduler.close()


async def test_real_sleep_fires_a_short_deadline() -> None:
    clock = FakeClock()
    fired: asyncio.Queue[ResumeAgent] = asyncio.Queue()
    scheduler = AsyncioWallClockScheduler(clock, fired, max_sleep_ms=5)
    scheduler.start()
    scheduler.arm(clock.now_ms() + 60_000, TASK)
    await settle()
    clock.advance(60_000)  # the wall clock passes the deadline; the loop re-checks within 5 ms
    assert await asyncio.wait_for(fired.get(), 5) == TASK
    await scheduler.close()
