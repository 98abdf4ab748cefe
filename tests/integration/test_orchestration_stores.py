"""The orchestration core's adapters on a real file system: live-state file, conversation log, activity
probe, CPU probe and timer."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from idea.domain.errors import AppError, CorruptFileError, ErrorCode
from idea.domain.knowledge.conversation_log import ConversationTurn, TurnRole
from idea.domain.orchestration.commands import WorkStatus
from idea.domain.orchestration.live_state import LiveState
from idea.domain.orchestration.tickets import AgentSource, HumanSource
from idea.infrastructure.inspect.activity import TranscriptActivityProbe, agent_run_dir, encode_cwd
from idea.infrastructure.inspect.process_cpu import DescendantCpuProbe
from idea.infrastructure.stores.conversation_log import JsonlConversationLog
from idea.infrastructure.stores.live_state import JsonLiveStateStore
from idea.infrastructure.timer import MonotonicTimer

AGENT = "dce19c75-9669-4e45-b8de-9950025157da"
CONVERSATION = "6ffc1f69-77a5-0da1-1965-ef26d1df72f5"


def test_a_missing_live_state_file_is_an_empty_board(tmp_path: Path) -> None:
    assert JsonLiveStateStore(str(tmp_path)).load() == LiveState()


def test_the_live_state_file_is_written_with_explicit_nulls_and_read_back(tmp_path: Path) -> None:
    store = JsonLiveStateStore(str(tmp_path))
    state = LiveState().with_row(AGENT, 1781368615582, status=WorkStatus.WORKING, intent="review")

    store.save(state)

    document = json.loads((tmp_path / ".ideai" / "live-state.json").read_text())
    assert document == {
        "version": 1,
        "entries": [
            {
                "agentId": AGENT,
                "status": "working",
                "intent": "review",
                "ticket": None,
                "progress": None,
                "lastDelegation": None,
                "updatedAtMs": 1781368615582,
            }
        ],
    }
    assert store.load() == state


@pytest.mark.parametrize("content", ["{not json", '{"entries": [{"agentId": "x", "status": "asleep"}]}'])
def test_an_unreadable_live_state_file_is_kept_aside(tmp_path: Path, content: str) -> None:
    path = tmp_path / ".ideai" / "live-state.json"
    path.parent.mkdir()
    path.write_text(content)
    store = JsonLiveStateStore(str(tmp_path))

    with pytest.raises(CorruptFileError) as broken:
        store.load()

    assert broken.value.kept_as is not None and Path(broken.value.kept_as).read_text() == content
    assert not path.exists() and store.load() == LiveState()


def turn(index: int, text: str = "hello") -> ConversationTurn:
    return ConversationTurn(
        id=f"00000000-0000-4000-8000-{index:012d}",
        conversation=CONVERSATION,
        at_ms=1781368615582 + index,
        source=AgentSource(AGENT) if index % 2 else HumanSource(),
        role=TurnRole.RESPONSE if index % 2 else TurnRole.PROMPT,
        text=text,
        late=index == 3,
    )


async def test_turns_are_appended_one_json_line_each(tmp_path: Path) -> None:
    log = JsonlConversationLog(str(tmp_path))

    await log.append(turn(0, "line one\nline two"))
    await log.append(turn(3, "réponse tardive"))

    path = tmp_path / ".ideai" / "conversations" / CONVERSATION / "log.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["text"] for line in lines] == ["line one\nline two", "réponse tardive"]
    assert json.loads(lines[1])["late"] is True
    assert "réponse" in lines[1]  # UTF-8 kept readable


async def test_concurrent_appends_never_interleave(tmp_path: Path) -> None:
    log = JsonlConversationLog(str(tmp_path))
    big = "x" * 100_000

    await asyncio.gather(*(log.append(turn(index, big)) for index in range(40)))

    lines = log.path(CONVERSATION).read_text().splitlines()
    assert len(lines) == 40 and all(json.loads(line)["text"] == big for line in lines)


async def test_a_conversation_id_must_be_a_uuid(tmp_path: Path) -> None:
    log = JsonlConversationLog(str(tmp_path))
    bad = ConversationTurn("i", "../../etc", 1, HumanSource(), TurnRole.PROMPT, "x")

    with pytest.raises(AppError) as refused:
        await log.append(bad)
    assert refused.value.code is ErrorCode.INVALID


def test_encode_cwd_turns_every_non_alphanumeric_character_into_a_dash() -> None:
    assert encode_cwd(f"/home/me/IdeA/.ideai/run/{AGENT}") == f"-home-me-IdeA--ideai-run-{AGENT}"
    assert encode_cwd("C:\\Users\\me") == "C--Users-me"
    assert encode_cwd("/tmp/café") == "-tmp-caf-"


def write(path: Path, size: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("ab") as handle:
        handle.write(b"x" * size)


def test_a_claude_agent_is_found_under_its_encoded_run_dir(tmp_path: Path) -> None:
    home, root = tmp_path / "home", tmp_path / "project"
    probe = TranscriptActivityProbe(str(root), lambda _agent: "claude", home=str(home))
    assert probe.token(AGENT) is None  # no transcript yet, no hook: no proof of life

    folder = home / ".claude" / "projects" / encode_cwd(agent_run_dir(str(root), AGENT))
    write(folder / "session.jsonl", 120)
    write(folder / "session" / "subagents" / "agent-1.jsonl", 30)
    write(folder / "notes.txt", 999)
    assert probe.token(AGENT) == 150

    write(folder / "session.jsonl", 10)
    probe.note_hook_event(AGENT, None)
    assert probe.token(AGENT) == 161


def test_the_transcript_path_reported_by_a_hook_wins(tmp_path: Path) -> None:
    probe = TranscriptActivityProbe(str(tmp_path / "project"), lambda _agent: "claude", home=str(tmp_path / "home"))
    elsewhere = tmp_path / "elsewhere" / "abc.jsonl"
    write(elsewhere, 500)

    probe.note_hook_event(AGENT, str(elsewhere))

    assert probe.token(AGENT) == 501


def test_a_codex_agent_is_measured_by_its_rollout_files(tmp_path: Path) -> None:
    root = tmp_path / "project"
    probe = TranscriptActivityProbe(str(root), lambda _agent: "codex", home=str(tmp_path / "home"))
    sessions = Path(agent_run_dir(str(root), AGENT)) / ".codex" / "sessions"
    write(sessions / "2026" / "06" / "21" / "rollout-1.jsonl", 64)

    assert probe.token(AGENT) == 64


def test_other_clis_count_their_hook_events_and_the_transcript_their_hooks_report(tmp_path: Path) -> None:
    probe = TranscriptActivityProbe(str(tmp_path), lambda _agent: None, home=str(tmp_path))
    assert probe.token(AGENT) is None
    probe.note_hook_event(AGENT, None)
    assert probe.token(AGENT) == 1
    # Gemini CLI's hooks name its chat: the chats' folder grows while the agent works, between two events.
    chat = tmp_path / ".gemini" / "tmp" / "4f1e" / "chats" / "session-2026-12-05T01-10-4c1d8e2a.jsonl"
    write(chat, 300)
    probe.note_hook_event(AGENT, str(chat))
    write(chat, 40)
    assert probe.token(AGENT) == 342


def test_cpu_of_descendants_is_measured_and_a_gone_process_has_none() -> None:
    # The child burns 0.3 s of its own CPU, says so, then waits: the reading does not depend on the load.
    busy = (
        "import sys, time\n"
        "while time.process_time() < 0.3: pass\n"
        "print('burnt', flush=True)\n"
        "sys.stdin.read()\n"
    )
    worker = subprocess.Popen(
        [sys.executable, "-c", busy], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    probe = DescendantCpuProbe()
    try:
        assert worker.stdout is not None and worker.stdout.readline().strip() == "burnt"
        used = probe.descendant_cpu_seconds(os.getpid())
    finally:
        worker.kill()
        worker.wait()
    assert used is not None and used >= 0.25  # the kernel counts in clock ticks
    gone = subprocess.Popen(["true"])
    gone.wait()
    assert probe.descendant_cpu_seconds(gone.pid) is None


async def test_the_monotonic_timer_sleeps() -> None:
    timer = MonotonicTimer()
    before = timer.monotonic_ms()
    await timer.sleep(20)
    assert timer.monotonic_ms() - before >= 19
