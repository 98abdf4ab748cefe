"""`WriteBehind` (the handoffs' and the live-state board's files) and the board written behind its rows
(spec 03 §10, 04 §6), on virtual time."""

from __future__ import annotations

from idea.application.orchestrator.board import SAVE_DELAY_MS
from idea.application.write_behind import WriteBehind
from idea.domain.orchestration.commands import SetWorkState, Source
from idea.domain.orchestration.events import LiveStateChanged
from idea.domain.orchestration.live_state import LiveEntry, LiveState, WorkStatus
from tests.fakes_orchestration import MemoryLiveStateStore, VirtualTime
from tests.world import claude_profile, make_harness


class Writes:
    def __init__(self) -> None:
        self.at: list[int] = []
        self.time = VirtualTime()

    def __call__(self) -> None:
        self.at.append(self.time.monotonic_ms())


async def test_a_burst_of_changes_is_one_write_at_most_the_delay_after_the_first() -> None:
    writes = Writes()
    behind = WriteBehind(writes, writes.time, delay_ms=200)

    for _ in range(5):
        behind.changed()
        await writes.time.advance(30)
    assert writes.at == [] and behind.pending
    await writes.time.advance(49)
    assert writes.at == []
    await writes.time.advance(1)

    assert writes.at == [200] and not behind.pending  # one write for the burst, 200 ms after its first change
    await writes.time.advance(1000)
    assert writes.at == [200]  # nothing changed since: nothing written
    behind.changed()
    await writes.time.advance(200)
    assert writes.at == [200, 1400]


async def test_a_flush_writes_now_and_disarms_the_pending_write() -> None:
    writes = Writes()
    behind = WriteBehind(writes, writes.time, delay_ms=200)
    behind.flush()
    assert writes.at == []  # nothing pending: nothing written

    behind.changed()
    await writes.time.advance(10)
    behind.flush()
    await writes.time.advance(1000)

    assert writes.at == [10]


async def test_after_close_every_change_is_written_at_once() -> None:
    writes = Writes()
    behind = WriteBehind(writes, writes.time, delay_ms=200)
    behind.changed()
    await writes.time.advance(50)

    behind.close()
    behind.changed()
    behind.changed()

    assert writes.at == [50, 50, 50]
    await writes.time.advance(1000)
    assert writes.at == [50, 50, 50]


def test_without_an_event_loop_or_a_delay_the_write_is_immediate() -> None:
    writes = Writes()
    WriteBehind(writes, writes.time, delay_ms=200).changed()  # no running loop here
    WriteBehind(writes, writes.time, delay_ms=0).changed()
    assert len(writes.at) == 2


async def test_the_board_publishes_at_once_and_its_file_follows_within_the_delay() -> None:
    store = MemoryLiveStateStore()
    h = make_harness([("Main", claude_profile()), ("QA", claude_profile())], store=store)
    for intent in ("reading", "testing", "fixing"):
        await h.service.dispatch(h.agent("QA"), SetWorkState(WorkStatus.WORKING, intent=intent), Source.MCP)

    assert h.row("QA").intent == "fixing"  # the board is the truth at once...
    assert [e.agent_id for e in h.events.of_type(LiveStateChanged)] == [h.id("QA")] * 3  # ...and says so
    assert store.saves == 0 and store.state == LiveState()
    await h.time.advance(SAVE_DELAY_MS)

    assert store.saves == 1 and store.state.row(h.id("QA")) == h.row("QA")  # one write for the burst
    await h.close()


async def test_closing_the_project_writes_the_rows_at_once() -> None:
    stale = LiveEntry("a0000000-0000-4000-8000-000000000002", WorkStatus.WORKING, "old", None, None, None, 1)
    store = MemoryLiveStateStore(LiveState((stale,)))
    h = make_harness([("Main", claude_profile()), ("QA", claude_profile())], store=store)
    h.service.reconcile_at_open()  # QA has no session: its row is marked stale (in memory first)
    assert store.saves == 0

    await h.service.close()

    assert store.saves == 1 and store.state == LiveState((h.row("QA"),))
    assert store.state.entries[0].progress == "(stale — session not running at restart)"
