"""Every field of every tool, fed everything a careless or hostile model can send (issue 16): the parse
either builds a command whose texts follow the domain's text rule, or refuses with INVALID_ARGUMENTS
naming the field. It never raises anything else (a `visibility: ""` once raised KeyError).

The table drives it: a tool added to `TOOLS` is covered without a line here.
"""

from __future__ import annotations

import dataclasses
import json
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from idea.domain.agent_text import follows_the_rule
from idea.domain.errors import AppError, ErrorCode
from idea.domain.orchestration.commands import LaunchAgent, SetWorkState, Visibility, WorkStatus
from idea.infrastructure.mcp.tools import TOOLS, ToolSpec, parse_tool_call
from tests.tool_strategies import calls

def strings_in(command: object) -> list[str]:
    found: list[str] = []
    for field in dataclasses.fields(command):  # type: ignore[arg-type]
        value = getattr(command, field.name)
        if isinstance(value, str):
            found.append(value)
    return found


@pytest.mark.parametrize("tool", TOOLS, ids=lambda tool: tool.name)
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_any_arguments_become_a_clean_command_or_an_error_naming_the_field(tool: ToolSpec, data: st.DataObject) -> None:
    arguments = data.draw(calls(tool))
    try:
        command = parse_tool_call(tool.name, arguments)
    except AppError as error:
        assert error.code is ErrorCode.INVALID_ARGUMENTS
        keys = [*arguments, *tool.input_schema["properties"]]
        named = [key for key in keys if f"`{key}`" in error.message or f"`{json.dumps(key)[1:-1]}`" in error.message]
        assert named, error.message
        return
    for text in strings_in(command):
        assert follows_the_rule(text) and text == text.strip() and text


def test_an_empty_optional_string_takes_the_fields_default() -> None:
    assert parse_tool_call("idea_launch_agent", {"target": "QA", "visibility": ""}) == LaunchAgent(
        target="QA", visibility=Visibility.VISIBLE
    )
    assert parse_tool_call("idea_launch_agent", {"target": "QA", "visibility": " \u0000 "}) == LaunchAgent(
        target="QA", visibility=Visibility.VISIBLE
    )


def test_control_characters_never_reach_a_command() -> None:
    command = parse_tool_call("idea_workstate_set", {"status": "working", "intent": "a\u0000b\x1b[2Jc", "progress": "1\r\n2"})

    assert command == SetWorkState(status=WorkStatus.WORKING, intent="ab[2Jc", progress="1\n2")


def test_a_text_made_only_of_control_characters_is_empty() -> None:
    with pytest.raises(AppError, match="`task` must not be empty"):
        parse_tool_call("idea_ask_agent", {"target": "QA", "task": "\u0000\x07"})
