"""Events of a project's knowledge (spec 00 §5.4): published by the knowledge services, wrapped like the
orchestration core's in `OrchestrationNews(project_id, event)` by the project runtime."""

from __future__ import annotations

from dataclasses import dataclass

from idea.domain.agent import SkillScope


@dataclass(frozen=True)
class MemorySaved:
    """A memory note was written (by a tool, the person, or a harvest)."""

    slug: str


@dataclass(frozen=True)
class MemoryDeleted:
    slug: str


@dataclass(frozen=True)
class SkillsChanged:
    scope: SkillScope


@dataclass(frozen=True)
class ProjectContextChanged:
    """`.ideai/CONTEXT.md` was written."""


@dataclass(frozen=True)
class ProposalFiled:
    file_name: str
    author: str


@dataclass(frozen=True)
class ProposalResolved:
    file_name: str
    accepted: bool
