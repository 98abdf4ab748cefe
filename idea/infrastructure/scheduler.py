"""`AsyncioWallClockScheduler` (spec 05 §8.2): wall-clock timers on the core loop that still fire on time
after the machine slept or its clock moved.

A monotonic sleep until a deadline hours away fires late after a laptop wakes (the sleep does not count the
suspended time). Here the loop never sleeps more than 30 s: each time it wakes it compares the wall clock
with the deadlines and fires every due task by putting it on the queue given at construction. In memory only.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
from collections.abc import Awaitable, Callable

from idea.application.limits.ports import ScheduledTask, ScheduleId
from idea.application.ports import Clock

MAX_SLEEP_MS = 30_000


async def _sleep_ms(ms: int) -> None:
    await asyncio.sleep(ms / 1000)


class AsyncioWallClockScheduler:
    def __init__(
        self,
        clock: Clock,
        fired: asyncio.Queue[ScheduledTask],
        *,
        max_sleep_ms: int = MAX_SLEEP_MS,
        sleep: Callable[[int], Awaitable[None]] = _sleep_ms,
    ) -> None:
        self._clock = clock
        self._fired = fired
        self._max_sleep_ms = max_sleep_ms
        self._sleep = sleep
        self._heap: list[tuple[int, ScheduleId]] = []
        self._pending: dict[ScheduleId, ScheduledTask] = {}
        self._ids = itertools.count(1)
        self._changed = asyncio.Event()
        self._loop: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Start the timer loop on the running event loop."""
        if self._loop is None:
            self._loop = asyncio.get_running_loop().create_task(self._run())

    async def close(self) -> None:
        if self._loop is not None:
            self._loop.cancel()
            await asyncio.gather(self._loop, return_exceptions=True)
            self._loop = None

    def arm(self, deadline_ms: int, task: ScheduledTask) -> ScheduleId:
        schedule_id = next(self._ids)
        self._pending[schedule_id] = task
        heapq.heappush(self._heap, (deadline_ms, schedule_id))
        self._changed.set()
        return schedule_id

    def cancel(self, schedule_id: ScheduleId) -> bool:
        return self._pending.pop(schedule_id, None) is not None  # the heap entry is skipped when it comes up

    def pending(self) -> int:
        return len(self._pending)

    async def _run(self) -> None:
        while True:
            self._changed.clear()
            self._fire_due()
            await self._wait(self._delay_ms())

    def _fire_due(self) -> None:
        now = self._clock.now_ms()
        while self._heap and self._heap[0][0] <= now:
            _, schedule_id = heapq.heappop(self._heap)
            task = self._pending.pop(schedule_id, None)
            if task is not None:
                self._fired.put_nowait(task)

    def _delay_ms(self) -> int:
        while self._heap and self._heap[0][1] not in self._pending:
            heapq.heappop(self._heap)  # cancelled
        if not self._heap:
            return self._max_sleep_ms
        return max(0, min(self._heap[0][0] - self._clock.now_ms(), self._max_sleep_ms))

    async def _wait(self, delay_ms: int) -> None:
        """Until `delay_ms` passed or a timer was armed (it may be earlier than the one awaited)."""
        if self._changed.is_set():
            return
        sleeper = asyncio.ensure_future(self._sleep(delay_ms))
        changed = asyncio.ensure_future(self._changed.wait())
        try:
            await asyncio.wait({sleeper, changed}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for waiter in (sleeper, changed):
                waiter.cancel()
            await asyncio.gather(sleeper, changed, return_exceptions=True)
