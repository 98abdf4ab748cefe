"""`WriteBehind`: a file that can lag its state in memory by a bounded delay is written once per burst of
changes instead of once per change.

For derived or volatile state whose truth is in memory (the handoffs, spec 04 §6; the live-state board,
spec 03 §10): `changed()` marks the state as not yet written and arms one write `delay_ms` later; every
change until then rides on that write. `flush()` writes now (before a reader that needs the file, at close);
after `close()` every change is written at once, so what happens while a project closes is never left behind.
A crash loses at most the last `delay_ms` of changes, which their owners rebuild at the next open.

The delay is slept on the `Sleeper` port (the orchestration core's `Timer`), so tests drive it with virtual
time. Without a running event loop (a synchronous caller) the write happens at once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Protocol


class Sleeper(Protocol):
    async def sleep(self, ms: int) -> None: ...


class WriteBehind:
    def __init__(self, write: Callable[[], None], sleeper: Sleeper, delay_ms: int) -> None:
        """`write` writes the current state and handles its own failures (it is called from a timer)."""
        self._write = write
        self._sleeper = sleeper
        self._delay_ms = delay_ms
        self._pending = False
        self._closed = False
        self._later: asyncio.Task[None] | None = None

    @property
    def pending(self) -> bool:
        """A change not yet written."""
        return self._pending

    def changed(self) -> None:
        self._pending = True
        if self._later is not None:
            return
        if self._closed or self._delay_ms <= 0:
            self.flush()
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop to wait on: write now
            self.flush()
            return
        self._later = loop.create_task(self._write_later())

    def flush(self) -> None:
        """Write now when a change is pending; the armed write, if any, is disarmed."""
        later, self._later = self._later, None
        if later is not None and later is not _current_task():
            later.cancel()
        if self._pending:
            self._pending = False
            self._write()

    def close(self) -> None:
        """Write what is pending; every later change is written at once."""
        self._closed = True
        self.flush()

    async def _write_later(self) -> None:
        await self._sleeper.sleep(self._delay_ms)
        self.flush()


def _current_task() -> asyncio.Task[object] | None:
    try:
        return asyncio.current_task()
    except RuntimeError:
        return None
