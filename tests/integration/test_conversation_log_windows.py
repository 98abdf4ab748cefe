"""Conversation logs under Windows' sharing rule (`tests/windows_sharing.py`): IdeA never renames, replaces or
deletes a segment while one of its own handles holds it open — the rotation's lock is a lock file beside the
segments, and reads and rotations of a conversation take turns (`segment_gate.py`). Runs on Linux; the
same rule is what a real Windows enforces (issue 15)."""

from __future__ import annotations

import asyncio
import os
import threading
from pathlib import Path

import pytest

from idea.domain.knowledge.conversation_log import ConversationTurn, TurnRole
from idea.domain.knowledge.conversation_pages import PageCursor
from idea.domain.knowledge.log_rotation import Archive, RotationThresholds
from idea.domain.orchestration.tickets import AgentSource, HumanSource
from idea.infrastructure.stores import conversation_archive
from idea.infrastructure.stores.conversation_archive import FolderReader, ReadCache
from idea.infrastructure.stores.conversation_log import JsonlConversationLog, append_line
from idea.infrastructure.stores.conversation_rotation import rotate_folder
from idea.infrastructure.stores.segment_gate import SegmentGate
from tests.windows_sharing import ERROR_SHARING_VIOLATION, windows_sharing

CONVERSATION = "6ffc1f69-77a5-0da1-1965-ef26d1df72f5"
AGENT = "c932c770-cf36-4fb2-a966-71bb1644e4b4"
WAIT_S = 30  # a safety net around waits for a worker thread; each ends as soon as the thread gets there


def make_turn(index: int) -> ConversationTurn:
    role = TurnRole.PROMPT if index % 2 else TurnRole.RESPONSE
    source = HumanSource() if role is TurnRole.PROMPT else AgentSource(AGENT)
    return ConversationTurn(f"00000000-0000-4000-8000-{index:012d}", CONVERSATION, index, source, role, f"turn {index}")


def folder_of(root: Path) -> Path:
    return root / ".ideai" / "conversations" / CONVERSATION


def all_ids(folder: Path) -> list[str]:
    with FolderReader(folder, ReadCache()) as reader:
        return [turn.id for turn in reader.all_turns()]


def test_the_double_refuses_what_windows_refuses(tmp_path: Path) -> None:
    target, new = tmp_path / "log.jsonl", tmp_path / "new"
    target.write_text("old")
    new.write_text("new")
    with windows_sharing() as sharing:
        with open(target, "rb"):
            with pytest.raises(PermissionError) as refused:
                os.replace(new, target)
            with pytest.raises(PermissionError):
                target.unlink()
        os.replace(new, target)  # once closed, allowed
    assert refused.value.winerror == ERROR_SHARING_VIOLATION  # type: ignore[attr-defined]
    assert target.read_text() == "new" and len(sharing.refused) == 2


def test_appends_and_every_step_of_a_rotation_work_under_windows_sharing(tmp_path: Path) -> None:
    folder = folder_of(tmp_path)
    thresholds = RotationThresholds(after_turns=4, max_archives=2)
    written: list[ConversationTurn] = []
    with windows_sharing() as sharing:
        for round_ in range(4):
            for index in range(len(written), len(written) + 6):
                written.append(make_turn(index))
                append_line(folder / "log.jsonl", written[-1].to_line().encode())
            with open(folder / "log.jsonl", "ab") as handle:
                handle.write(b'{"id":"00000000-0000-4000-8000-99')  # a torn line, set aside by the rotation
            report = rotate_folder(folder, written[-2].id, thresholds)
            assert report.decision == Archive(keep_from=4 if round_ == 0 else 6)  # two turns stay active
            assert report.set_aside is not None and len(report.deleted_archives) == (1 if round_ > 1 else 0)

    assert sharing.refused == [] and sharing.renames >= 12  # archives, set-asides and active rewrites
    assert sorted(n for n in os.listdir(folder) if n.endswith(".jsonl")) == ["log.3.jsonl", "log.4.jsonl", "log.jsonl"]
    with open(folder / "log.jsonl", "rb") as handle:
        assert handle.read() == b"".join(turn.to_line().encode() for turn in written[-2:])


