"""One repository through pygit2: the `GitRepository` port, each operation delegated to the module that
knows it (facts and status, diffs and hunks, history and branches, worktrees and merges)."""

from __future__ import annotations

import os
from collections.abc import Sequence

import pygit2

from idea.domain.errors import AppError, ErrorCode
from idea.domain.git.diff import Diff, DiffSpec, Hunk
from idea.domain.git.model import Branch, CommitInfo, Identity, RepoFacts, StatusReport
from idea.domain.git.worktrees import MergeOutcome, WorktreeInfo
from idea.infrastructure.git import diffs, history, worktrees
from idea.infrastructure.git.errors import git_errors
from idea.infrastructure.git.facts import read_facts, read_status


def open_repository(git_dir: str) -> Pygit2Repository:
    with git_errors(f"open the repository {git_dir}"):
        return Pygit2Repository(pygit2.Repository(git_dir))


class Pygit2Repository:
    """One repository; not for use from two threads at once (the use cases serialise their calls)."""

    def __init__(self, repo: pygit2.Repository) -> None:
        self._repo = repo

    @property
    def git_dir(self) -> str:
        return str(self._repo.path).rstrip("/")

    @property
    def workdir(self) -> str | None:
        return self._repo.workdir.rstrip("/") if self._repo.workdir else None

    def facts(self) -> RepoFacts:
        return read_facts(self._repo)

    def status(self) -> StatusReport:
        if self._repo.workdir is None:
            raise AppError(ErrorCode.GIT, "A bare repository has no working tree, hence no status.")
        return read_status(self._repo)

    def diff(self, spec: DiffSpec, context_lines: int = diffs.CONTEXT_LINES) -> Diff:
        return diffs.compute_diff(self._repo, spec, context_lines)

    def read_new_side(self, spec: DiffSpec, path: str) -> str | None:
        return diffs.read_new_side(self._repo, spec, path)

    def stage(self, paths: Sequence[str]) -> None:
        history.stage(self._repo, paths)

    def unstage(self, paths: Sequence[str]) -> None:
        history.unstage(self._repo, paths)

    def stage_hunk(self, path: str, hunk: Hunk) -> None:
        diffs.stage_hunk(self._repo, path, hunk)

    def unstage_hunk(self, path: str, hunk: Hunk) -> None:
        diffs.unstage_hunk(self._repo, path, hunk)

    def identity(self) -> Identity | None:
        return history.identity(self._repo)

    def set_identity(self, identity: Identity, everywhere: bool) -> None:
        history.set_identity(self._repo, identity, everywhere)

    def commit(self, message: str, author: Identity) -> CommitInfo:
        return history.commit(self._repo, message, author)

    def branches(self) -> tuple[Branch, ...]:
        return history.branches(self._repo, worktrees.checked_out_elsewhere(self._repo))

    def create_branch(self, name: str, start: str | None) -> Branch:
        return history.create_branch(self._repo, name, start)

    def switch_branch(self, name: str) -> None:
        history.switch_branch(self._repo, name, worktrees.checked_out_elsewhere(self._repo).get(name))

    def delete_branch(self, name: str, force: bool) -> None:
        history.delete_branch(self._repo, name, force)

    def unmerged_commits(self, branch: str, into: str, limit: int) -> tuple[CommitInfo, ...]:
        return history.unmerged_commits(self._repo, branch, into, limit)

    def log(self, skip: int, limit: int) -> tuple[CommitInfo, ...]:
        return history.log(self._repo, skip, limit)

    def worktrees(self) -> tuple[WorktreeInfo, ...]:
        return worktrees.list_worktrees(self._repo)

    def add_worktree(self, name: str, path: str, branch: str, base: str) -> WorktreeInfo:
        return worktrees.add_worktree(self._repo, name, os.path.abspath(path), branch, base)

    def remove_worktree(self, name: str) -> None:
        worktrees.remove_worktree(self._repo, name)

    def prune_worktrees(self) -> tuple[str, ...]:
        return worktrees.prune_worktrees(self._repo)

    def ahead_behind(self, branch: str, base: str) -> tuple[int, int]:
        return worktrees.ahead_behind(self._repo, branch, base)

    def worktree_status(self, path: str) -> StatusReport:
        return worktrees.worktree_status(path)

    def merge(self, branch: str, into: str, author: Identity) -> MergeOutcome:
        return worktrees.merge(self._repo, branch, into, author)

    def get_config(self, key: str) -> str | None:
        try:
            return str(self._repo.config[key])
        except (KeyError, pygit2.GitError, UnicodeError):
            return None

    def set_config(self, key: str, value: str) -> None:
        with git_errors(f"save {key}"):
            self._repo.config[key] = value
