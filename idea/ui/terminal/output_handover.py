"""Terminal output handed from the GUI thread to the core loop in batches: one wake-up of the core thread
takes everything the widget received meanwhile (a wake-up per chunk costs the GUI thread the interpreter lock
each time, and with it the terminal's throughput)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable


class OutputHandover:
    def __init__(self, loop: asyncio.AbstractEventLoop, deliver: Callable[[bytes], None]) -> None:
        """`deliver(data)` runs on `loop` with every chunk given since its last call, joined in order."""
        self._loop = loop
        self._deliver = deliver
        self._chunks: list[bytes] = []
        self._scheduled = False
        self._lock = threading.Lock()

    def give(self, chunk: bytes) -> None:
        """GUI thread (any thread)."""
        with self._lock:
            self._chunks.append(chunk)
            if self._scheduled:
                return
            self._scheduled = True
        try:
            self._loop.call_soon_threadsafe(self._take)
        except RuntimeError:
            pass  # the core loop has stopped: nobody is left to tell

    def _take(self) -> None:
        with self._lock:
            chunks, self._chunks = self._chunks, []
            self._scheduled = False
        if chunks:
            self._deliver(b"".join(chunks))
