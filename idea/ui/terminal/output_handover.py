"""Terminal output handed from the GUI thread to the core loop in batches made by time, not by chunk.

The widget hands its output over in chunks of at most 4 KB (about 6,000 for 24 MB). Waking the core thread
costs about 0.1 ms of CPU each time (measured here: a self-pipe write, an epoll turn, the interpreter lock
back and forth), so a wake-up per chunk of a flood costs more than everything else IdeA does with the output.

A chunk that finds the core idle goes at once: a prompt, a dialog, a colour query or the echo of a delivery is
seen without delay. Each hand-over opens a window in which later chunks are only collected; when it closes
they go together. The window is short after a lone chunk (`HANDOVER_FIRST_MS`: the rest of a reply and the
prompt drawn after it wait no longer than that) and doubles while output keeps coming, up to
`HANDOVER_EVERY_MS`: a flood wakes the core about 60 times a second. A window that closes on nothing ends
the flow. The GUI thread's part is one list append under a lock: no decoding, no scanning.

The widget gives its output as text decoded from Latin-1; it is given back as the PTY's bytes, one bytes
object per batch built from the chunks directly (no large intermediate string).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable

HANDOVER_FIRST_MS = 2
HANDOVER_EVERY_MS = 16


class OutputHandover:
    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        deliver: Callable[[bytes], None],
        *,
        first_ms: int = HANDOVER_FIRST_MS,
        every_ms: int = HANDOVER_EVERY_MS,
    ) -> None:
        """`deliver(data)` runs on `loop` with every chunk given since its last call, in order, as bytes."""
        self._loop = loop
        self._deliver = deliver
        self._first_s = first_ms / 1000
        self._every_s = every_ms / 1000
        self._chunks: list[str] = []
        # True while a hand-over is due (queued now or at the end of a window): the GUI thread only appends.
        self._scheduled = False
        self._lock = threading.Lock()
        self._window_s = self._first_s  # core loop only, as is the timer
        self._window: asyncio.TimerHandle | None = None

    def give(self, chunk: str) -> None:
        """GUI thread (any thread): the slot of the widget's output signal (PTY bytes decoded as Latin-1)."""
        with self._lock:
            self._chunks.append(chunk)
            if self._scheduled:
                return
            self._scheduled = True
        self._call_soon(self._take)

    def flush(self) -> None:
        """Any thread: hand over what is waiting now, ahead of anything queued to the loop after this call."""
        self._call_soon(self._take)

    def _call_soon(self, callback: Callable[[], None]) -> None:
        try:
            self._loop.call_soon_threadsafe(callback)
        except RuntimeError:
            pass  # the core loop has stopped: nobody is left to tell

    def _take(self) -> None:
        # Whoever calls, at most one window stays open, and `_scheduled` is True exactly while a hand-over is
        # due: a chunk given meanwhile is always taken.
        if self._window is not None:
            self._window.cancel()
            self._window = None
            self._window_s = min(self._window_s * 2, self._every_s)  # output came within the last window
        with self._lock:
            chunks, self._chunks = self._chunks, []
            self._scheduled = bool(chunks)
        if not chunks:
            self._window_s = self._first_s
            return
        self._window = self._loop.call_later(self._window_s, self._take)
        if len(chunks) == 1:
            self._deliver(chunks[0].encode("latin-1"))
        else:
            self._deliver(b"".join([chunk.encode("latin-1") for chunk in chunks]))
