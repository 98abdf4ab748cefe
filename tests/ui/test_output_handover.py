"""OutputHandover: terminal output reaches the core loop whole and in order, at once after a quiet moment, in
timed batches while it keeps coming, and with no Python slot run for a chunk while it flows. A scripted loop
and a scripted GUI thread run the callbacks, so when each hand-over happens is exact; one case emits chunks
from another thread against a real loop."""

from __future__ import annotations

import asyncio
import queue
import random
import threading
import weakref
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from idea.ui.terminal.output_handover import HANDOVER_EVERY_MS, HANDOVER_FIRST_MS, OutputHandover, output_tail


class FakeSignal:
    """A Qt signal as the hand-over uses it: slots run in the order they were connected; one disconnected
    while the signal is being emitted is not called for that emission if it has not been yet."""

    def __init__(self) -> None:
        self.slots: list[Callable[[str], Any]] = []
        self.python_calls = 0  # slots that are Python functions (a list's `append` is not)

    def connect(self, slot: Callable[[str], Any]) -> None:
        self.slots.append(slot)

    def disconnect(self, slot: Callable[[str], Any]) -> None:
        self.slots.remove(slot)

    def emit(self, chunk: str) -> None:
        for slot in list(self.slots):
            if slot in self.slots:
                if hasattr(slot, "__func__"):
                    self.python_calls += 1
                slot(chunk)


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


class Rig:
    def __init__(self) -> None:
        self.loop = ScriptedLoop()
        self.signal = FakeSignal()
        self.gui: list[Callable[[], None]] = []  # what the hand-over posted to the GUI thread
        self.delivered: list[bytes] = []
        self.flows: list[bool] = []  # what the GUI thread was told: output started (True), stopped (False)
        self.handover = OutputHandover(self.loop, self._deliver)  # type: ignore[arg-type]
        self.handover.attach(self.signal, self.gui.append, self.flows.append)

    def _deliver(self, chunks: list[str]) -> None:
        self.delivered.append("".join(chunks).encode("latin-1"))

    def run_gui(self) -> None:
        calls, self.gui[:] = list(self.gui), []
        for call in calls:
            call()


@pytest.fixture
def rig() -> Iterator[Rig]:
    yield Rig()


def test_output_after_a_quiet_moment_goes_at_once(rig: Rig) -> None:
    for chunk in ("$ ", "ls\r\n", "a  b\r\n$ "):
        rig.signal.emit(chunk)
        assert len(rig.loop.soon) == 1
        rig.loop.run_soon()
        assert rig.delivered[-1] == chunk.encode()
        (window,) = rig.loop.pending_timers()
        assert window.delay == HANDOVER_FIRST_MS / 1000  # a short window after a lone chunk...
        rig.loop.fire_timer()  # ...that closes on nothing: the next chunk goes at once too
        assert rig.loop.pending_timers() == []
        rig.run_gui()  # the waker is connected again
    assert rig.delivered == [b"$ ", b"ls\r\n", b"a  b\r\n$ "]


def test_the_widgets_latin_1_text_is_handed_over_as_the_ptys_bytes(rig: Rig) -> None:
    utf8 = "中 é\x1b[0m".encode()
    rig.signal.emit(utf8[:2].decode("latin-1"))  # the widget cuts where the PTY read ended
    rig.loop.run_soon()
    rig.signal.emit(utf8[2:5].decode("latin-1"))
    rig.signal.emit(utf8[5:].decode("latin-1"))
    rig.loop.fire_timer()
    assert b"".join(rig.delivered) == utf8 and len(rig.delivered) == 2


