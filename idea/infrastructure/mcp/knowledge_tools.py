"""The six knowledge tools (spec 03 §5.7-§5.12): memory, skills and the shared project context, one `ToolSpec`
each. `tools.TOOLS` lists them among the others, so both doors (the MCP server and the request folders) serve
them through the same validation; their handlers are the knowledge family of the dispatch
(`application/orchestrator/handlers/knowledge.py`)."""

from __future__ import annotations

from idea.domain.knowledge.commands import (
    CreateSkill,
    ProposeContext,
    ReadContext,
    ReadMemory,
    ReadSkill,
    WriteMemory,
)
from idea.domain.knowledge.context import CONTEXT_MAX_CHARS
from idea.domain.knowledge.memory import MemoryType
from idea.domain.knowledge.skill import DESCRIPTION_MAX_CHARS as SKILL_DESCRIPTION_MAX_CHARS
from idea.domain.knowledge.skill import GLOBAL, PROJECT
from idea.infrastructure.mcp.tool_spec import ToolSpec, object_schema

MEMORY_SLUG_PATTERN = "^[a-z0-9][a-z0-9-]{0,79}$"
SKILL_NAME_PATTERN = "^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$"
MEMORY_DESCRIPTION_MAX_CHARS = 200

_AGENT = {
    "type": "string",
    "description": "An agent's name as listed by idea_list_agents (case-insensitive).",
}

CREATE_SKILL = ToolSpec(
    name="idea_create_skill",
    request_type="skill.create",
    description="Save a reusable procedure as an IdeA skill so any agent can load it later.",
    input_schema=object_schema(
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
    command=lambda args: CreateSkill(
        name=args["name"],
        content=args["content"],
        description=args.get("description"),
        scope=GLOBAL if args.get("scope") == GLOBAL else PROJECT,
    ),
)

READ_CONTEXT = ToolSpec(
    name="idea_context_read",
    request_type="context.read",
    description=(
        "Read the project's shared context (.ideai/CONTEXT.md), or an agent's role file when `target` names "
        "that agent."
    ),
    input_schema=object_schema({"target": _AGENT}),
    command=lambda args: ReadContext(target=args.get("target")),
)

PROPOSE_CONTEXT = ToolSpec(
    name="idea_context_propose",
    request_type="context.propose",
    description=(
        "Change the project's shared context: written at once when you are the orchestrator, otherwise filed "
        "as a proposal the user or the orchestrator accepts or rejects. With `target`, replace that agent's "
        "role file instead (your own, or anyone's if you are the orchestrator)."
    ),
    input_schema=object_schema(
        {
            "content": {
                "type": "string",
                "minLength": 1,
                "maxLength": CONTEXT_MAX_CHARS,
                "description": "The whole new text, in Markdown.",
            },
            "target": _AGENT,
        },
        required=("content",),
    ),
    command=lambda args: ProposeContext(content=args["content"], target=args.get("target")),
)

READ_MEMORY = ToolSpec(
    name="idea_memory_read",
    request_type="memory.read",
    description=(
        "Read the team's durable memory: the index of notes, or the note named by `slug` (as listed in the "
        "index)."
    ),
    input_schema=object_schema({"slug": {"type": "string", "pattern": MEMORY_SLUG_PATTERN}}),
    command=lambda args: ReadMemory(slug=args.get("slug")),
)

WRITE_MEMORY = ToolSpec(
    name="idea_memory_write",
    request_type="memory.write",
    description=(
        "Save a durable note for the team (a decision, a pitfall, a how-to), replacing the note with the same "
        "slug. Do not save transient status."
    ),
    input_schema=object_schema(
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
            "type": {
                "type": "string",
                "enum": [kind.value for kind in MemoryType],
                # No schema default: when absent, a front matter in `content` decides, else "project".
                "description": "What kind of note; when absent, the content's front matter says, else project.",
            },
        },
        required=("slug", "content"),
    ),
    command=lambda args: WriteMemory(
        slug=args["slug"],
        content=args["content"],
        description=args.get("description"),
        type=MemoryType(args["type"]) if "type" in args else None,
    ),
)

READ_SKILL = ToolSpec(
    name="idea_skill_read",
    request_type="skill.read",
    description="Load a skill's procedure by name before applying it (project skills first, then global ones).",
    input_schema=object_schema({"name": {"type": "string", "minLength": 1}}, required=("name",)),
    command=lambda args: ReadSkill(name=args["name"]),
)

# In the catalogue's order (spec 03 §5): the file-guarded tools, then skill awareness.
KNOWLEDGE_TOOLS: tuple[ToolSpec, ...] = (
    CREATE_SKILL,
    READ_CONTEXT,
    PROPOSE_CONTEXT,
    READ_MEMORY,
    WRITE_MEMORY,
    READ_SKILL,
)
