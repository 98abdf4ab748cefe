"""`SegmentGate`: within this process, the reads of one conversation's segment files share them and a
rotation has them alone.

Windows refuses to replace or delete a file while any handle holds it open (CPython opens files without
FILE_SHARE_DELETE), and a rotation replaces the active segment and deletes archives past the backstop. So a
rotation waits until the pages being read are done, and reads asked for meanwhile wait behind it (a steady
flow of page reads never starves a rotation). The files are opened on worker threads: the gate is let go
when the thread's work ends, even when the coroutine that waited for it was cancelled first, since the
thread goes on with the file open. Appends are kept apart from rotations by the conversation's lock file.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


class SegmentGate:
    def __init__(self) -> None:
        self._readers = 0
        self._rotating = False
        self._rotations_waiting = 0
        self._waiters: list[asyncio.Future[None]] = []

    @property
    def readers(self) -> int:
        return self._readers

    @property
    def rotations_waiting(self) -> int:
        return self._rotations_waiting

    async def shared(self, work: Callable[[], T]) -> T:
        """Run `work` (it reads the segments) on a worker thread beside other reads, never during a rotation."""
        await self._wait_until(lambda: not self._rotating and not self._rotations_waiting)
        self._readers += 1
        return await self._on_thread(work, self._end_read)

    async def alone(self, work: Callable[[], T]) -> T:
        """Run `work` (it replaces and deletes segments) on a worker thread once no read has a file open."""
        self._rotations_waiting += 1
        try:
            await self._wait_until(lambda: not self._rotating and self._readers == 0)
            self._rotating = True
        finally:
            self._rotations_waiting -= 1
            self._wake()  # reads held back for a rotation that gave up waiting go on
        return await self._on_thread(work, self._end_rotation)

    async def _on_thread(self, work: Callable[[], T], end: Callable[[], None]) -> T:
        done = asyncio.ensure_future(asyncio.to_thread(work))

        def ended(future: asyncio.Future[T]) -> None:
            if not future.cancelled():
                future.exception()  # retrieved here when nobody awaits it any more
            end()

        done.add_done_callback(ended)
        return await asyncio.shield(done)

    def _end_read(self) -> None:
        self._readers -= 1
        self._wake()

    def _end_rotation(self) -> None:
        self._rotating = False
        self._wake()

    async def _wait_until(self, ready: Callable[[], bool]) -> None:
        while not ready():
            waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._waiters.append(waiter)
            try:
                await waiter
            finally:
                if waiter in self._waiters:
                    self._waiters.remove(waiter)

    def _wake(self) -> None:
        waiters, self._waiters = self._waiters, []
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)
