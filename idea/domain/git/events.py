"""Events of the git integration, published on the event bus."""

from __future__ import annotations

from dataclasses import dataclass

from idea.domain.ids import ProjectId


@dataclass(frozen=True)
class GitChanged:
    """Something the Git panel shows may have changed (files, index, branches, worktrees, reviews)."""

    project_id: ProjectId
    reason: str
