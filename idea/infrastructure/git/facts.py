"""Reading a repository's state: HEAD, the half-done operation, the lock, the status."""

from __future__ import annotations

import os

import pygit2
from pygit2.enums import FileStatus, RepositoryState

from idea.domain.errors import AppError, ErrorCode
from idea.domain.git.model import ChangeKind, Head, RepoFacts, RepoState, StatusEntry, StatusReport
from idea.domain.wording import counted
from idea.infrastructure.git.errors import git_errors

_STATES = {
    RepositoryState.NONE: RepoState.NONE,
    RepositoryState.MERGE: RepoState.MERGE,
    RepositoryState.REVERT: RepoState.REVERT,
    RepositoryState.REVERT_SEQUENCE: RepoState.REVERT,
    RepositoryState.CHERRYPICK: RepoState.CHERRY_PICK,
    RepositoryState.CHERRYPICK_SEQUENCE: RepoState.CHERRY_PICK,
    RepositoryState.BISECT: RepoState.BISECT,
    RepositoryState.REBASE: RepoState.REBASE,
    RepositoryState.REBASE_INTERACTIVE: RepoState.REBASE,
    RepositoryState.REBASE_MERGE: RepoState.REBASE,
    RepositoryState.APPLY_MAILBOX: RepoState.APPLY_MAILBOX,
    RepositoryState.APPLY_MAILBOX_OR_REBASE: RepoState.REBASE,
}

_INDEX_KINDS = (
    (FileStatus.INDEX_NEW, ChangeKind.NEW),
    (FileStatus.INDEX_MODIFIED, ChangeKind.MODIFIED),
    (FileStatus.INDEX_DELETED, ChangeKind.DELETED),
    (FileStatus.INDEX_RENAMED, ChangeKind.RENAMED),
    (FileStatus.INDEX_TYPECHANGE, ChangeKind.TYPECHANGE),
)
_WORKTREE_KINDS = (
    (FileStatus.WT_NEW, ChangeKind.NEW),
    (FileStatus.WT_MODIFIED, ChangeKind.MODIFIED),
    (FileStatus.WT_DELETED, ChangeKind.DELETED),
    (FileStatus.WT_RENAMED, ChangeKind.RENAMED),
    (FileStatus.WT_TYPECHANGE, ChangeKind.TYPECHANGE),
    (FileStatus.WT_UNREADABLE, ChangeKind.UNREADABLE),
)


def read_head(repo: pygit2.Repository) -> Head:
    with git_errors("read HEAD"):
        if repo.head_is_unborn:
            target = repo.lookup_reference("HEAD").target
            name = str(target)
            return Head(branch=name.removeprefix("refs/heads/"), oid=None)
        head = repo.head
        if repo.head_is_detached:
            return Head(branch=None, oid=str(head.target))
        return Head(branch=head.shorthand, oid=str(head.target))


def read_facts(repo: pygit2.Repository) -> RepoFacts:
    git_dir = repo.path.rstrip("/")
    workdir = repo.workdir.rstrip("/") if repo.workdir else None
    with git_errors("read the repository's state"):
        state = _STATES.get(RepositoryState(repo.state()), RepoState.NONE)
        shallow = bool(repo.is_shallow)
    lock = os.path.join(git_dir, "index.lock")
    conflicted: tuple[str, ...] = ()
    if workdir is not None:
        try:
            index = repo.index
            index.read(False)
            conflicts = index.conflicts
            if conflicts is not None:
                conflicted = tuple(sorted({_conflict_path(c) for c in conflicts}))
        except (pygit2.GitError, OSError, ValueError):
            conflicted = ()  # an unreadable index is reported by the status
    return RepoFacts(
        git_dir=git_dir,
        workdir=workdir,
        head=read_head(repo),
        state=state,
        shallow=shallow,
        index_lock=lock if os.path.exists(lock) else None,
        linked_worktree=os.path.isfile(os.path.join(git_dir, "commondir")),
        conflicted_paths=conflicted,
    )


def _conflict_path(conflict: tuple[pygit2.IndexEntry | None, ...]) -> str:
    return next(entry.path for entry in conflict if entry is not None)


def read_status(repo: pygit2.Repository, untracked: str = "all") -> StatusReport:
    with git_errors("read the status"):
        raw = repo.status(untracked_files=untracked, ignored=False)
    return status_report(raw)


def status_report(raw: dict[str, int]) -> StatusReport:
    entries = []
    for path, flags in raw.items():
        flags = FileStatus(flags)
        if flags & FileStatus.IGNORED and not flags & ~FileStatus.IGNORED:
            continue
        conflicted = bool(flags & FileStatus.CONFLICTED)
        staged = next((kind for flag, kind in _INDEX_KINDS if flags & flag), None)
        unstaged = next((kind for flag, kind in _WORKTREE_KINDS if flags & flag), None)
        if staged is None and unstaged is None and not conflicted:
            continue
        entries.append(StatusEntry(path, staged, unstaged, conflicted))
    entries.sort(key=lambda e: e.path)
    return StatusReport(tuple(entries))


def changes_in_the_way(paths: list[str], what: str) -> AppError:
    """A refusal naming the person's uncommitted files (ten at most) that `what` would overwrite."""
    shown = ", ".join(paths[:10]) + (" …" if len(paths) > 10 else "")
    return AppError(
        ErrorCode.GIT, what.format(changed=counted(len(paths), "file"), files=shown) + " Commit or stash them first.",
        data={"files": paths},
    )
