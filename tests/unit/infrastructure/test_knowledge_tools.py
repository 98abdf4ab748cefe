"""The six knowledge tools as MCP clients see them, their arguments' validation, and the contract that every
tool named in a text IdeA writes for agents is in the catalogue, and every tool of the catalogue is named
(spec 03 §5). That the catalogue is what `tools/list` answers, and that each tool is served, is tested on a
real project in `tests/integration/test_knowledge_served.py`."""

from __future__ import annotations

import re
from typing import Any

import pytest
from mcp import types

from idea.application.agents.convention_file import ComposeInputs, MemoryPointer, SkillBrief, compose_convention_file
from idea.domain.errors import AppError, ErrorCode
from idea.domain.knowledge.commands import (
    CreateSkill,
    KnowledgeCommand,
    ProposeContext,
    ReadContext,
    ReadMemory,
    ReadSkill,
    WriteMemory,
)
from idea.domain.knowledge.memory import MemoryType
from idea.domain.orchestration.delivery import FileReplyChannel, compose_delivery
from idea.domain.orchestration.tickets import AgentSource, Ticket, TicketKind
from idea.infrastructure.mcp.knowledge_tools import KNOWLEDGE_TOOLS
from idea.infrastructure.mcp.server import INSTRUCTIONS
from idea.infrastructure.mcp.tools import REQUEST_TYPES, TOOL_NAMES, parse_tool_call
from idea.infrastructure.resources import ResourcePromptLibrary, resources_dir

VALID_CALLS: dict[str, tuple[dict[str, Any], KnowledgeCommand]] = {
    "idea_create_skill": (
        {"name": "build-appimage", "content": "# Build\nsteps", "scope": "GLOBAL"},
        CreateSkill(name="build-appimage", content="# Build\nsteps", scope="global"),
    ),
    "idea_context_read": ({}, ReadContext()),
    "idea_context_propose": ({"content": "# Context", "target": "QA"}, ProposeContext(content="# Context", target="QA")),
    "idea_memory_read": ({"slug": "git-owns-merges"}, ReadMemory(slug="git-owns-merges")),
    "idea_memory_write": (
        {"slug": "a-note", "content": " body ", "type": "feedback", "description": "d"},
        WriteMemory(slug="a-note", content="body", description="d", type=MemoryType.FEEDBACK),
    ),
    "idea_skill_read": ({"name": "Deploy"}, ReadSkill(name="Deploy")),
}


def test_the_six_tools_are_valid_mcp_tools_with_closed_object_schemas() -> None:
    assert {tool.name for tool in KNOWLEDGE_TOOLS} == set(VALID_CALLS)
    for tool in KNOWLEDGE_TOOLS:
        definition = tool.definition()
        types.Tool.model_validate(definition, by_name=False)
        assert definition["inputSchema"]["type"] == "object"
        assert definition["inputSchema"]["additionalProperties"] is False
        assert definition["description"].strip()


@pytest.mark.parametrize("name", sorted(VALID_CALLS))
def test_a_valid_call_becomes_its_command(name: str) -> None:
    arguments, command = VALID_CALLS[name]
    assert parse_tool_call(name, arguments) == command


def test_an_absent_argument_takes_what_applies_without_it() -> None:
    assert parse_tool_call("idea_create_skill", {"name": "x", "content": "y"}).scope == "project"  # type: ignore[union-attr]
    written = parse_tool_call("idea_memory_write", {"slug": "x", "content": "y"})
    assert written == WriteMemory(slug="x", content="y", type=None)  # the content's front matter may decide


def test_request_files_carry_the_same_arguments_under_the_spec_types() -> None:
    assert {request: REQUEST_TYPES[request] for request in (
        "skill.create", "skill.read", "context.read", "context.propose", "memory.read", "memory.write"
    )} == {
        "skill.create": "idea_create_skill",
        "skill.read": "idea_skill_read",
        "context.read": "idea_context_read",
        "context.propose": "idea_context_propose",
        "memory.read": "idea_memory_read",
        "memory.write": "idea_memory_write",
    }
    message = rejection("idea_context_read", {"target": 1}, label="context.read", field_names={"target": "targetAgent"})
    assert message == "context.read: `targetAgent` must be a string, not a number"


