"""RecordTurn, the handoff it keeps, rotation and pages, on real files (spec 04 §5-§8)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from idea.application.conversation.handoff import HandoffService
from idea.application.conversation.pages import ConversationPages
from idea.application.conversation.record import SAVE_DELAY_MS, RecordTurn
from idea.application.conversation.rotate import RotateConversationLog
from idea.domain.errors import AppError, ErrorCode
from idea.domain.knowledge.conversation_log import ConversationTurn, TurnRole
from idea.domain.knowledge.handoff import HANDOFF_SUMMARY_MAX_CHARS, Handoff, parse_handoff, turn_line
from idea.domain.knowledge.log_rotation import RotationThresholds
from idea.domain.orchestration.tickets import AgentSource, HumanSource
from idea.infrastructure.stores.conversation_log import JsonlConversationLog
from idea.infrastructure.stores.handoffs import MarkdownHandoffStore
from tests.fakes import RecordingDiagnostics
from tests.fakes_orchestration import VirtualTime

CONVERSATION = "6ffc1f69-77a5-0da1-1965-ef26d1df72f5"
AGENT = "c932c770-cf36-4fb2-a966-71bb1644e4b4"


def make_turn(index: int, text: str | None = None) -> ConversationTurn:
    role = TurnRole.PROMPT if index % 2 else TurnRole.RESPONSE
    source = HumanSource() if role is TurnRole.PROMPT else AgentSource(AGENT)
    return ConversationTurn(
        f"00000000-0000-4000-8000-{index:012d}", CONVERSATION, 1_700_000_000_000 + index, source, role,
        text if text is not None else f"turn number {index} " + "words " * 60,
    )


class Files:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.log = JsonlConversationLog(str(root))
        self.handoffs = MarkdownHandoffStore(str(root))
        self.diagnostics = RecordingDiagnostics()
        self.time = VirtualTime()

    def recorder(self, save_delay_ms: int = 0) -> RecordTurn:
        return RecordTurn(self.log, self.handoffs, self.diagnostics, self.time, save_delay_ms=save_delay_ms)

    def handoff_file(self) -> Path:
        return self.handoffs.path(CONVERSATION)

    def stored(self) -> Handoff:
        parsed = parse_handoff(self.handoff_file().read_text(encoding="utf-8"))
        assert parsed.handoff is not None
        return parsed.handoff


@pytest.fixture
def files(tmp_path: Path) -> Files:
    return Files(tmp_path)


async def test_every_recorded_turn_is_appended_then_folded_into_a_bounded_handoff(files: Files) -> None:
    recorder = files.recorder()
    turns = [make_turn(index) for index in range(1, 41)]

    for turn in turns:
        await recorder.append(turn)

    stored = files.stored()
    assert stored.up_to == turns[-1].id
    assert stored.objective == " ".join(turns[0].text.split())[:200]
    assert len(stored.summary) <= HANDOFF_SUMMARY_MAX_CHARS
    assert stored.summary.endswith("\n" + turn_line(turns[-1]))
    assert await files.log.last(CONVERSATION, 40) == turns
    assert recorder.current(CONVERSATION) == stored


async def test_a_failed_append_is_the_callers_error_and_folds_nothing(files: Files) -> None:
    recorder = files.recorder()
    bad = ConversationTurn("t", "not-a-uuid", 1, HumanSource(), TurnRole.PROMPT, "x")

    with pytest.raises(AppError) as failed:
        await recorder.append(bad)

    assert failed.value.code is ErrorCode.INVALID
    assert not files.handoff_file().exists()


async def test_a_handoff_behind_the_log_is_caught_up_at_the_next_record(files: Files) -> None:
    first = files.recorder()
    for index in range(1, 5):
        await first.append(make_turn(index))
    for index in range(5, 8):  # appended, but the process died before their handoff was saved
        await files.log.append(make_turn(index))

    after_restart = files.recorder()
    await after_restart.append(make_turn(8))

    bullets = [line for line in files.stored().summary.split("\n") if line.startswith("- ")]
    assert [line.split("turn number ")[1].split()[0] for line in bullets] == [str(i) for i in range(1, 9)]
    assert any("caught up 3 turns" in line for line in files.diagnostics.lines)


async def test_an_unreadable_handoff_is_kept_aside_and_rebuilt_from_the_log(files: Files) -> None:
    recorder = files.recorder()
    for index in range(1, 4):
        await recorder.append(make_turn(index))
    files.handoff_file().write_text("this is not a handoff\n", encoding="utf-8")

    await files.recorder().append(make_turn(4))

    stored = files.stored()
    assert stored.up_to == make_turn(4).id and "turn number 1" in stored.objective
    kept = [p for p in files.handoff_file().parent.iterdir() if p.name.startswith("handoff.md.corrupt-")]
    assert len(kept) == 1 and kept[0].read_text() == "this is not a handoff\n"


async def test_a_log_recorded_before_handoffs_existed_gets_one_at_its_next_turn(files: Files) -> None:
    for index in range(1, 6):
        await files.log.append(make_turn(index))

    await files.recorder().append(make_turn(6))

    stored = files.stored()
    assert stored.up_to == make_turn(6).id
    assert stored.summary.count("\n- ") == 6  # turns 1..6 as bullets


async def test_a_failing_handoff_save_never_fails_the_record(files: Files, monkeypatch: pytest.MonkeyPatch) -> None:
    recorder = files.recorder()

    def broken(conversation: str, handoff: Handoff) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(files.handoffs, "save", broken)
    await recorder.append(make_turn(1))
    monkeypatch.undo()
    await recorder.append(make_turn(2))

    assert files.stored().up_to == make_turn(2).id
    assert any("[handoff] checkpoint failed" in line for line in files.diagnostics.lines)
    assert await files.log.last(CONVERSATION, 5) == [make_turn(1), make_turn(2)]


async def test_concurrent_records_of_one_conversation_fold_in_log_order(files: Files) -> None:
    recorder = files.recorder()
    turns = [make_turn(index, f"t{index}") for index in range(1, 30)]

    await asyncio.gather(*(recorder.append(turn) for turn in turns))

    logged = await files.log.last(CONVERSATION, 50)
    bullets = [line.rsplit(" ", 1)[1] for line in files.stored().summary.split("\n") if line.startswith("- ")]
    assert bullets == [turn.text for turn in logged]


async def test_rotation_uses_the_handoff_cursor_and_opening_a_conversation_starts_it(files: Files) -> None:
    recorder = files.recorder()
    turns = [make_turn(index, f"t{index}") for index in range(1, 13)]
    for turn in turns:
        await recorder.append(turn)
    rotate = RotateConversationLog(files.log, files.handoffs, files.diagnostics, RotationThresholds(after_turns=10))
    pages = ConversationPages(files.log, rotate)

    page = await pages.open(CONVERSATION, limit=5)
    await pages.settle()

    assert [t.id for t in page.turns] == [t.id for t in turns[-5:]] and page.has_more
    assert any("archived 11 turns into log.1.jsonl" in line for line in files.diagnostics.lines)
    assert (await pages.read(CONVERSATION, anchor=turns[7].id, limit=3)).turns == tuple(turns[4:7])
    forward = await pages.read(CONVERSATION, anchor=turns[9].id, direction="Forward", limit=50)
    assert forward.turns == tuple(turns[10:]) and not forward.has_more
    with pytest.raises(AppError):
        await pages.read("../etc")


async def test_a_failed_rotation_is_logged_and_swallowed(files: Files, monkeypatch: pytest.MonkeyPatch) -> None:
    async def broken(*args: object) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(files.log, "rotate", broken)
    rotate = RotateConversationLog(files.log, files.handoffs, files.diagnostics)

    assert await rotate(CONVERSATION) is None
    assert any("rotation failed" in line for line in files.diagnostics.lines)


class SlowSummarizer:
    def __init__(self, delay_s: float, fail: bool = False) -> None:
        self.delay_s = delay_s
        self.fail = fail

    async def summarize(self, conversation: str, previous: Handoff | None, recent: list[ConversationTurn]) -> Handoff:
        await asyncio.sleep(self.delay_s)
        if self.fail:
            raise RuntimeError("model unavailable")
        return Handoff(recent[-1].id, "refined", "**Objective:** refined\n\n- summary by a model " + "m" * 9000)


async def test_resume_text_is_the_bounded_handoff_and_a_failing_summariser_falls_back(files: Files) -> None:
    recorder = files.recorder()
    for index in range(1, 4):
        await recorder.append(make_turn(index))
    heuristic = HandoffService(files.handoffs, files.log, files.diagnostics)
    failing = HandoffService(files.handoffs, files.log, files.diagnostics, SlowSummarizer(0, fail=True))
    slow = HandoffService(files.handoffs, files.log, files.diagnostics, SlowSummarizer(5), refine_timeout_s=0.05)
    model = HandoffService(files.handoffs, files.log, files.diagnostics, SlowSummarizer(0))

    expected = files.stored().summary
    assert await heuristic.resume_text(CONVERSATION) == expected
    assert await failing.resume_text(CONVERSATION) == expected
    assert await slow.resume_text(CONVERSATION) == expected
    refined = await model.resume_text(CONVERSATION)
    assert refined.startswith("**Objective:** refined") and len(refined) <= HANDOFF_SUMMARY_MAX_CHARS
    assert await heuristic.resume_text(None) == ""
    assert await heuristic.resume_text("0f3c2a9e-6b1d-4c1e-9d0a-2f6f1f7b8c11") == ""


async def test_the_handoff_is_written_behind_once_per_burst_and_flushed_on_demand(
    files: Files, monkeypatch: pytest.MonkeyPatch
) -> None:
    saves: list[str] = []
    save = files.handoffs.save

    def counted(conversation: str, handoff: Handoff) -> None:
        saves.append(handoff.up_to)
        save(conversation, handoff)

    monkeypatch.setattr(files.handoffs, "save", counted)
    recorder = files.recorder(save_delay_ms=SAVE_DELAY_MS)
    for index in range(1, 6):
        await recorder.append(make_turn(index))
        await files.time.advance(SAVE_DELAY_MS // 10)
    assert saves == [] and recorder.current(CONVERSATION).up_to == make_turn(5).id
    service = HandoffService(files.handoffs, files.log, files.diagnostics, current=recorder.current)
    assert (await service.resume_text(CONVERSATION)).endswith(turn_line(make_turn(5)))  # fresher than the file

    await files.time.advance(SAVE_DELAY_MS // 2)
    assert saves == [make_turn(5).id]  # one write for the burst, at most the delay after its first turn
    await recorder.append(make_turn(6))
    recorder.flush()
    assert saves[-1] == make_turn(6).id and files.stored().up_to == make_turn(6).id
    await files.time.advance(SAVE_DELAY_MS)
    assert len(saves) == 2  # the flush disarmed the write behind

    await recorder.append(make_turn(7))
    recorder.close()
    await recorder.append(make_turn(8))
    assert saves[-2:] == [make_turn(7).id, make_turn(8).id]  # after close, each fold is written at once


async def test_turns_whose_handoff_was_never_written_are_caught_up_after_a_crash(files: Files) -> None:
    before = files.recorder(save_delay_ms=60_000)
    for index in range(1, 4):
        await before.append(make_turn(index))  # the process dies before the delayed save

    await files.recorder().append(make_turn(4))

    bullets = [line for line in files.stored().summary.split("\n") if line.startswith("- ")]
    assert len(bullets) == 4
