"""The Git panel's use cases for one project: what the repository looks like now, and the gestures on
it (init, stage and unstage by file or hunk, commit, branches, paginated history with its graph)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from idea.application.git.access import RepoAccess, require_identity
from idea.application.git.ports import GitRepository
from idea.application.git.worktrees import WorktreeService
from idea.domain.errors import AppError, invalid
from idea.domain.git import graph
from idea.domain.git.diff import Diff, DiffSpec, Hunk
from idea.domain.git.model import Branch, CommitInfo, Identity, RepoFacts, StatusReport
from idea.domain.git.notices import Gesture, notices
from idea.domain.git.worktrees import WorktreeView

T = TypeVar("T")

LOG_PAGE = 100


@dataclass(frozen=True)
class GitSnapshot:
    """Everything the panel shows, read together. `facts` is None when the project is in no repository;
    `status_error` says why the status could not be read (a corrupt index, for instance)."""

    root: str
    facts: RepoFacts | None
    status: StatusReport | None = None
    status_error: str | None = None
    branches: tuple[Branch, ...] = ()
    worktrees: tuple[WorktreeView, ...] = ()
    identity: Identity | None = None
    notices: tuple[str, ...] = ()

    @property
    def has_repository(self) -> bool:
        return self.facts is not None


@dataclass(frozen=True)
class LogPage:
    commits: tuple[CommitInfo, ...]
    rows: tuple[graph.GraphRow, ...]
    lanes: graph.Lanes  # pass back to continue the graph on the next page
    next_skip: int
    has_more: bool = False


class GitService:
    def __init__(self, access: RepoAccess, worktrees: WorktreeService) -> None:
        self._access = access
        self._worktrees = worktrees

    async def snapshot(self) -> GitSnapshot:
        repo = await self._access.discover()
        if repo is None:
            return GitSnapshot(root=self._access.root, facts=None)
        base = await self._access.run(_read_snapshot)
        views = await self._worktrees.views() if not base.facts.bare else ()
        return GitSnapshot(
            root=self._access.root,
            facts=base.facts,
            status=base.status,
            status_error=base.status_error,
            branches=base.branches,
            worktrees=tuple(views),
            identity=base.identity,
            notices=tuple(notices(base.facts)),
        )

    async def diff(self, spec: DiffSpec) -> Diff:
        return await self._access.run(lambda repo: repo.diff(spec))

    # -- staging --

    async def stage(self, paths: Sequence[str]) -> None:
        await self._change(Gesture.STAGE, "stage", lambda repo: repo.stage(list(paths)))

    async def unstage(self, paths: Sequence[str]) -> None:
        await self._change(Gesture.STAGE, "unstage", lambda repo: repo.unstage(list(paths)))

    async def stage_hunk(self, path: str, hunk: Hunk) -> None:
        await self._change(Gesture.STAGE, "stage hunk", lambda repo: repo.stage_hunk(path, hunk))

    async def unstage_hunk(self, path: str, hunk: Hunk) -> None:
        await self._change(Gesture.STAGE, "unstage hunk", lambda repo: repo.unstage_hunk(path, hunk))

    # -- committing --

    async def set_identity(self, identity: Identity, everywhere: bool) -> None:
        await self._access.run(lambda repo: repo.set_identity(identity, everywhere))
        self._access.diagnostics.beacon(f"[git] author set ({'global' if everywhere else 'repository'})")

    async def commit(self, message: str) -> CommitInfo:
        """Commit what is staged with the configured author; AppError(GIT) with data
        {access.MISSING_IDENTITY: True} when no author is configured (the panel asks for one)."""
        if not message.strip():
            raise invalid("Write a commit message first.")

        commit = await self._change(
            Gesture.COMMIT, "commit", lambda repo: repo.commit(message, require_identity(repo))
        )
        self._access.diagnostics.beacon(f"[git] committed {commit.short} in {self._access.root}")
        return commit

    # -- branches --

    async def create_branch(self, name: str, start: str | None = None, switch: bool = True) -> Branch:
        branch = await self._change(Gesture.BRANCH, "branch", lambda repo: repo.create_branch(name, start))
        if switch:
            await self.switch_branch(name)
        return branch

    async def switch_branch(self, name: str) -> None:
        await self._change(Gesture.SWITCH, "switch", lambda repo: repo.switch_branch(name))
        self._access.diagnostics.beacon(f"[git] switched to {name} in {self._access.root}")

    async def delete_branch(self, name: str, force: bool = False) -> None:
        await self._change(Gesture.BRANCH, "delete branch", lambda repo: repo.delete_branch(name, force))

    async def unmerged_commits(self, branch: str, into: str) -> tuple[CommitInfo, ...]:
        return await self._access.run(lambda repo: repo.unmerged_commits(branch, into, 100))

    # -- history --

    async def log(self, skip: int = 0, lanes: graph.Lanes = ()) -> LogPage:
        commits = await self._access.run(lambda repo: repo.log(skip, LOG_PAGE + 1))
        has_more = len(commits) > LOG_PAGE
        page = commits[:LOG_PAGE]
        rows, after = graph.layout([(c.oid, c.parents) for c in page], lanes)
        return LogPage(tuple(page), tuple(rows), after, skip + len(page), has_more)

    async def _change(self, gesture: Gesture, reason: str, work: Callable[[GitRepository], T]) -> T:
        try:
            return await self._access.run_allowed(gesture, work)
        finally:
            self._access.changed(reason)


@dataclass(frozen=True)
class _Base:
    facts: RepoFacts
    status: StatusReport | None
    status_error: str | None
    branches: tuple[Branch, ...]
    identity: Identity | None


def _read_snapshot(repo: GitRepository) -> _Base:
    facts = repo.facts()
    status: StatusReport | None = None
    error: str | None = None
    if not facts.bare:
        try:
            status = repo.status()
        except AppError as exc:
            error = exc.message
    return _Base(facts, status, error, repo.branches(), repo.identity())
