"""The conversation log on a real file system: appends that survive torn lines, rotation into archives with
INV-LS6 under crash injection, and pages across archives (spec 04 §4, §7, §8; KN-2, KN-5, KN-6, KN-7)."""

from __future__ import annotations

import io
import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from idea.domain.knowledge.conversation_log import ConversationTurn, TurnRole
from idea.domain.knowledge.conversation_pages import Direction, PageCursor, page_of
from idea.domain.knowledge.log_rotation import Archive, RotationThresholds, Skip, archive_name
from idea.domain.orchestration.tickets import AgentSource, HumanSource
from idea.infrastructure.stores.conversation_archive import FolderReader, ReadCache
from idea.infrastructure.stores.conversation_log import JsonlConversationLog, append_line
from idea.infrastructure.stores.conversation_rotation import rotate_folder
from idea.infrastructure.stores.conversation_segments import lines_backward, lines_forward, turn_of
from tests.windows_sharing import windows_sharing

CONVERSATION = "6ffc1f69-77a5-0da1-1965-ef26d1df72f5"
AGENT = "c932c770-cf36-4fb2-a966-71bb1644e4b4"
CRASH_STEPS = (
    "repair-written", "repair-renamed", "archive-written", "archive-renamed", "set-aside-written",
    "set-aside-renamed", "active-written", "active-renamed", "backstop-deleted",
)


class Crash(Exception):
    """The process died here (a BaseException would be closer, but pytest must see it as a failure)."""


@pytest.fixture(autouse=True)
def no_fsync(monkeypatch: pytest.MonkeyPatch) -> None:
    """fsync changes nothing a process can observe; without it the property tests run in seconds."""
    monkeypatch.setattr(os, "fsync", lambda fd: None)


def make_turn(index: int, text: str | None = None) -> ConversationTurn:
    role = TurnRole.PROMPT if index % 2 else TurnRole.RESPONSE
    source = HumanSource() if role is TurnRole.PROMPT else AgentSource(AGENT)
    return ConversationTurn(
        f"00000000-0000-4000-8000-{index:012d}", CONVERSATION, 1_700_000_000_000 + index, source, role,
        text if text is not None else f"turn {index}\nwith a second line",
    )


def folder_of(root: Path) -> Path:
    return root / ".ideai" / "conversations" / CONVERSATION


def write_turns(root: Path, start: int, count: int) -> list[ConversationTurn]:
    folder = folder_of(root)
    made = [make_turn(index) for index in range(start, start + count)]
    for turn in made:
        append_line(folder / "log.jsonl", turn.to_line().encode())
    return made


def active_ids(folder: Path) -> list[str]:
    with open(folder / "log.jsonl", "rb") as handle:
        return [t.id for line in lines_forward(handle) if (t := turn_of(line)) is not None]


def chained_pages(folder: Path, direction: Direction, limit: int, cache: ReadCache) -> Iterator[list[str]]:
    anchor = None
    while True:
        with FolderReader(folder, cache) as reader:
            page = reader.page(PageCursor(anchor, direction), limit)
        yield [turn.id for turn in page.turns]
        if not page.has_more or not page.turns:
            return
        anchor = page.turns[0].id if direction is Direction.BACKWARD else page.turns[-1].id


def read_everything(folder: Path, limit: int, cache: ReadCache) -> tuple[list[str], list[str]]:
    backward: list[str] = []
    for ids in chained_pages(folder, Direction.BACKWARD, limit, cache):
        backward = ids + backward
    forward: list[str] = []
    for ids in chained_pages(folder, Direction.FORWARD, limit, cache):
        forward += ids
    return backward, forward


operation = st.one_of(
    st.tuples(st.just("append"), st.integers(1, 9)),
    st.tuples(st.just("torn"), st.just(0)),
    st.tuples(st.just("cursor"), st.integers(0, 10_000)),
    st.tuples(st.just("rotate"), st.sampled_from((None, *CRASH_STEPS))),
)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(operation, max_size=24), st.integers(1, 7))
def test_inv_ls6_a_crash_at_any_step_never_loses_or_duplicates_a_turn(
    operations: list[tuple[str, object]], limit: int
) -> None:
    """Under Windows' sharing rule too: no step renames or deletes a file IdeA holds open."""
    thresholds = RotationThresholds(after_turns=4, after_bytes=10**9, max_archives=10**6)
    with tempfile.TemporaryDirectory() as tmp, windows_sharing() as sharing:
        root = Path(tmp)
        folder = folder_of(root)
        appended: list[ConversationTurn] = []
        up_to_index: int | None = None
        cache = ReadCache()
        for kind, argument in operations:
            if kind == "append":
                appended += write_turns(root, len(appended), int(argument))  # type: ignore[arg-type]
            elif kind == "torn" and appended:
                with open(folder / "log.jsonl", "ab") as handle:
                    handle.write(b'{"id":"00000000-0000-4000-8000-9999999')  # a crash in the middle of an append
            elif kind == "cursor" and appended:
                floor = up_to_index or 0
                up_to_index = floor + int(argument) % (len(appended) - floor)  # type: ignore[call-overload]
            elif kind == "rotate" and appended:
                up_to = appended[up_to_index].id if up_to_index is not None else None

                def fault(step: str, crash_at: object = argument) -> None:
                    if step == crash_at:
                        raise Crash(step)

                try:
                    rotate_folder(folder, up_to, thresholds, fault)
                except Crash:
                    pass
            expected = [turn.id for turn in appended]
            with FolderReader(folder, ReadCache()) as reader:
                assert [turn.id for turn in reader.all_turns()] == expected
            if up_to_index is not None:
                assert active_ids(folder)[-(len(appended) - up_to_index) :] == expected[up_to_index:]  # INV-LS6
        expected = [turn.id for turn in appended]
        assert read_everything(folder, limit, cache) == (expected, expected)  # served positions remembered
        assert read_everything(folder, limit, ReadCache()) == (expected, expected)  # found by searching
        assert sharing.refused == []


