"""OutputHandover: terminal output reaches the core loop whole and in order, at once after a quiet moment, in
timed batches while it keeps coming. A scripted loop runs the callbacks, so when each hand-over happens is
exact; one case gives chunks from another thread against a real loop."""

from __future__ import annotations

import asyncio
import random
import threading
from collections.abc import Callable, Iterator

import pytest

from idea.ui.terminal.output_handover import HANDOVER_EVERY_MS, HANDOVER_FIRST_MS, OutputHandover


class _Timer:
    def __init__(self, delay: float, callback: Callable[[], None]) -> None:
        self.delay = delay
        self.callback = callback
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class ScriptedLoop:
    """The two loop methods the hand-over uses; the test decides when queued calls and timers run."""

    def __init__(self) -> None:
        self.soon: list[Callable[[], None]] = []
        self.timers: list[_Timer] = []

    def call_soon_threadsafe(self, callback: Callable[[], None]) -> None:
        self.soon.append(callback)

    def call_later(self, delay: float, callback: Callable[[], None]) -> _Timer:
        timer = _Timer(delay, callback)
        self.timers.append(timer)
        return timer

    def pending_timers(self) -> list[_Timer]:
        return [timer for timer in self.timers if not timer.cancelled]

    def run_soon(self) -> None:
        calls, self.soon = self.soon, []
        for call in calls:
            call()

    def fire_timer(self) -> None:
        (timer,) = self.pending_timers()
        timer.cancelled = True
        timer.callback()


@pytest.fixture
def rig() -> Iterator[tuple[ScriptedLoop, OutputHandover, list[bytes]]]:
    loop = ScriptedLoop()
    delivered: list[bytes] = []
    yield loop, OutputHandover(loop, delivered.append), delivered  # type: ignore[arg-type]


def test_output_after_a_quiet_moment_goes_at_once(rig: tuple[ScriptedLoop, OutputHandover, list[bytes]]) -> None:
    loop, handover, delivered = rig
    for chunk in ("$ ", "ls\r\n", "a  b\r\n$ "):
        handover.give(chunk)
        assert len(loop.soon) == 1
        loop.run_soon()
        assert delivered[-1] == chunk.encode()
        (window,) = loop.pending_timers()
        assert window.delay == HANDOVER_FIRST_MS / 1000  # a short window after a lone chunk...
        loop.fire_timer()  # ...that closes on nothing: the next chunk goes at once too
        assert loop.pending_timers() == []
    assert delivered == [b"$ ", b"ls\r\n", b"a  b\r\n$ "]


def test_the_widgets_latin_1_text_is_handed_over_as_the_ptys_bytes(
    rig: tuple[ScriptedLoop, OutputHandover, list[bytes]],
) -> None:
    loop, handover, delivered = rig
    utf8 = "中 é\x1b[0m".encode()
    handover.give(utf8[:2].decode("latin-1"))  # the widget cuts where the PTY read ended
    loop.run_soon()
    handover.give(utf8[2:5].decode("latin-1"))
    handover.give(utf8[5:].decode("latin-1"))
    loop.fire_timer()
    assert b"".join(delivered) == utf8 and len(delivered) == 2


def test_output_that_keeps_coming_goes_in_windows_growing_to_the_cadence(
    rig: tuple[ScriptedLoop, OutputHandover, list[bytes]],
) -> None:
    loop, handover, delivered = rig
    for index in range(3):  # faster than the core takes them
        handover.give(f"chunk{index} ")
    assert len(loop.soon) == 1  # one wake-up for all three
    loop.run_soon()
    assert delivered == [b"chunk0 chunk1 chunk2 "]
    windows = []
    for batch in range(1, 8):
        for index in range(batch * 100, batch * 100 + 50):
            handover.give(f"chunk{index} ")
        assert loop.soon == []  # while output keeps coming, the GUI thread only appends
        windows.append(loop.pending_timers()[0].delay)
        loop.fire_timer()
        assert delivered[batch] == b"".join(b"chunk%d " % index for index in range(batch * 100, batch * 100 + 50))
    first, every = HANDOVER_FIRST_MS / 1000, HANDOVER_EVERY_MS / 1000
    assert windows[0] == first and windows[-1] == every
    assert all(later == min(earlier * 2, every) for earlier, later in zip(windows, windows[1:]))
    loop.fire_timer()  # nothing came in the last window: the flow is over
    assert len(delivered) == 8 and loop.pending_timers() == []
    handover.give("$ ")  # the next output goes at once, and opens a short window again
    assert len(loop.soon) == 1
    loop.run_soon()
    assert delivered[8] == b"$ " and loop.pending_timers()[0].delay == first


def test_flush_hands_over_what_waits_and_keeps_one_window(rig: tuple[ScriptedLoop, OutputHandover, list[bytes]]) -> None:
    loop, handover, delivered = rig
    handover.give("a")
    handover.give("b")
    loop.run_soon()
    handover.give("c")  # waits for the window to close...
    handover.flush()  # ...unless the program's exit is about to be told: it goes first
    loop.run_soon()
    assert delivered == [b"ab", b"c"]
    assert len(loop.pending_timers()) == 1  # the flush replaced the window, never added one
    loop.fire_timer()
    assert delivered == [b"ab", b"c"] and loop.pending_timers() == []
    handover.flush()  # nothing waits: nothing is delivered
    loop.run_soon()
    assert delivered == [b"ab", b"c"] and loop.pending_timers() == []


def test_a_stopped_loop_is_not_an_error() -> None:
    loop = asyncio.new_event_loop()
    loop.close()
    handover = OutputHandover(loop, lambda _text: None)
    handover.give("output after the core stopped")
    handover.flush()


def test_chunks_given_from_another_thread_all_arrive_in_order() -> None:
    """The GUI thread appends while the core takes: nothing is lost, duplicated or reordered."""
    chunks = [f"<{index}:" + "x" * random.Random(index).randrange(1, 300) + ">" for index in range(20_000)]
    expected = "".join(chunks)
    delivered: list[bytes] = []
    complete = threading.Event()
    loop = asyncio.new_event_loop()

    def deliver(data: bytes) -> None:
        delivered.append(data)
        if sum(map(len, delivered)) >= len(expected):
            complete.set()

    core = threading.Thread(target=loop.run_forever, daemon=True)
    core.start()
    try:
        handover = OutputHandover(loop, deliver, first_ms=0, every_ms=1)
        pauses = random.Random(7)
        for chunk in chunks:
            handover.give(chunk)
            if pauses.random() < 0.01:  # now and then the core catches up: it goes from flowing to idle
                caught_up = threading.Event()
                loop.call_soon_threadsafe(caught_up.set)
                assert caught_up.wait(30)
        assert complete.wait(30)
    finally:
        loop.call_soon_threadsafe(loop.stop)
        core.join(30)
        loop.close()
    assert b"".join(delivered) == expected.encode()
