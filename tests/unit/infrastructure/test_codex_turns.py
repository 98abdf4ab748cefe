"""The turns a Codex agent ended on an API error, read from its rollouts (records as Codex 0.171 writes them)."""

from __future__ import annotations

import json
from pathlib import Path

from idea.domain.agent_states.turn_failure import FailedTurn
from idea.infrastructure.inspect.codex_turns import CodexFailedTurns, error_name
from idea.infrastructure.inspect.engine_sessions import limit_in_api_error

SESSION = "01a24286-2da5-7c21-b0b8-95d493b032b9"
TURN = "01a24286-4846-77c1-ad77-c084a516307e"
LIMIT = (
    "You’ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit "
    "https://chatgpt.com/settings/usage to purchase more credits or try again at 8:58 PM."
)


def line(record: object) -> str:
    return json.dumps(record, separators=(",", ":"), ensure_ascii=False) + "\n"


def user(text: str) -> str:
    content = [{"type": "input_text", "text": text}]
    return line({"type": "response_item", "payload": {"type": "message", "role": "user", "content": content}})


def task_complete(error: dict[str, object] | None = None, message: str | None = None) -> str:
    payload: dict[str, object] = {"type": "task_complete", "turn_id": TURN, "last_agent_message": message}
    if error is not None:
        payload["error"] = error
    return line({"type": "event_msg", "payload": payload})


def rollout(home: Path, name: str = f"rollout-2026-12-04T19-26-59-{SESSION}.jsonl") -> Path:
    folder = home / "sessions" / "2026" / "12" / "04"
    folder.mkdir(parents=True, exist_ok=True)
    return folder / name


def append(path: Path, *lines: str) -> None:
    with path.open("a", encoding="utf-8") as file:
        file.write("".join(lines))


def test_a_failed_turn_is_read_with_its_prompt_and_in_stop_failure_words(tmp_path: Path) -> None:
    path = rollout(tmp_path)
    append(path, line({"type": "session_meta", "payload": {"id": SESSION}}))
    turns = CodexFailedTurns(str(tmp_path))
    assert turns.new_failures() == []

    environment = "<environment_context>\n  <cwd>/p</cwd>\n</environment_context>"
    append(path, user(environment), user("[IdeA ask abc] review the parser"))
    append(path, task_complete({"message": LIMIT, "codex_error_info": "usage_limit_exceeded"}))
    [failed] = turns.new_failures()
    assert failed == FailedTurn("rate_limit", LIMIT, "[IdeA ask abc] review the parser")
    assert failed.usage_limit and not failed.needs_sign_in
    assert turns.new_failures() == []  # read once

    append(path, user("say hi"), task_complete(message="hi"))  # a turn that ended well: notify tells of it
    assert turns.new_failures() == []


def test_records_from_before_the_agent_started_are_history_but_a_new_rollout_is_read_whole(tmp_path: Path) -> None:
    old = rollout(tmp_path)
    append(old, user("earlier"), task_complete({"message": "boom", "codex_error_info": "model_not_found"}))
    turns = CodexFailedTurns(str(tmp_path))
    assert turns.new_failures() == []

    new = rollout(tmp_path, "rollout-2026-12-04T20-00-00-01a24287-0000-7000-8000-000000000000.jsonl")
    error = {"message": "The model does not exist", "codex_error_info": "model_not_found"}
    append(new, user("check"), task_complete(error))
    assert turns.new_failures() == [FailedTurn("model_not_found", "The model does not exist", "check")]


def test_a_record_still_being_written_is_read_once_complete(tmp_path: Path) -> None:
    path = rollout(tmp_path)
    path.write_text("")
    turns = CodexFailedTurns(str(tmp_path))
    record = task_complete({"message": "x", "codex_error_info": "bad_request"})
    append(path, record[:40])
    assert turns.new_failures() == []
    append(path, record[40:])
    assert [failed.error for failed in turns.new_failures()] == ["bad_request"]


def test_no_sessions_folder_yet_and_garbage_lines_are_nothing(tmp_path: Path) -> None:
    turns = CodexFailedTurns(str(tmp_path))
    assert turns.new_failures() == []
    path = rollout(tmp_path)
    odd = {"type": "event_msg", "payload": {"type": "task_complete", "error": "x"}}  # an error that is no object
    append(path, "not json\n", line([1, 2]), line(odd))
    assert turns.new_failures() == []


def test_error_names() -> None:
    assert error_name("usage_limit_exceeded") == "rate_limit"
    assert error_name("unauthorized") == "authentication_failed"
    assert error_name({"http_connection_failed": {"http_status_code": 401}}) == "authentication_failed"
    assert error_name({"http_connection_failed": {"http_status_code": 403}}) == "authentication_failed"
    assert error_name({"http_connection_failed": {"http_status_code": 502}}) == "http_connection_failed 502"
    assert error_name({"response_stream_disconnected": {}}) == "response_stream_disconnected"
    assert error_name("model_not_found") == "model_not_found"
    assert error_name(None) == "unknown"
    assert error_name({"a": 1, "b": 2}) == "unknown"


def test_codex_limit_messages_give_their_reset_time() -> None:
    record = limit_in_api_error(LIMIT)
    assert record is not None and record.resets_at_text == "8:58 PM"
    later = LIMIT.replace("try again at 8:58 PM.", "try again later.")
    record = limit_in_api_error(later)
    assert record is not None and record.resets_at_text is None
    dated = LIMIT.replace("8:58 PM", "Dec 8th, 2026 8:58 PM")
    record = limit_in_api_error(dated)
    assert record is not None and record.resets_at_text == "Dec 8th, 2026 8:58 PM"
    assert limit_in_api_error("The model does not exist") is None
