"""The tool catalogue and the one validation of tool arguments (spec 03 §5, §13 #21)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from idea.domain.errors import AppError, ErrorCode
from idea.domain.orchestration.commands import (
    AskAgent,
    Command,
    LaunchAgent,
    ListAgents,
    ReadWorkState,
    Reply,
    SetWorkState,
    StopAgent,
    UpdateAgentContext,
    Visibility,
    WorkStatus,
)
from idea.infrastructure.mcp.tool_calls import error_payload, error_text
from tests.unit.infrastructure.test_knowledge_tools import VALID_CALLS as KNOWLEDGE_CALLS
from idea.infrastructure.mcp.tools import (
    MAX_ARGUMENTS_BYTES,
    RESULT_MAX_CHARS,
    TASK_MAX_CHARS,
    TOOL_DEFINITIONS,
    TOOL_NAMES,
    parse_tool_call,
)

NODE = "5B0C7F3E2A414D8E9C1B6E7F8A9B0C1D"

# One valid call per tool of the catalogue, with the command it must become.
VALID_CALLS: dict[str, tuple[dict[str, Any], Command]] = {
    "idea_list_agents": ({}, ListAgents()),
    "idea_ask_agent": ({"target": "QA", "task": "run the tests"}, AskAgent(target="QA", task="run the tests")),
    "idea_reply": ({"result": "all green", "ticket": "3f2a"}, Reply(result="all green", ticket="3f2a")),
    "idea_launch_agent": ({"target": "QA"}, LaunchAgent(target="QA", visibility=Visibility.VISIBLE)),
    "idea_stop_agent": ({"target": "Dev"}, StopAgent(target="Dev")),
    "idea_update_context": ({"target": "QA", "content": "# QA"}, UpdateAgentContext(target="QA", content="# QA")),
    "idea_workstate_read": ({}, ReadWorkState()),
    "idea_workstate_set": ({"status": "working"}, SetWorkState(status=WorkStatus.WORKING)),
}


def rejection(name: str, arguments: Any, **wording: Any) -> str:
    with pytest.raises(AppError) as raised:
        parse_tool_call(name, arguments, **wording)
    assert raised.value.code is ErrorCode.INVALID_ARGUMENTS
    assert raised.value.retryable is False
    return raised.value.message


def test_the_catalogue_is_the_14_tools_in_spec_order() -> None:
    assert TOOL_NAMES == (
        "idea_list_agents",
        "idea_ask_agent",
        "idea_reply",
        "idea_launch_agent",
        "idea_stop_agent",
        "idea_update_context",
        "idea_create_skill",
        "idea_context_read",
        "idea_context_propose",
        "idea_memory_read",
        "idea_memory_write",
        "idea_skill_read",
        "idea_workstate_read",
        "idea_workstate_set",
    )
    assert set(VALID_CALLS) | set(KNOWLEDGE_CALLS) == set(TOOL_NAMES)


@pytest.mark.parametrize("tool", TOOL_DEFINITIONS, ids=lambda tool: tool["name"])
def test_every_tool_is_fully_described_and_closed(tool: dict[str, Any]) -> None:
    schema = tool["inputSchema"]
    assert set(tool) == {"name", "description", "inputSchema"} and tool["description"].endswith(".")
    assert schema["type"] == "object" and schema["additionalProperties"] is False
    assert set(schema.get("required", ())) <= set(schema["properties"])
    assert "requester" not in json.dumps(schema)  # identity comes from the door, never from an argument
    assert all(rules["type"] == "string" for rules in schema["properties"].values())


@pytest.mark.parametrize("name", sorted(VALID_CALLS))
def test_each_tool_becomes_its_command(name: str) -> None:
    arguments, command = VALID_CALLS[name]

    assert parse_tool_call(name, arguments) == command


def test_strings_are_trimmed_and_empty_optionals_are_absent() -> None:
    assert parse_tool_call("idea_reply", {"result": "  done \n", "ticket": "   "}) == Reply(result="done")
    assert parse_tool_call(
        "idea_launch_agent", {"target": " QA ", "visibility": " Background ", "nodeId": NODE, "task": ""}
    ) == LaunchAgent(target="QA", visibility=Visibility.BACKGROUND, node_id="5b0c7f3e-2a41-4d8e-9c1b-6e7f8a9b0c1d")
    assert parse_tool_call("idea_workstate_set", {"status": "done", "intent": None}) == SetWorkState(
        WorkStatus.DONE
    )
    assert parse_tool_call("idea_list_agents", None) == ListAgents()


@pytest.mark.parametrize(
    ("name", "arguments", "message"),
    [
        ("idea_ask_agent", {"target": "QA"}, "idea_ask_agent: `task` is required"),
        ("idea_ask_agent", {"target": " ", "task": "x"}, "idea_ask_agent: `target` must not be empty"),
        (
            "idea_ask_agent",
            {"target": ["QA"], "task": "x"},
            "idea_ask_agent: `target` must be a string, not an array",
        ),
        ("idea_reply", {"result": True}, "idea_reply: `result` must be a string, not a boolean"),
        ("idea_reply", {"result": {"a": 1}}, "idea_reply: `result` must be a string, not an object"),
        (
            "idea_list_agents",
            {"verbose": "yes"},
            "idea_list_agents: unknown argument `verbose`; accepted arguments: none",
        ),
        (
            "idea_stop_agent",
            {"target": "Dev", "requester": "Main"},
            "idea_stop_agent: unknown argument `requester`; accepted arguments: `target`",
        ),
        (
            "idea_launch_agent",
            {"target": "QA", "visibility": "hidden"},
            'idea_launch_agent: `visibility` must be one of "visible", "background", not "hidden"',
        ),
        (
            "idea_launch_agent",
            {"target": "QA", "nodeId": "cell-3"},
            'idea_launch_agent: `nodeId` must be a UUID, not "cell-3"',
        ),
        ("idea_workstate_set", {"status": "asleep"}, "idea_workstate_set: `status` must be one of"),
        ("idea_ask_agent", [1, 2], "idea_ask_agent: the arguments must be a JSON object"),
        ("idea_fly", {}, "idea_fly: unknown tool idea_fly"),
    ],
)
def test_violations_tell_the_model_what_to_fix(name: str, arguments: Any, message: str) -> None:
    assert rejection(name, arguments).startswith(message)


@pytest.mark.parametrize(
    ("name", "field", "limit", "required"),
    [
        ("idea_ask_agent", "task", TASK_MAX_CHARS, {"target": "QA"}),
        ("idea_launch_agent", "task", TASK_MAX_CHARS, {"target": "QA"}),
        ("idea_reply", "result", RESULT_MAX_CHARS, {}),
        ("idea_update_context", "content", RESULT_MAX_CHARS, {"target": "QA"}),
    ],
)
def test_long_texts_are_bounded(name: str, field: str, limit: int, required: dict[str, str]) -> None:
    parse_tool_call(name, {**required, field: "é" * limit})

    message = rejection(name, {**required, field: "é" * (limit + 1)})

    assert f"`{field}` has {limit + 1} characters, more than the limit of {limit}" in message


def test_arguments_above_one_mebibyte_are_refused_before_anything_else() -> None:
    message = rejection("idea_ask_agent", {"target": "QA", "task": "x" * MAX_ARGUMENTS_BYTES})

    assert "more than the limit of 1048576 bytes" in message and "refer to its path" in message


def test_another_door_words_the_errors_in_its_own_vocabulary() -> None:
    message = rejection(
        "idea_ask_agent", {"task": "x"}, label="agent.message", field_names={"target": "targetAgent"}
    )

    assert message == "agent.message: `targetAgent` is required"


def test_error_text_carries_the_verdict_for_a_model_reading_only_text() -> None:
    retryable = AppError(ErrorCode.RENDEZVOUS_TIMEOUT, "agent QA showed no activity for 600 s", retryable=True)
    final = AppError(ErrorCode.TARGET_STOPPED, "agent QA was stopped")

    assert (
        error_text(retryable) == "IdeA error RENDEZVOUS_TIMEOUT (retryable): agent QA showed no activity for 600 s"
    )
    assert error_text(final) == "IdeA error TARGET_STOPPED (not retryable): agent QA was stopped"


def test_a_rate_limit_says_when_to_retry(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TZ", "UTC")
    import time

    time.tzset()
    try:
        limited = AppError(
            ErrorCode.TARGET_RATE_LIMITED, "agent QA hit its usage limit", data={"resetsAtMs": 1_781_368_615_582}
        )
        assert error_text(limited).startswith("IdeA error TARGET_RATE_LIMITED (retry after 16:36): ")
    finally:
        monkeypatch.undo()
        time.tzset()


def test_the_error_payload_keeps_the_stable_fields_first_and_adds_the_data() -> None:
    error = AppError(
        ErrorCode.AGENT_ALREADY_RUNNING, "agent QA runs in another cell", data={"nodeId": "n", "code": "ignored"}
    )

    assert error_payload(error) == {
        "code": "AGENT_ALREADY_RUNNING",
        "retryable": False,
        "message": "agent QA runs in another cell",
        "nodeId": "n",
    }