async def test_a_rotation_waits_for_the_page_being_read_and_later_reads_wait_for_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = JsonlConversationLog(str(tmp_path))
    written = [make_turn(index) for index in range(12)]
    for turn in written:
        await log.append(turn)
    opened, release = threading.Event(), threading.Event()
    page = conversation_archive.FolderReader.page
    held: list[bool] = []

    def slow_page(reader: FolderReader, cursor: PageCursor, limit: int | None):  # type: ignore[no-untyped-def]
        served = page(reader, cursor, limit)  # its segments are open now, until the reader is left
        if not held:
            held.append(True)
            opened.set()
            assert release.wait(WAIT_S)
        return served

    monkeypatch.setattr(conversation_archive.FolderReader, "page", slow_page)
    gate = log.gate(CONVERSATION)
    with windows_sharing() as sharing:
        reading = asyncio.ensure_future(log.page(CONVERSATION, PageCursor(), 50))
        assert await asyncio.to_thread(opened.wait, WAIT_S)
        rotation = asyncio.ensure_future(log.rotate(CONVERSATION, written[8].id, RotationThresholds(after_turns=4)))
        await until(lambda: gate.rotations_waiting == 1)
        later = asyncio.ensure_future(log.page(CONVERSATION, PageCursor(), 50))
        await until(lambda: later in asyncio.all_tasks() and gate.readers == 1)
        assert not rotation.done() and not later.done()  # the rotation waits for the open page...

        release.set()
        first, report, second = await asyncio.gather(reading, rotation, later)

    assert [t.id for t in first.turns] == [t.id for t in written] == [t.id for t in second.turns]
    assert report.archive == "log.1.jsonl"  # it replaced the active segment the first page had open
    assert sharing.refused == [] and gate.readers == 0


async def test_a_rotation_under_windows_sharing_through_the_log(tmp_path: Path) -> None:
    log = JsonlConversationLog(str(tmp_path))
    written = [make_turn(index) for index in range(10)]
    with windows_sharing() as sharing:
        for turn in written:
            await log.append(turn)
        pages = await asyncio.gather(*(log.page(CONVERSATION, PageCursor(), 3) for _ in range(5)))
        report = await log.rotate(CONVERSATION, written[8].id, RotationThresholds(after_turns=4))
        after = await log.page(CONVERSATION, PageCursor(), 50)

    assert report.decision == Archive(keep_from=8) and sharing.refused == []
    assert all([t.id for t in page.turns] == [t.id for t in written[-3:]] for page in pages)
    assert [t.id for t in after.turns] == [t.id for t in written]


async def test_the_gate_is_held_until_the_thread_ends_even_when_its_waiter_is_cancelled() -> None:
    gate = SegmentGate()
    started, finish = threading.Event(), threading.Event()

    def read() -> str:
        started.set()
        assert finish.wait(WAIT_S)
        return "page"

    reading = asyncio.ensure_future(gate.shared(read))
    assert await asyncio.to_thread(started.wait, WAIT_S)
    reading.cancel()  # the viewer went away; the thread still has the files open
    with pytest.raises(asyncio.CancelledError):
        await reading
    rotation = asyncio.ensure_future(gate.alone(lambda: "rotated"))
    await until(lambda: gate.rotations_waiting == 1)
    assert gate.readers == 1 and not rotation.done()

    finish.set()
    assert await rotation == "rotated" and gate.readers == 0


async def test_a_rotation_that_stops_waiting_lets_the_reads_behind_it_go() -> None:
    gate = SegmentGate()
    started, finish = threading.Event(), threading.Event()

    def read() -> int:
        started.set()
        assert finish.wait(WAIT_S)
        return 1

    first = asyncio.ensure_future(gate.shared(read))
    assert await asyncio.to_thread(started.wait, WAIT_S)
    rotation = asyncio.ensure_future(gate.alone(lambda: None))
    await until(lambda: gate.rotations_waiting == 1)
    second = asyncio.ensure_future(gate.shared(lambda: 2))
    await until(lambda: not second.done() and gate.rotations_waiting == 1)
    rotation.cancel()  # the project closes

    assert await second == 2  # no longer held back, while the first read still runs
    finish.set()
    assert await first == 1 and gate.rotations_waiting == 0 and gate.readers == 0


async def until(condition, rounds: int = 1000) -> None:  # type: ignore[no-untyped-def]
    """Let the loop run until `condition` holds (no time passes, no thread is waited for; fails when it never
    does)."""
    for _ in range(rounds):
        if condition():
            return
        await asyncio.sleep(0)
    raise AssertionError("the condition never held")