def test_output_that_keeps_coming_runs_no_python_per_chunk_and_goes_in_windows_growing_to_the_cadence(
    rig: Rig,
) -> None:
    for index in range(3):  # faster than the core takes them
        rig.signal.emit(f"chunk{index} ")
    assert len(rig.loop.soon) == 1  # one wake-up for all three...
    assert rig.signal.python_calls == 1  # ...by the waker, run for the first chunk only
    rig.loop.run_soon()
    assert rig.delivered == [b"chunk0 chunk1 chunk2 "]
    windows = []
    for batch in range(1, 8):
        for index in range(batch * 100, batch * 100 + 50):
            rig.signal.emit(f"chunk{index} ")
        assert rig.loop.soon == [] and rig.gui == []  # while output keeps coming, the GUI thread only appends
        windows.append(rig.loop.pending_timers()[0].delay)
        rig.loop.fire_timer()
        assert rig.delivered[batch] == b"".join(b"chunk%d " % index for index in range(batch * 100, batch * 100 + 50))
    assert rig.signal.python_calls == 1
    first, every = HANDOVER_FIRST_MS / 1000, HANDOVER_EVERY_MS / 1000
    assert windows[0] == first and windows[-1] == every
    assert all(later == min(earlier * 2, every) for earlier, later in zip(windows, windows[1:]))
    rig.loop.fire_timer()  # nothing came in the last window: the flow is over
    assert len(rig.delivered) == 8 and rig.loop.pending_timers() == []
    rig.run_gui()
    rig.signal.emit("$ ")  # the next output goes at once, and opens a short window again
    assert len(rig.loop.soon) == 1 and rig.signal.python_calls == 2
    rig.loop.run_soon()
    assert rig.delivered[8] == b"$ " and rig.loop.pending_timers()[0].delay == first


def test_catching_up_hands_over_what_waits_for_its_window_at_once(rig: Rig) -> None:
    rig.signal.emit("a")
    rig.loop.run_soon()
    rig.signal.emit("b")
    rig.signal.emit("\x1b[?2004h")  # the end of a flood, its window still open
    rig.handover.catch_up()
    assert rig.delivered == [b"a", b"b\x1b[?2004h"]
    (window,) = rig.loop.pending_timers()  # one window stays open: output may still be coming
    rig.handover.catch_up()  # nothing waits: nothing happens
    assert len(rig.delivered) == 2 and rig.loop.pending_timers() == [window]
    rig.loop.fire_timer()  # the window closes on nothing: the flow is over
    rig.run_gui()
    rig.signal.emit("$ ")
    rig.loop.run_soon()
    assert rig.delivered[-1] == b"$ "


def test_output_between_the_end_of_a_flow_and_the_waker_connected_again_goes_at_once(rig: Rig) -> None:
    rig.signal.emit("a")
    rig.loop.run_soon()
    rig.loop.fire_timer()  # the flow ends: the waker is to be connected again on the GUI thread...
    rig.signal.emit("b")  # ...but output comes first: only appended
    assert rig.loop.soon == []
    rig.run_gui()  # connecting it finds the chunk waiting and wakes the core
    assert len(rig.loop.soon) == 1
    rig.loop.run_soon()
    assert rig.delivered == [b"a", b"b"]


def test_the_gui_thread_is_told_once_when_output_starts_and_once_when_it_stops(rig: Rig) -> None:
    assert rig.flows == []
    rig.signal.emit("first ")
    assert rig.flows == [True]
    rig.loop.run_soon()
    for batch in range(3):  # a flood, taken in windows
        for index in range(50):
            rig.signal.emit(f"chunk{batch}.{index} ")
        rig.loop.fire_timer()
    assert rig.flows == [True]
    rig.loop.fire_timer()  # a window closes on nothing: the flow is over...
    assert rig.flows == [True]
    rig.run_gui()  # ...as the GUI thread learns when the waker is connected again
    assert rig.flows == [True, False]
    rig.signal.emit("$ ")
    assert rig.flows == [True, False, True]


def test_flush_hands_over_what_waits_and_keeps_one_window(rig: Rig) -> None:
    rig.signal.emit("a")
    rig.signal.emit("b")
    rig.loop.run_soon()
    rig.signal.emit("c")  # waits for the window to close...
    rig.handover.flush()  # ...unless the program's exit is about to be told: it goes first
    rig.loop.run_soon()
    assert rig.delivered == [b"ab", b"c"]
    assert len(rig.loop.pending_timers()) == 1  # the flush replaced the window, never added one
    rig.loop.fire_timer()
    assert rig.delivered == [b"ab", b"c"] and rig.loop.pending_timers() == []
    rig.handover.flush()  # nothing waits: nothing is delivered
    rig.loop.run_soon()
    rig.run_gui()
    rig.run_gui()
    assert rig.delivered == [b"ab", b"c"] and rig.loop.pending_timers() == []
    assert rig.signal.slots.count(rig.signal.slots[-1]) == 1 and len(rig.signal.slots) == 2  # one waker


