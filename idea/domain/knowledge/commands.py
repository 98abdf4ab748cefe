"""The commands of the six knowledge tools (spec 03 §2, §5.7-§5.12), built by every door like the orchestration
commands of `orchestration/commands.py`. The requester is never a field: it comes from the door."""

from __future__ import annotations

from dataclasses import dataclass

from idea.domain.agent import SkillScope
from idea.domain.knowledge.memory import MemoryType


@dataclass(frozen=True)
class ReadMemory:
    """`idea_memory_read`: no slug -> the index `MEMORY.md`; a slug -> that note."""

    slug: str | None = None


@dataclass(frozen=True)
class WriteMemory:
    """`idea_memory_write`: create or replace a note (there is no delete tool)."""

    slug: str
    content: str
    description: str | None = None
    type: MemoryType | None = None  # None: the content's front matter decides, else "project"


@dataclass(frozen=True)
class ReadSkill:
    """`idea_skill_read`: a skill's body by name, project scope first."""

    name: str


@dataclass(frozen=True)
class CreateSkill:
    """`idea_create_skill`."""

    name: str
    content: str
    description: str | None = None
    scope: SkillScope = "project"


@dataclass(frozen=True)
class ReadContext:
    """`idea_context_read`: no target -> `.ideai/CONTEXT.md`; a target -> that agent's persona."""

    target: str | None = None


@dataclass(frozen=True)
class ProposeContext:
    """`idea_context_propose`: no target -> the project context (written by the orchestrator, proposed by
    anyone else); a target -> that agent's persona (itself or the orchestrator only)."""

    content: str
    target: str | None = None


KnowledgeCommand = ReadMemory | WriteMemory | ReadSkill | CreateSkill | ReadContext | ProposeContext
