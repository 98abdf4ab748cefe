"""The `idea_*` tools: the catalogue MCP clients receive (spec 03 §5), the request-file type of each (§6),
and the one validation of their arguments, shared by every door that speaks in tool arguments (the MCP
server, the request folders). `TOOLS` is the one table both doors read: the orchestration tools below and the
knowledge tools of `knowledge_tools.py`, in the catalogue's order.

The JSON schemas below are the rules: `parse_tool_call` checks arguments against them, so what a model is
told and what IdeA enforces cannot drift apart. Identity is never an argument; it comes from the door.
Every string an agent sends passes the domain's text rule (`idea.domain.agent_text`) here, for every tool
and both doors, before any command is built.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Mapping
from typing import Any

from idea.domain.agent_text import clean_agent_text
from idea.domain.errors import AppError, ErrorCode
from idea.domain.orchestration.commands import (
    AskAgent,
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
from idea.infrastructure.mcp.knowledge_tools import KNOWLEDGE_TOOLS
from idea.infrastructure.mcp.tool_spec import ToolCommand, ToolSpec
from idea.infrastructure.mcp.tool_spec import object_schema as _object

MAX_ARGUMENTS_BYTES = 1024 * 1024
TASK_MAX_CHARS = 100_000
RESULT_MAX_CHARS = 200_000
FIELD_NAME_SHOWN = 64  # an unknown argument's name is quoted back at most this long

_TARGET = {
    "type": "string",
    "minLength": 1,
    "description": "Agent name as listed by idea_list_agents (case-insensitive).",
}


# Adding a tool is one entry here (or in `knowledge_tools.py`) and its place in CATALOGUE_ORDER, plus a handler
# registered on the dispatch; both doors read TOOLS.
_ORCHESTRATION_TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="idea_list_agents",
        request_type="agent.list",
        description="List the agents of this IdeA project: role, whether they run, what they are doing.",
        input_schema=_object({}),
        command=lambda args: ListAgents(),
    ),
    ToolSpec(
        name="idea_ask_agent",
        request_type="agent.message",
        description=(
            "Delegate a task to another agent and wait for its answer. Starts the agent if needed. Give "
            "complete, self-contained instructions: the target does not see your conversation."
        ),
        input_schema=_object(
            {
                "target": _TARGET,
                "task": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": TASK_MAX_CHARS,
                    "description": "The full task.",
                },
            },
            required=("target", "task"),
        ),
        command=lambda args: AskAgent(target=args["target"], task=args["task"]),
    ),
    ToolSpec(
        name="idea_reply",
        request_type="agent.reply",
        description=(
            "Return the result of a task IdeA delivered to you (a message starting with "
            "'[IdeA · task from …]'). Always call this when you finish a delegated task."
        ),
        input_schema=_object(
            {
                "result": {"type": "string", "minLength": 1, "maxLength": RESULT_MAX_CHARS},
                "ticket": {"type": "string", "description": "The ticket id from the task header. Recommended."},
            },
            required=("result",),
        ),
        command=lambda args: Reply(result=args["result"], ticket=args.get("ticket")),
    ),
    ToolSpec(
        name="idea_launch_agent",
        request_type="agent.launch",
        description=(
            "Start a teammate (visible in a free cell, or in the background). Optionally give it a task that "
            "needs no answer; use idea_ask_agent when you need the result."
        ),
        input_schema=_object(
            {
                "target": _TARGET,
                "visibility": {"type": "string", "enum": ["visible", "background"], "default": "visible"},
                "nodeId": {
                    "type": "string",
                    "format": "uuid",
                    "description": "Cell id (UUID) to use; must be empty.",
                },
                "task": {
                    "type": "string",
                    "maxLength": TASK_MAX_CHARS,
                    "description": "Fire-and-forget task; no reply is awaited.",
                },
            },
            required=("target",),
        ),
        command=lambda args: LaunchAgent(
            target=args["target"],
            visibility=Visibility(args["visibility"]),
            node_id=args.get("nodeId"),
            task=args.get("task"),
        ),
    ),
    ToolSpec(
        name="idea_stop_agent",
        request_type="agent.stop",
        description="Stop a running teammate (orchestrator only).",
        input_schema=_object({"target": _TARGET}, required=("target",)),
        command=lambda args: StopAgent(target=args["target"]),
    ),
    ToolSpec(
        name="idea_update_context",
        request_type="agent.context.update",
        description="Replace an agent's role file (its persona). Takes effect at its next launch.",
        input_schema=_object(
            {
                "target": _TARGET,
                "content": {"type": "string", "minLength": 1, "maxLength": RESULT_MAX_CHARS},
            },
            required=("target", "content"),
        ),
        command=lambda args: UpdateAgentContext(target=args["target"], content=args["content"]),
    ),
    ToolSpec(
        name="idea_workstate_read",
        request_type="workstate.read",
        description="Read the team's live work state: who is working on what, for which ticket.",
        input_schema=_object({}),
        command=lambda args: ReadWorkState(),
    ),
    ToolSpec(
        name="idea_workstate_set",
        request_type="workstate.set",
        description="Set your own row of the team's live work state: your status and what you are doing.",
        input_schema=_object(
            {
                "status": {"type": "string", "enum": ["idle", "working", "waiting", "blocked", "done"]},
                "intent": {"type": "string"},
                "progress": {"type": "string"},
            },
            required=("status",),
        ),
        command=lambda args: SetWorkState(
            status=WorkStatus(args["status"]), intent=args.get("intent"), progress=args.get("progress")
        ),
    ),
)

# The catalogue's order (spec 03 §5): base 7, file-guarded 4, skill awareness 1, live-state 2.
CATALOGUE_ORDER: tuple[str, ...] = (
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
TOOLS: tuple[ToolSpec, ...] = tuple(
    sorted((*_ORCHESTRATION_TOOLS, *KNOWLEDGE_TOOLS), key=lambda tool: CATALOGUE_ORDER.index(tool.name))
)
TOOL_DEFINITIONS: tuple[dict[str, Any], ...] = tuple(tool.definition() for tool in TOOLS)
TOOL_NAMES: tuple[str, ...] = tuple(tool.name for tool in TOOLS)
REQUEST_TYPES: dict[str, str] = {tool.request_type: tool.name for tool in TOOLS}  # request type -> tool name
_BY_NAME: dict[str, ToolSpec] = {tool.name: tool for tool in TOOLS}


def parse_tool_call(
    name: str,
    arguments: Mapping[str, Any] | None,
    *,
    label: str | None = None,
    field_names: Mapping[str, str] | None = None,
) -> ToolCommand:
    """The command a tool call asks for, its arguments checked once against the tool's schema.

    Strings follow the domain's text rule and are trimmed; an empty optional string counts as absent (its
    default applies). Every violation is AppError(INVALID_ARGUMENTS) with a message that names the field
    and tells the model what to fix. `label` and `field_names` let another door word those messages in its
    own vocabulary (a request type, `targetAgent` for `target`).
    """
    words = _Wording(label or name, field_names or {})
    tool = _BY_NAME.get(name)
    if tool is None:
        raise words.invalid(f"unknown tool {name}")
    arguments = {} if arguments is None else arguments
    if not isinstance(arguments, Mapping):
        raise words.invalid("the arguments must be a JSON object")
    try:
        size = len(json.dumps(arguments, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass"))
    except (TypeError, ValueError, RecursionError):
        raise words.invalid("the arguments must be plain JSON, nested no deeper than any tool needs") from None
    if size > MAX_ARGUMENTS_BYTES:
        raise words.invalid(
            f"the arguments take {size} bytes, more than the limit of {MAX_ARGUMENTS_BYTES} bytes; write the "
            "material to a file of the project and refer to its path instead"
        )
    values = _checked(tool.input_schema, arguments, words)
    try:
        return tool.command(values)
    except KeyError as missing:  # a builder reading a field its schema lets be absent
        raise words.invalid(f"{words.field(str(missing.args[0]))} is required") from None
    except (TypeError, ValueError) as exc:
        raise words.invalid(f"the arguments cannot make a {name} call: {exc}") from None


class _Wording:
    def __init__(self, label: str, field_names: Mapping[str, str]) -> None:
        self.label = label
        self._field_names = field_names

    def field(self, name: str) -> str:
        shown = self._field_names.get(name, name)[:FIELD_NAME_SHOWN]
        if not shown.strip() or clean_agent_text(shown) != shown:
            shown = json.dumps(shown)[1:-1]  # control characters shown as JSON escapes
        return f"`{shown}`"

    def invalid(self, problem: str) -> AppError:
        return AppError(ErrorCode.INVALID_ARGUMENTS, f"{self.label}: {problem}")


def _checked(schema: dict[str, Any], arguments: Mapping[str, Any], words: _Wording) -> dict[str, str]:
    properties: dict[str, dict[str, Any]] = schema["properties"]
    required = set(schema.get("required", ()))
    unknown = [key for key in arguments if key not in properties]
    if unknown:
        accepted = ", ".join(words.field(key) for key in properties) or "none"
        raise words.invalid(
            f"unknown argument {', '.join(map(words.field, unknown))}; accepted arguments: {accepted}"
        )
    values: dict[str, str] = {}
    for key, rules in properties.items():
        field = words.field(key)
        raw = arguments.get(key)
        if raw is not None and not isinstance(raw, str):
            raise words.invalid(f"{field} must be a string, not {_json_type(raw)}")
        text = "" if raw is None else clean_agent_text(raw).strip()
        if not text:
            if key in required:
                raise words.invalid(f"{field} is required" if raw is None else f"{field} must not be empty")
            if "default" in rules:
                values[key] = rules["default"]
            continue
        values[key] = _conforming(text, rules, field, words)
    return values


def _conforming(text: str, rules: dict[str, Any], field: str, words: _Wording) -> str:
    if "enum" in rules:
        choice = text.lower()
        if choice not in rules["enum"]:
            options = ", ".join(f'"{option}"' for option in rules["enum"])
            raise words.invalid(f'{field} must be one of {options}, not "{text[:40]}"')
        return choice
    limit = rules.get("maxLength")
    if limit is not None and len(text) > limit:
        raise words.invalid(
            f"{field} has {len(text)} characters, more than the limit of {limit}; shorten it or write the "
            "material to a file of the project and refer to its path"
        )
    pattern = rules.get("pattern")
    if pattern is not None and re.fullmatch(pattern, text) is None:
        raise words.invalid(f'{field} "{text[:60]}" does not match the pattern {pattern}')
    if rules.get("format") == "uuid":
        try:
            return str(uuid.UUID(text))
        except ValueError:
            raise words.invalid(f'{field} must be a UUID, not "{text[:40]}"') from None
    return text


def _json_type(value: object) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, Mapping):
        return "an object"
    if isinstance(value, list | tuple):
        return "an array"
    return type(value).__name__
