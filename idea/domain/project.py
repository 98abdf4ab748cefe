"""Projects: the registry of known project folders and the runtime block of the project's .gitignore."""

from __future__ import annotations

from pydantic import Field

from idea.domain.documents import CamelDocument
from idea.domain.ids import ProjectId

IDEAI_DIR = ".ideai"
RECENT_PROJECTS_MAX = 12

GITIGNORE_BEGIN = "# >>> IdeA runtime (managed by IdeA — do not edit inside this block)"
GITIGNORE_END = "# <<< IdeA runtime"
GITIGNORED_RUNTIME_PATHS = (
    ".ideai/layouts.json",
    ".ideai/running.json",
    ".ideai/live-state.json",
    ".ideai/providers.json",
    ".ideai/conversations/",
    ".ideai/requests/",
    ".ideai/reviews/",
    ".ideai/run/",
)


class ProjectRecord(CamelDocument):
    id: ProjectId
    name: str
    root: str
    last_opened_at_ms: int = 0
    worktree_setup: str | None = None  # run in a new agent worktree, e.g. "npm ci" (spec 07 §2)


class ProjectRegistry(CamelDocument):
    version: int = 1
    projects: tuple[ProjectRecord, ...] = Field(default_factory=tuple)

    def by_root(self, root: str) -> ProjectRecord | None:
        return next((p for p in self.projects if p.root == root), None)

    def by_id(self, project_id: ProjectId) -> ProjectRecord | None:
        return next((p for p in self.projects if p.id == project_id), None)

    def touched(self, record: ProjectRecord, at_ms: int) -> ProjectRegistry:
        """The registry with `record` (new or known) marked as opened at `at_ms`."""
        updated = record.model_copy(update={"last_opened_at_ms": at_ms})
        others = tuple(p for p in self.projects if p.id != record.id and p.root != record.root)
        return self.model_copy(update={"projects": (*others, updated)})

    def recent(self, limit: int = RECENT_PROJECTS_MAX) -> list[ProjectRecord]:
        return sorted(self.projects, key=lambda p: p.last_opened_at_ms, reverse=True)[:limit]


def with_managed_gitignore_block(text: str) -> str:
    """`text` with IdeA's runtime block present and current; lines outside the markers are untouched."""
    block = "\n".join((GITIGNORE_BEGIN, *GITIGNORED_RUNTIME_PATHS, GITIGNORE_END))
    lines = text.splitlines()
    try:
        begin = lines.index(GITIGNORE_BEGIN)
        end = lines.index(GITIGNORE_END, begin)
    except ValueError:
        if not text.strip():
            return f"{block}\n"
        prefix = text if text.endswith("\n") else text + "\n"
        return f"{prefix}\n{block}\n"
    rebuilt = [*lines[:begin], *block.split("\n"), *lines[end + 1 :]]
    return "\n".join(rebuilt) + "\n"