def rejection(name: str, arguments: Any, **wording: Any) -> str:
    with pytest.raises(AppError) as raised:
        parse_tool_call(name, arguments, **wording)
    assert raised.value.code is ErrorCode.INVALID_ARGUMENTS
    return raised.value.message


@pytest.mark.parametrize(
    ("name", "arguments", "field"),
    [
        ("idea_memory_write", {"content": "x"}, "`slug` is required"),
        ("idea_memory_write", {"slug": "Bad Slug", "content": "x"}, "`slug` \"Bad Slug\" does not match"),
        ("idea_memory_write", {"slug": "a", "content": "   "}, "`content` must not be empty"),
        ("idea_memory_write", {"slug": "a", "content": "x", "type": "opinion"}, "`type` must be one of"),
        ("idea_memory_write", {"slug": "a", "content": "x", "description": "d" * 201}, "`description` has 201"),
        ("idea_memory_read", {"slug": 3}, "`slug` must be a string, not a number"),
        ("idea_create_skill", {"name": "a b", "content": "x"}, "`name` \"a b\" does not match"),
        ("idea_create_skill", {"name": "a", "content": "x", "scope": "team"}, "`scope` must be one of"),
        ("idea_skill_read", {}, "`name` is required"),
        ("idea_context_propose", {"content": "x", "requester": "Main"}, "unknown argument `requester`"),
        ("idea_context_read", {"target": ["QA"]}, "`target` must be a string, not an array"),
    ],
)
def test_argument_errors_name_the_field(name: str, arguments: dict[str, Any], field: str) -> None:
    assert field in rejection(name, arguments)


# ---------------------------------------------------------------------------------- the naming contract

TOOL_NAME = re.compile(r"\bidea_[a-z]+(?:_[a-z]+)*\b")


def texts_written_for_agents() -> dict[str, str]:
    """Every text IdeA writes that an agent reads: prompts, persona templates, reference profiles, composed
    context files (both variants, with skills and memory), delivered tasks, the MCP server's instructions."""
    resources = resources_dir()
    texts = {str(path.relative_to(resources)): path.read_text(encoding="utf-8") for path in sorted(resources.rglob("*")) if path.suffix in (".md", ".json", ".txt")}
    prompts = ResourcePromptLibrary().orchestration_texts()
    for uses_mcp in (True, False):
        texts[f"context file (mcp={uses_mcp})"] = compose_convention_file(
            ComposeInputs(
                project_root="/p",
                agent_id="a",
                agent_name="QA",
                uses_mcp=uses_mcp,
                orchestration=prompts,
                requests_dir="/p/.ideai/requests/a",
                skills=(SkillBrief("lint", "Lint", "body"),),
                project_context="context",
                memory=tuple(MemoryPointer(f"n{i}", "d") for i in range(70)),
                handoff="**Objective:** x",
            )
        )
    ticket = Ticket("t", "a", AgentSource("m"), "Main", "c", "task", True, 1, TicketKind.ASK)
    texts["delivery"] = compose_delivery(ticket)
    texts["delivery (file)"] = compose_delivery(ticket, FileReplyChannel("/p/.ideai/requests/a/in"))
    texts["mcp instructions"] = INSTRUCTIONS
    return texts


def mentioned_tools() -> set[str]:
    return {name for text in texts_written_for_agents().values() for name in TOOL_NAME.findall(text)}


def test_every_tool_named_for_agents_is_in_the_catalogue_and_the_reverse() -> None:
    assert mentioned_tools() == set(TOOL_NAMES)
    assert len(TOOL_NAMES) == 14


def test_file_protocol_agents_are_told_about_no_tool() -> None:
    texts = texts_written_for_agents()
    assert TOOL_NAME.findall(texts["context file (mcp=False)"]) == []
