"""Terminal output handed from the GUI thread to the core loop in batches made by time, not by chunk, with no
Python run for a chunk that arrives while output is flowing.

The widget hands its output over in chunks of at most 4 KB (about 6,000 for 24 MB), through a signal. A Python
slot would run for every chunk; instead the signal feeds a list's C-level `append` directly, and a Python
"waker" slot is connected beside it only while the core loop is idle. The first chunk after a quiet moment
runs the waker, which disconnects itself and wakes the core (a prompt, a dialog, a colour query or the echo of
a delivery is seen without delay); the chunks that follow cost the GUI thread one `append` each.

Waking the core thread costs both threads CPU each time (a self-pipe write, an epoll turn, the interpreter
lock taken from the GUI thread and given back), so the core takes what came in windows: short after a lone
chunk (`HANDOVER_FIRST_MS`: the rest of a reply and the prompt drawn after it wait no longer than that),
doubling while output keeps coming, up to `HANDOVER_EVERY_MS`: a burst shorter than about 60 ms (an echo, a
reply, a redrawn prompt) is handed over within windows of at most 32 ms, and a flood wakes the core about 16
times a second. A window that closes on nothing ends the flow and re-arms the waker on the GUI thread, which hands
over at once whatever came in between. The GUI thread is told when a flow starts and stops (the cell's "new
output" mark comes from that, not from a timer restarted for every chunk).

The batch is given as the widget's chunks (the PTY's bytes decoded as Latin-1): the terminal's scanners
search them where they lie (`OutputScanners`), and what listens on the core gets bytes of the batch's end
only (`output_tail`), so a flood is never copied whole.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, Protocol

from idea.infrastructure.terminal.stream import last_chunks

HANDOVER_FIRST_MS = 2
HANDOVER_EVERY_MS = 64


class OutputSignal(Protocol):
    """The widget's output signal (one `str` argument per chunk), as Qt's bound signals offer it."""

    def connect(self, slot: Callable[..., Any]) -> Any: ...

    def disconnect(self, slot: Callable[..., Any]) -> Any: ...


def _no_flow(_flowing: bool) -> None:
    pass


class OutputHandover:
    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        deliver: Callable[[list[str]], None],
        *,
        first_ms: int = HANDOVER_FIRST_MS,
        every_ms: int = HANDOVER_EVERY_MS,
    ) -> None:
        """`deliver(chunks)` runs on `loop` with every chunk the signal gave since its last call, in order."""
        self._loop = loop
        self._deliver = deliver
        self._first_s = first_ms / 1000
        self._every_s = every_ms / 1000
        # The GUI thread only appends (C-level, under the interpreter lock); the core takes from the front.
        # Always the same list: the signal holds its `append`.
        self._chunks: list[str] = []
        # GUI thread only: the signal, and whether the waker is connected to it.
        self._signal: OutputSignal | None = None
        self._post: Callable[[Callable[[], None]], None] = lambda _fn: None
        self._armed = False
        self._flowing = False
        self._on_flow: Callable[[bool], None] = _no_flow
        self._window_s = self._first_s  # core loop only, as is the timer
        self._window: asyncio.TimerHandle | None = None

    def attach(
        self,
        signal: OutputSignal,
        post: Callable[[Callable[[], None]], None],
        on_flow: Callable[[bool], None] = _no_flow,
    ) -> None:
        """GUI thread: hand over what `signal` gives from now on; `post(fn)` runs `fn` on the GUI thread later.
        `on_flow(True)` runs on the GUI thread when output starts flowing (its first chunk after a quiet
        moment), `on_flow(False)` when it has stopped (a window closed on nothing)."""
        self._signal = signal
        self._post = post
        self._on_flow = on_flow
        signal.connect(self._chunks.append)
        self._arm()

    def detach(self) -> None:
        """GUI thread: the widget goes; what it gave is still handed over. Every reference to the widget, and
        the waker's connection (which refers to this hand-over), go here, on the widget's thread: the
        hand-over itself may end on the core loop's, where no PySide object may be finalised."""
        signal, self._signal = self._signal, None
        if signal is not None and self._armed:
            try:
                signal.disconnect(self._wake)
            except RuntimeError:  # the widget was destroyed first: so was the connection
                pass
        self._armed = False
        self._on_flow = _no_flow

    def flush(self) -> None:
        """Any thread: hand over what is waiting now, ahead of anything queued to the loop after this call."""
        self._call_soon(self._take)

    def catch_up(self) -> None:
        """Core loop: what the widget gave so far is handed over now, not when its window closes (a caller is
        about to act on what the output said: whether the program asked for bracketed paste)."""
        if self._chunks:
            self._take()

    # GUI thread

    def _arm(self) -> None:
        signal = self._signal
        if signal is None or self._armed:
            return
        try:
            signal.connect(self._wake)  # after `append`: a chunk is in the list when the waker runs for it
        except RuntimeError:  # the widget was destroyed before it was detached: nothing more will come
            self._signal = None
            return
        self._armed = True
        if self._flowing:
            self._flowing = False
            self._on_flow(False)
        if self._chunks:  # came while the waker was not connected
            self._wake()

    def _wake(self, _chunk: str | None = None) -> None:
        if not self._armed:
            return
        self._armed = False
        if self._signal is not None:
            self._signal.disconnect(self._wake)
        self._call_soon(self._take)
        self._flowing = True
        self._on_flow(True)

    # Core loop

    def _call_soon(self, callback: Callable[[], None]) -> None:
        try:
            self._loop.call_soon_threadsafe(callback)
        except RuntimeError:
            pass  # the core loop has stopped: nobody is left to tell

    def _take(self) -> None:
        # Whoever calls, at most one window stays open; while none is, the waker is armed (or about to be).
        if self._window is not None:
            self._window.cancel()
            self._window = None
            self._window_s = min(self._window_s * 2, self._every_s)  # output came within the last window
        chunks = self._chunks
        count = len(chunks)
        if not count:
            self._window_s = self._first_s
            self._post(self._arm)
            return
        taken = chunks[:count]
        del chunks[:count]  # only what was taken: the GUI thread may have appended meanwhile
        self._window = self._loop.call_later(self._window_s, self._take)
        self._deliver(taken)


def output_tail(chunks: list[str], more_than: int) -> bytes:
    """The PTY's bytes of `chunks`: all of them, or, when they hold more than `more_than`, their last chunks
    that hold more than `more_than`."""
    return "".join(last_chunks(chunks, more_than)).encode("latin-1")