def test_kn2_a_torn_last_line_is_skipped_then_set_aside_by_the_next_rotation(tmp_path: Path) -> None:
    folder = folder_of(tmp_path)
    written = write_turns(tmp_path, 1, 3)
    with open(folder / "log.jsonl", "ab") as handle:
        handle.write(b'{"id":"00000000-0000-4000-8000-000000000004","conversation":"6ffc')
    written += write_turns(tmp_path, 5, 1)  # an append after the crash starts on its own line

    with FolderReader(folder, ReadCache()) as reader:
        assert reader.all_turns() == written

    report = rotate_folder(folder, written[-1].id, RotationThresholds())

    assert isinstance(report.decision, Skip) and report.unreadable_lines == [4]
    assert report.set_aside is not None and Path(report.set_aside).read_bytes().startswith(b'{"id":"0000')
    assert active_ids(folder) == [turn.id for turn in written]
    assert b"6ffc\n" not in (folder / "log.jsonl").read_bytes()


def test_kn5_rotation_at_500_turns_keeps_the_cursor_turn_and_after_active(tmp_path: Path) -> None:
    folder = folder_of(tmp_path)
    written = write_turns(tmp_path, 0, 500)

    assert isinstance(rotate_folder(folder, None, RotationThresholds()).decision, Skip)  # no handoff: skip
    report = rotate_folder(folder, written[480].id, RotationThresholds())

    assert report.decision == Archive(keep_from=480) and report.archive == "log.1.jsonl"
    assert active_ids(folder) == [turn.id for turn in written[480:]]
    assert (folder / "log.1.jsonl").read_bytes() == b"".join(turn.to_line().encode() for turn in written[:480])
    assert isinstance(rotate_folder(folder, written[480].id, RotationThresholds()).decision, Skip)  # idempotent


def test_kn5_rotation_at_one_mebibyte(tmp_path: Path) -> None:
    folder = folder_of(tmp_path)
    big = [make_turn(index, "b" * 400_000) for index in range(3)]
    for turn in big:
        append_line(folder / "log.jsonl", turn.to_line().encode())

    report = rotate_folder(folder, big[2].id, RotationThresholds())

    assert report.decision == Archive(keep_from=2)
    assert active_ids(folder) == [big[2].id]


def test_kn5_the_21st_archive_drops_the_oldest(tmp_path: Path) -> None:
    folder = folder_of(tmp_path)
    thresholds = RotationThresholds(after_turns=2)
    for round_ in range(21):
        turns = write_turns(tmp_path, round_ * 2, 2)
        rotate_folder(folder, turns[1].id, thresholds)
    archives = sorted(name for name in os.listdir(folder) if name.startswith("log.") and name.endswith(".jsonl"))
    archives.remove("log.jsonl")

    assert len(archives) == 20
    assert "log.1.jsonl" not in archives and archive_name(21) in archives


def test_kn6_a_crash_between_the_archive_and_the_active_rewrite_reads_each_turn_once(tmp_path: Path) -> None:
    folder = folder_of(tmp_path)
    written = write_turns(tmp_path, 0, 12)

    def crash(step: str) -> None:
        if step == "archive-renamed":
            raise Crash(step)

    with pytest.raises(Crash):
        rotate_folder(folder, written[8].id, RotationThresholds(after_turns=10), crash)
    assert len(active_ids(folder)) == 12 and (folder / "log.1.jsonl").exists()  # the turns are in both files

    for limit in (1, 3, 50):
        expected = [turn.id for turn in written]
        assert read_everything(folder, limit, ReadCache()) == (expected, expected)

    report = rotate_folder(folder, written[8].id, RotationThresholds(after_turns=10))
    assert report.finished_interrupted and active_ids(folder) == [turn.id for turn in written[8:]]
    assert sorted(os.listdir(folder)) == ["log.1.jsonl", "log.jsonl", "log.lock"]  # no leftover temporary file


