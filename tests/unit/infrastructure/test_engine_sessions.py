"""The CLIs' own sessions read from their hooks and files: engine ids, last subjects, limit records."""

from __future__ import annotations

import json
import os
from pathlib import Path

from idea.domain.agent_states.engine_sessions import HookSession, session_from_hook
from idea.infrastructure.inspect.engine_sessions import (
    EngineSession,
    TranscriptTail,
    claude_limit_in_record,
    gemini_project_hash,
    last_subject,
    latest_codex_session,
    latest_gemini_session,
)

SESSION = "9b2f7c1e-0d3a-4e5b-8c6d-7e8f9a0b1c2d"
OTHER = "01a228ba-8e6d-78e3-9bc1-15ddaff71950"


def jsonl(path: Path, records: list[object], tail: str = "") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records) + tail, encoding="utf-8")
    return path


def test_claude_hook_session() -> None:
    payload = {"session_id": SESSION, "transcript_path": "/h/.claude/projects/x/s.jsonl", "source": "clear"}
    assert session_from_hook("claude", payload) == HookSession(SESSION, "/h/.claude/projects/x/s.jsonl")
    assert session_from_hook("claude", {"session_id": "not-a-uuid"}) is None
    assert session_from_hook("claude", {}) is None


def test_gemini_hook_session() -> None:
    transcript = "/h/.gemini/tmp/4f1e/chats/session-2026-12-05T01-10-4c1d8e2a.jsonl"
    payload = {"session_id": SESSION, "transcript_path": transcript, "hook_event_name": "BeforeAgent"}
    assert session_from_hook("gemini", payload) == HookSession(SESSION, transcript)
    assert session_from_hook("gemini", {"session_id": SESSION, "transcript_path": ""}) == HookSession(SESSION)


def test_codex_notify_thread_id() -> None:
    assert session_from_hook("codex", {"type": "agent-turn-complete", "thread-id": OTHER}) == HookSession(OTHER)
    assert session_from_hook("codex", {"type": "agent-turn-complete"}) is None


def test_latest_codex_rollout_by_time_id_from_meta_or_name(tmp_path: Path) -> None:
    home = tmp_path / ".codex"
    old = jsonl(
        home / "sessions/2026/06/16" / f"rollout-2026-06-16T09-00-00-{SESSION}.jsonl",
        [{"type": "session_meta", "payload": {"id": SESSION, "cwd": "/p"}}],
    )
    new = jsonl(home / "sessions/2026/06/17" / f"rollout-2026-06-17T09-00-00-{OTHER}.jsonl", [], tail='{"trunc')
    os.utime(old, (1_000_000, 1_000_000))
    assert latest_codex_session(str(home)) == EngineSession(OTHER, str(new))  # from its name: no readable meta
    os.utime(new, (999_000, 999_000))
    assert latest_codex_session(str(home)) == EngineSession(SESSION, str(old))
    assert latest_codex_session(str(tmp_path / "none")) is None


def test_older_codex_rollout_with_a_bare_id(tmp_path: Path) -> None:
    path = jsonl(tmp_path / "sessions" / "rollout-2025-01-01T00-00-00-x.jsonl", [{"id": OTHER, "instructions": ""}])
    assert latest_codex_session(str(tmp_path)) == EngineSession(OTHER, str(path))


def test_latest_gemini_chat_of_the_project(tmp_path: Path) -> None:
    chats = tmp_path / ".gemini" / "tmp" / gemini_project_hash("/p/.ideai/run/a") / "chats"
    chats.mkdir(parents=True)
    (chats / "session-2026-06-17T09-00-abc.json").write_text(
        json.dumps({"sessionId": OTHER, "messages": [{"type": "user", "content": "fix the build"}]})
    )
    (chats / "session-2026-06-17T10-00-def.json").write_text("{broken")
    session = latest_gemini_session(str(tmp_path), "/p/.ideai/run/a")
    assert session is not None and session.engine_session_id == OTHER
    assert last_subject("gemini", str(session.transcript_path)) == "fix the build"
    assert latest_gemini_session(str(tmp_path), "/elsewhere") is None


def test_claude_last_subject_skips_meta_records_and_unwraps_idea_tasks(tmp_path: Path) -> None:
    path = jsonl(
        tmp_path / "s.jsonl",
        [
            {"type": "summary", "summary": "x"},
            {"type": "user", "isMeta": True, "message": {"role": "user", "content": "Caveat: ..."}},
            {"type": "user", "message": {"role": "user", "content": "<command-name>/clear</command-name>"}},
            {
                "type": "user",
                "message": {
                    "role": "user",
                    "content": [
                        {
                            "type": "text",
                            "text": "[IdeA · task from Main · ticket 3f2a] review   the storage ports and report"
                            "\n\nIdeA: when you are done you MUST call idea_reply(...)",
                        }
                    ],
                },
            },
        ],
        tail='{"partial',
    )
    assert last_subject("claude", str(path)) == "review the storage ports and report"


def test_subject_is_cut_at_80_characters(tmp_path: Path) -> None:
    path = jsonl(tmp_path / "s.jsonl", [{"type": "user", "message": {"content": "word " * 40}}])
    subject = last_subject("claude", str(path))
    assert subject is not None and len(subject) == 80 and subject.endswith("…")


