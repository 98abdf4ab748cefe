"""The six knowledge tools as MCP clients will receive them (spec 03 §5.7-§5.12): descriptions, input schemas,
and the parsing of their arguments into knowledge commands. Also the request types of the file-protocol
door that carry the same arguments.

They join `TOOL_DEFINITIONS` (in the order of `SPEC_TOOL_ORDER`) only once their handlers are registered on
the dispatch: a tool is never advertised before it is served.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from idea.domain.knowledge_commands import (
    CreateSkill,
    KnowledgeCommand,
    ProposeContext,
    ReadContext,
    ReadMemory,
    ReadSkill,
    WriteMemory,
)
from idea.domain.memory import MemoryType
from idea.domain.skill import DESCRIPTION_MAX_CHARS as SKILL_DESCRIPTION_MAX_CHARS
from idea.domain.skill import GLOBAL, PROJECT
from idea.infrastructure.mcp.tools import RESULT_MAX_CHARS, _object, checked_arguments

MEMORY_SLUG_PATTERN = "^[a-z0-9][a-z0-9-]{0,79}$"
SKILL_NAME_PATTERN = "^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$"
MEMORY_DESCRIPTION_MAX_CHARS = 200

_AGENT = {
    "type": "string",
    "description": "An agent's name as listed by idea_list_agents (case-insensitive).",
}

KNOWLEDGE_TOOL_DEFINITIONS: tuple[dict[str, Any], ...] = (
    {
        "name": "idea_create_skill",
        "description": "Save a reusable procedure as an IdeA skill so any agent can load it later.",
        "inputSchema": _object(
            {
                "name": {
                    "type": "string",
                    "pattern": SKILL_NAME_PATTERN,
                    "description": "Short name, for example 'build-appimage'; unique in its scope.",
                },
                "content": {"type": "string", "minLength": 1, "description": "The procedure, in Markdown."},
                "description": {
                    "type": "string",
                    "maxLength": SKILL_DESCRIPTION_MAX_CHARS,
                    "description": "One line telling when to use it.",
                },
                "scope": {"type": "string", "enum": [PROJECT, GLOBAL], "default": PROJECT},
            },
            required=("name", "content"),
        ),
    },
    {
        "name": "idea_context_read",
        "description": (
            "Read the project's shared context (.ideai/CONTEXT.md), or an agent's role file when `target` "
            "names that agent."
        ),
        "inputSchema": _object({"target": _AGENT}),
    },
    {
        "name": "idea_context_propose",
        "description": (
            "Change the project's shared context: written at once when you are the orchestrator, otherwise "
            "filed as a proposal the user or the orchestrator accepts or rejects. With `target`, replace that "
            "agent's role file instead (your own, or anyone's if you are the orchestrator)."
        ),
        "inputSchema": _object(
            {
                "content": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": RESULT_MAX_CHARS,
                    "description": "The whole new text, in Markdown.",
                },
                "target": _AGENT,
            },
            required=("content",),
        ),
    },
    {
        "name": "idea_memory_read",
        "description": (
            "Read the team's durable memory: the index of notes, or the note named by `slug` (as listed in "
            "the index)."
        ),
        "inputSchema": _object({"slug": {"type": "string", "pattern": MEMORY_SLUG_PATTERN}}),
    },
    {
        "name": "idea_memory_write",
        "description": (
            "Save a durable note for the team (a decision, a pitfall, a how-to), replacing the note with the "
            "same slug. Do not save transient status."
        ),
        "inputSchema": _object(
            {
                "slug": {
                    "type": "string",
                    "pattern": MEMORY_SLUG_PATTERN,
                    "description": "Short kebab-case id, for example 'git-owns-merges'.",
                },
                "content": {"type": "string", "minLength": 1, "description": "The note, in Markdown."},
                "description": {
                    "type": "string",
                    "maxLength": MEMORY_DESCRIPTION_MAX_CHARS,
                    "description": "One line shown in the index.",
                },
                "type": {"type": "string", "enum": [t.value for t in MemoryType], "default": MemoryType.PROJECT.value},
            },
            required=("slug", "content"),
        ),
    },
    {
        "name": "idea_skill_read",
        "description": "Load a skill's procedure by name before applying it (project skills first, then global ones).",
        "inputSchema": _object({"name": {"type": "string", "minLength": 1}}, required=("name",)),
    },
)

KNOWLEDGE_TOOL_NAMES: tuple[str, ...] = tuple(tool["name"] for tool in KNOWLEDGE_TOOL_DEFINITIONS)

# The catalogue's order once all 14 are served (original groups: base 7, file-guarded 4, skill awareness 1,
# live-state 2).
SPEC_TOOL_ORDER: tuple[str, ...] = (
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

# File-protocol request type -> the tool whose arguments it carries.
KNOWLEDGE_REQUEST_TYPES: dict[str, str] = {
    "skill.create": "idea_create_skill",
    "skill.read": "idea_skill_read",
    "context.read": "idea_context_read",
    "context.propose": "idea_context_propose",
    "memory.read": "idea_memory_read",
    "memory.write": "idea_memory_write",
}

_SCHEMAS = {tool["name"]: tool["inputSchema"] for tool in KNOWLEDGE_TOOL_DEFINITIONS}
_COMMANDS: dict[str, Callable[[dict[str, str]], KnowledgeCommand]] = {
    "idea_create_skill": lambda args: CreateSkill(
        name=args["name"],
        content=args["content"],
        description=args.get("description"),
        scope=GLOBAL if args.get("scope") == GLOBAL else PROJECT,
    ),
    "idea_context_read": lambda args: ReadContext(target=args.get("target")),
    "idea_context_propose": lambda args: ProposeContext(content=args["content"], target=args.get("target")),
    "idea_memory_read": lambda args: ReadMemory(slug=args.get("slug")),
    "idea_memory_write": lambda args: WriteMemory(
        slug=args["slug"],
        content=args["content"],
        description=args.get("description"),
        type=MemoryType(args["type"]) if "type" in args else None,
    ),
    "idea_skill_read": lambda args: ReadSkill(name=args["name"]),
}


def parse_knowledge_tool_call(
    name: str,
    arguments: Mapping[str, Any] | None,
    *,
    label: str | None = None,
    field_names: Mapping[str, str] | None = None,
) -> KnowledgeCommand:
    """The knowledge command a tool call asks for; AppError(INVALID_ARGUMENTS) naming the field otherwise.
    KeyError for a tool that is not a knowledge tool."""
    schema = _SCHEMAS[name]
    checked = checked_arguments(name, schema, arguments, label=label, field_names=field_names)
    given = arguments if isinstance(arguments, Mapping) else {}
    for key, rules in schema["properties"].items():  # a default only documents what applies when absent
        if "default" in rules and not (isinstance(given.get(key), str) and given[key].strip()):
            checked.pop(key, None)
    return _COMMANDS[name](checked)


def in_spec_order(definitions: Sequence[dict[str, Any]]) -> tuple[dict[str, Any], ...]:
    """Tool definitions sorted as the catalogue lists them (unknown names last, in their given order)."""
    rank = {name: position for position, name in enumerate(SPEC_TOOL_ORDER)}
    return tuple(sorted(definitions, key=lambda tool: rank.get(tool["name"], len(rank))))
