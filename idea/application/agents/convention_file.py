"""The convention file an agent reads at launch (spec 02 §11), composed by one pure function.

Sections, in this order, each omitted when empty: project root, IdeA orchestration, available skills, project
context, role, project memory, project state, conversation resume. Agents reachable over MCP are told about
`idea_*` tools; file-protocol agents only about files, and their text names no such tool.
"""

from __future__ import annotations

from dataclasses import dataclass

from idea.domain.knowledge.handoff import RESUME_HEADING, bound_summary
from idea.domain.knowledge.memory import MemoryPointerLine as MemoryPointer
from idea.domain.orchestration.live_state import LiveStateRow

SKILL_DESCRIPTION_MAX_CHARS = 160
MEMORY_INJECT_MAX_ENTRIES = 60
MEMORY_DESCRIPTION_MAX_CHARS = 160
LIVE_STATE_INJECT_MAX = 16
TICKET_PREFIX_CHARS = 8

NO_PERMISSION_POLICY = "IdeA sets no permission policy; your CLI asks the user as usual."
PROJECT_ROOT_SENTENCE = (
    "Work on this project by absolute path; your current directory is your private IdeA run directory."
)
WORKTREE_SENTENCE = (
    "This is your own git worktree, on branch `{branch}`: work and commit there; the person merges your branch "
    "from IdeA's Git panel. IdeA's shared files (`.ideai/`) stay in the main project, {main_root}."
)

MEMORY_HARVEST_DIRECTIVE = """\
To save durable knowledge for the team (a decision, a pitfall, a how-to), end your reply with a block:
```idea-memory
slug: short-kebab-case-id
title: One-line title
description: One-line summary shown in the index
type: project | reference | feedback
---
The note in Markdown.
```
Only explicit blocks are saved. Do not save transient status."""


@dataclass(frozen=True)
class OrchestrationTexts:
    """The two variants of section 2 (idea/resources/prompts/orchestration_{mcp,file}.md), with placeholders
    `{agentName}`, `{permissionSummary}`, `{projectRoot}` and `{requestsDir}`."""

    mcp: str
    file: str


@dataclass(frozen=True)
class SkillBrief:
    name: str
    description: str
    body: str = ""  # injected only for file-protocol agents, which cannot load a skill on demand


@dataclass(frozen=True)
class ComposeInputs:
    project_root: str
    agent_id: str
    agent_name: str
    uses_mcp: bool  # Profile.materializes_idea_bridge() of the launched profile
    orchestration: OrchestrationTexts
    requests_dir: str = ""  # absolute `.ideai/requests/<agentId>` of a file-protocol agent
    permission_summary: str | None = None  # None: no policy is set
    skills: tuple[SkillBrief, ...] = ()  # assigned skills only
    project_context: str = ""  # `.ideai/CONTEXT.md`
    persona: str = ""
    memory: tuple[MemoryPointer, ...] = ()  # index order
    live_state: tuple[LiveStateRow, ...] = ()  # manifest order
    handoff: str = ""  # body of the launch conversation's handoff, without front-matter (bounded here again)
    main_root: str = ""  # set when `project_root` is the agent's own worktree: where `.ideai/` is (spec 07 §2)
    worktree_branch: str = ""


def compose_convention_file(inputs: ComposeInputs) -> str:
    sections = [
        _section("# Project root", _project_root(inputs)),
        _orchestration(inputs),
        _section("# Available skills", _skills(inputs)),
        _section("# Project context", inputs.project_context),
        _section("# Role", inputs.persona),
        _section("# Project memory", _memory(inputs)),
        _section("# Project state", _live_state(inputs)),
        _section(RESUME_HEADING, bound_summary(inputs.handoff.strip())),  # bounded again on injection
    ]
    return "\n\n".join(section for section in sections if section) + "\n"


def _project_root(inputs: ComposeInputs) -> str:
    lines = [inputs.project_root, PROJECT_ROOT_SENTENCE]
    if inputs.main_root:
        lines.insert(1, WORKTREE_SENTENCE.format(branch=inputs.worktree_branch, main_root=inputs.main_root))
    return "\n\n".join(lines)


def _section(heading: str, body: str) -> str:
    body = body.strip("\n")
    return f"{heading}\n\n{body}" if body.strip() else ""


def _orchestration(inputs: ComposeInputs) -> str:
    template = inputs.orchestration.mcp if inputs.uses_mcp else inputs.orchestration.file
    values = {
        "{agentName}": inputs.agent_name,
        "{permissionSummary}": (inputs.permission_summary or "").strip() or NO_PERMISSION_POLICY,
        "{projectRoot}": inputs.main_root or inputs.project_root,  # where `.ideai/` is
        "{requestsDir}": inputs.requests_dir,
    }
    text = template
    for placeholder, value in values.items():
        text = text.replace(placeholder, value)
    return text.strip()


def _flattened(text: str, max_chars: int) -> str:
    return " ".join(text.split())[:max_chars].rstrip()


def _pointer(label: str, description: str) -> str:
    return f"- {label} — {description}" if description else f"- {label}"


def _skills(inputs: ComposeInputs) -> str:
    if not inputs.skills:
        return ""
    if inputs.uses_mcp:
        lines = [
            _pointer(f"**{skill.name}**", _flattened(skill.description, SKILL_DESCRIPTION_MAX_CHARS))
            for skill in inputs.skills
        ]
        return "\n".join(lines) + "\n\nLoad a skill with `idea_skill_read(name=…)` before applying it."
    blocks = []
    for skill in inputs.skills:
        parts = [f"## {skill.name}", _flattened(skill.description, SKILL_DESCRIPTION_MAX_CHARS), skill.body.strip()]
        blocks.append("\n\n".join(part for part in parts if part))
    return "\n\n".join(blocks)


def _memory(inputs: ComposeInputs) -> str:
    if not inputs.memory:
        return ""
    shown = inputs.memory[:MEMORY_INJECT_MAX_ENTRIES]
    lines = [
        _pointer(f"[{note.slug}]({note.slug}.md)", _flattened(note.description, MEMORY_DESCRIPTION_MAX_CHARS))
        for note in shown
    ]
    hidden = len(inputs.memory) - len(shown)
    if inputs.uses_mcp:
        lead = "Durable notes shared by the team. Read a note with `idea_memory_read(slug=…)`."
        overflow = f"… {hidden} more notes: call idea_memory_read() for the full index"
    else:
        lead = "Durable notes shared by the team, one file per note in `.ideai/memory/` under the project root."
        overflow = f"… {hidden} more notes: read .ideai/memory/MEMORY.md for the full index"
    if hidden:
        lines.append(overflow)
    return f"{lead}\n\n" + "\n".join(lines) + f"\n\n{MEMORY_HARVEST_DIRECTIVE}"


def _live_state(inputs: ComposeInputs) -> str:
    others = [row for row in inputs.live_state if row.agent_id != inputs.agent_id][:LIVE_STATE_INJECT_MAX]
    return "\n".join(_live_state_line(row) for row in others)


def _live_state_line(row: LiveStateRow) -> str:
    line = f"- **{row.agent_name}** — {row.status}"
    intent = " ".join(row.intent.split())
    if intent:
        line += f": {intent}"
    if row.ticket_id:
        line += f" (ticket {row.ticket_id.replace('-', '')[:TICKET_PREFIX_CHARS]})"
    return line