def test_codex_subject_from_the_user_message_event(tmp_path: Path) -> None:
    path = jsonl(
        tmp_path / "r.jsonl",
        [
            {"type": "session_meta", "payload": {"id": OTHER}},
            {
                "type": "response_item",
                "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "<env>"}]},
            },
            {"type": "event_msg", "payload": {"type": "user_message", "message": "add a retry to the client"}},
        ],
    )
    assert last_subject("codex", str(path)) == "add a retry to the client"
    assert last_subject("codex", str(tmp_path / "missing.jsonl")) is None


def test_claude_limit_records() -> None:
    def assistant(text: str, **extra: object) -> dict[str, object]:
        return {"type": "assistant", "message": {"content": [{"type": "text", "text": text}]}, **extra}

    record = claude_limit_in_record(assistant("Claude AI usage limit reached|1781370000"))
    assert record is not None and record.resets_at_text == "1781370000"
    record = claude_limit_in_record(assistant("5-hour limit reached ∙ resets 3pm", isApiErrorMessage=True))
    assert record is not None and record.resets_at_text == "3pm"
    record = claude_limit_in_record(assistant("Usage limit reached.", isApiErrorMessage=True))
    assert record is not None and record.resets_at_text is None
    # Claude Code 2.1: "You've hit your <limit>${' · resets ' + time}", more clauses after some.
    api_error = {"isApiErrorMessage": True, "error": "rate_limit"}
    record = claude_limit_in_record(assistant("You've hit your session limit · resets 3pm (Europe/Paris)", **api_error))
    assert record is not None and record.resets_at_text == "3pm (Europe/Paris)"
    record = claude_limit_in_record(assistant("You’ve hit your weekly limit · resets Dec 8, 3:30pm (UTC)", **api_error))
    assert record is not None and record.resets_at_text == "Dec 8, 3:30pm (UTC)"
    text = "You're out of usage credits · resets Jan 2, 9am (Europe/Paris) · contact your admin to increase it"
    record = claude_limit_in_record(assistant(text, **api_error))
    assert record is not None and record.resets_at_text == "Jan 2, 9am (Europe/Paris)"
    record = claude_limit_in_record(assistant("You've hit your monthly spend limit. /model to switch models.", **api_error))
    assert record is not None and record.resets_at_text is None  # no time: the human net
    assert claude_limit_in_record(assistant("Opus is experiencing high load", **api_error)) is None  # not a limit
    assert claude_limit_in_record(assistant("the retry limit reached its maximum")) is None  # prose, no error
    assert claude_limit_in_record({"type": "user", "message": {"content": "usage limit reached|1"}}) is None


def test_transcript_tail_reads_only_new_complete_records(tmp_path: Path) -> None:
    path = jsonl(tmp_path / "t.jsonl", [{"n": 1}])
    tail = TranscriptTail(str(path))
    assert tail.new_records() == []
    with path.open("a", encoding="utf-8") as file:
        file.write('{"n": 2}\n{"n": ')
    assert tail.new_records() == [{"n": 2}]
    with path.open("a", encoding="utf-8") as file:
        file.write('3}\nnot json\n')
    assert tail.new_records() == [{"n": 3}]
    path.write_text('{"n": 9}\n')  # rewritten shorter: read from the start
    assert tail.new_records() == [{"n": 9}]
    assert TranscriptTail(str(tmp_path / "absent.jsonl")).new_records() == []


def test_claude_transcript_limits_read_only_records_appended_later(tmp_path: Path) -> None:
    from idea.infrastructure.agent_watching import ClaudeTranscriptLimits
    from tests.fakes import FakeClock

    path = jsonl(tmp_path / "t.jsonl", [{"type": "assistant", "message": {"content": "Claude AI usage limit reached|1"}}])
    limits = ClaudeTranscriptLimits(str(path), FakeClock())
    assert limits.new_limits() == []  # what was there before is history
    with path.open("a", encoding="utf-8") as file:
        file.write(json.dumps({"type": "assistant", "message": {"content": "Claude AI usage limit reached|1781370000"}}) + "\n")
    [(resets, text)] = limits.new_limits()
    assert resets == 1_781_370_000_000 and "usage limit reached" in text
    out_of_credits = "You're out of usage credits · resets 2026-06-21T15:00:00Z"  # no "limit" in it
    tool_output = {"type": "user", "message": {"content": "limit reached " * 1000}}
    record = {"type": "assistant", "message": {"content": out_of_credits}, "isApiErrorMessage": True}
    with path.open("a", encoding="utf-8") as file:
        file.write(json.dumps(tool_output) + "\n" + json.dumps(record) + "\n")
    [(resets, text)] = limits.new_limits()
    assert resets == 1_782_054_000_000 and text == out_of_credits


def test_a_failed_turn_s_message_gives_its_limit() -> None:
    from idea.infrastructure.agent_watching import LocalAgentWatchAdapters
    from tests.fakes import FakeClock, RecordingDiagnostics

    adapters = LocalAgentWatchAdapters(FakeClock(), None, RecordingDiagnostics())  # type: ignore[arg-type]
    found = adapters.limit_in_failure("You've hit your session limit · resets 2026-06-21T15:00:00Z")
    assert found == (1_782_054_000_000, "You've hit your session limit · resets 2026-06-21T15:00:00Z")
    assert adapters.limit_in_failure("You've hit your monthly spend limit · raise it at claude.ai") == (
        None,
        "You've hit your monthly spend limit · raise it at claude.ai",
    )
    assert adapters.limit_in_failure("Opus is experiencing high load") is None