async def test_kn7_pages_through_the_log_adapter(tmp_path: Path) -> None:
    log = JsonlConversationLog(str(tmp_path))
    turns = [make_turn(index) for index in range(260)]
    turns[100] = make_turn(100, "x" * 40_000 + "\n\n# heading\n" + "é" * 100)
    for turn in turns:
        await log.append(turn)
    await log.rotate(CONVERSATION, turns[200].id, RotationThresholds(after_turns=150))

    default = await log.page(CONVERSATION, PageCursor(), None)
    clamped = await log.page(CONVERSATION, PageCursor(direction=Direction.FORWARD), 10_000)
    invalid = await log.page(CONVERSATION, PageCursor("00000000-0000-4000-8000-999999999999"), 5)
    around = await log.page(CONVERSATION, PageCursor(turns[101].id), 1)

    assert default == page_of(turns, PageCursor(), 50)
    assert len(clamped.turns) == 200 and clamped.has_more
    assert invalid == page_of(turns, PageCursor(), 5)
    assert around.turns[0].text == turns[100].text  # 40 000 characters and more, intact
    assert await log.last(CONVERSATION, 3) == turns[-3:]
    assert await log.first(CONVERSATION, 2) == turns[:2]
    empty = await log.page("0f3c2a9e-6b1d-4c1e-9d0a-2f6f1f7b8c11", PageCursor(), 5)
    assert empty.turns == () and not empty.has_more  # no log: an empty page, never an error


async def test_read_since_gives_the_turns_after_the_cursor(tmp_path: Path) -> None:
    log = JsonlConversationLog(str(tmp_path))
    turns = [make_turn(index) for index in range(6)]
    for turn in turns:
        await log.append(turn)

    assert await log.read_since(CONVERSATION, turns[3].id) == turns[4:]
    assert await log.read_since(CONVERSATION, turns[5].id) == []
    assert await log.read_since(CONVERSATION, "00000000-0000-4000-8000-999999999999") is None


def test_an_append_waiting_for_a_rotation_lands_in_the_new_active_segment(tmp_path: Path) -> None:
    import threading

    from idea.infrastructure.file_lock import locked_file

    folder = folder_of(tmp_path)
    written = write_turns(tmp_path, 0, 6)
    active = folder / "log.jsonl"
    late = make_turn(6)
    appender = threading.Thread(target=append_line, args=(active, late.to_line().encode()))
    with locked_file(folder / "log.lock"):  # a rotation holds the conversation's lock...
        appender.start()
        replacement = folder / ".replacement"
        replacement.write_bytes(b"".join(turn.to_line().encode() for turn in written[3:]))
        os.replace(replacement, active)  # ...and replaces the active segment, which nobody holds open
        assert active_ids(folder) == [turn.id for turn in written[3:]]  # the append waits
    appender.join(5)

    assert active_ids(folder) == [turn.id for turn in written[3:]] + [late.id]


@given(st.lists(st.binary(max_size=30).map(lambda b: b.replace(b"\n", b"")), max_size=12), st.booleans(), st.integers(1, 17))
def test_lines_read_forwards_and_backwards_agree_from_any_boundary(parts: list[bytes], final: bool, block: int) -> None:
    data = b"\n".join(parts) + (b"\n" if final else b"")
    handle = io.BytesIO(data)
    forward = list(lines_forward(handle, 0, block))
    assert [line.raw for line in forward] == [part for part in data.split(b"\n") if part]
    assert list(lines_backward(handle, None, block)) == forward[::-1]
    for index, line in enumerate(forward):
        assert list(lines_backward(handle, line.start, block)) == forward[:index][::-1]
        assert list(lines_forward(handle, line.end, block)) == forward[index + 1 :]


def test_segment_lines_keep_unknown_keys_byte_for_byte_through_rotation(tmp_path: Path) -> None:
    folder = folder_of(tmp_path)
    folder.mkdir(parents=True)
    records = [json.loads(make_turn(index).to_line()) | {"futureKey": [index]} for index in range(5)]
    raw = b"".join(json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode() + b"\n" for record in records)
    (folder / "log.jsonl").write_bytes(raw)

    rotate_folder(folder, records[3]["id"], RotationThresholds(after_turns=2))

    assert (folder / "log.1.jsonl").read_bytes() + (folder / "log.jsonl").read_bytes() == raw


async def test_a_log_left_empty_by_a_crash_before_its_first_line_reads_empty_and_takes_the_next_turn(
    tmp_path: Path,
) -> None:
    # Killed between creating the active segment and writing its first line: the file exists, empty.
    folder = folder_of(tmp_path)
    folder.mkdir(parents=True)
    (folder / "log.jsonl").write_bytes(b"")
    log = JsonlConversationLog(str(tmp_path))

    assert (await log.page(CONVERSATION, PageCursor(), 5)).turns == ()
    assert await log.last(CONVERSATION, 3) == [] and await log.first(CONVERSATION, 3) == []
    report = await log.rotate(CONVERSATION, None, RotationThresholds())
    assert isinstance(report.decision, Skip) and report.set_aside is None and report.unreadable_lines == []

    turn = make_turn(1)
    await log.append(turn)

    assert (folder / "log.jsonl").read_bytes() == turn.to_line().encode()
    assert await log.last(CONVERSATION, 3) == [turn]