def test_a_detached_handover_connects_nothing_more(rig: Rig) -> None:
    rig.signal.emit("last words")
    rig.loop.run_soon()
    rig.handover.detach()  # the widget goes
    rig.loop.fire_timer()
    rig.run_gui()
    assert rig.delivered == [b"last words"] and len(rig.signal.slots) == 1  # the append only


def test_detaching_lets_go_of_the_widget_and_disconnects_the_waker_on_the_gui_thread() -> None:
    # What the hand-over still held of a widget could otherwise be finalised wherever the hand-over ends,
    # which may be the core loop's thread; and the waker's connection refers to the hand-over.
    class View:
        def __init__(self) -> None:
            self.received = FakeSignal()
            self.flows: list[bool] = []

        def output_flowing(self, flowing: bool) -> None:
            self.flows.append(flowing)

    loop, view = ScriptedLoop(), View()
    handover = OutputHandover(loop, lambda _chunks: None)  # type: ignore[arg-type]
    handover.attach(view.received, lambda _fn: None, view.output_flowing)  # quiet: the waker is connected
    signal = view.received
    handover.detach()
    assert [hasattr(slot, "__func__") for slot in signal.slots] == [False]  # the list's append only
    gone = weakref.ref(view)
    del view
    assert gone() is None


def test_a_signal_whose_widget_was_destroyed_is_let_go() -> None:
    class DeletedSignal(FakeSignal):
        def connect(self, slot: Callable[[str], Any]) -> None:
            if self.slots:
                raise RuntimeError("Signal source has been deleted")
            super().connect(slot)

    loop, gui = ScriptedLoop(), []
    handover = OutputHandover(loop, lambda _chunks: None)  # type: ignore[arg-type]
    handover.attach(DeletedSignal(), gui.append)  # connecting the waker fails: nothing raises
    loop.run_soon()


def test_a_stopped_loop_is_not_an_error() -> None:
    loop = asyncio.new_event_loop()
    loop.close()
    handover = OutputHandover(loop, lambda _chunks: None)
    signal = FakeSignal()
    handover.attach(signal, lambda _fn: None)
    signal.emit("output after the core stopped")
    handover.flush()


def test_the_tail_of_a_batch_holds_more_than_asked_and_whole_chunks() -> None:
    chunks = ["a" * 10, "b" * 10, "c" * 10, "é"]
    assert output_tail(chunks, 100) == "".join(chunks).encode("latin-1")  # small: all of it
    assert output_tail(chunks, 11) == ("b" * 10 + "c" * 10 + "é").encode("latin-1")  # 11 are not more than 11
    assert output_tail(chunks, 10) == ("c" * 10 + "é").encode("latin-1")
    assert output_tail(chunks, 0) == "é".encode("latin-1")
    assert output_tail([], 10) == b""


def test_chunks_emitted_from_another_thread_all_arrive_in_order() -> None:
    """The GUI thread appends (and connects the waker again when told) while the core takes: nothing is lost,
    duplicated or reordered."""
    chunks = [f"<{index}:" + "x" * random.Random(index).randrange(1, 300) + ">" for index in range(20_000)]
    expected = "".join(chunks)
    delivered: list[str] = []
    complete = threading.Event()
    loop = asyncio.new_event_loop()
    posted: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()

    def deliver(batch: list[str]) -> None:
        delivered.extend(batch)
        if sum(map(len, delivered)) >= len(expected):
            complete.set()

    def run_posted() -> None:
        while not posted.empty():
            posted.get()()

    core = threading.Thread(target=loop.run_forever, daemon=True)
    core.start()
    try:
        handover = OutputHandover(loop, deliver, first_ms=0, every_ms=1)
        signal = FakeSignal()
        handover.attach(signal, posted.put)
        pauses = random.Random(7)
        for chunk in chunks:
            run_posted()  # this thread plays the GUI thread: what was posted to it runs between chunks
            signal.emit(chunk)
            if pauses.random() < 0.01:  # now and then the core catches up: it goes from flowing to idle
                caught_up = threading.Event()
                loop.call_soon_threadsafe(caught_up.set)
                assert caught_up.wait(30)
        while not complete.wait(0.01):
            run_posted()
    finally:
        loop.call_soon_threadsafe(loop.stop)
        core.join(30)
        loop.close()
    assert "".join(delivered) == expected
