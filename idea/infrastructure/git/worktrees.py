"""Linked worktrees and merges into a base branch, with pygit2. Nothing here forces anything: a folder that
is not the worktree it should be is not deleted, a merge that conflicts writes nothing, a checkout that
would overwrite local changes is refused."""

from __future__ import annotations

import os
import shutil

import pygit2
from pygit2.enums import CheckoutStrategy

from idea.domain.errors import AppError, ErrorCode
from idea.domain.git.model import Identity, StatusReport
from idea.domain.git.worktrees import MergeKind, MergeOutcome, WorktreeInfo
from idea.infrastructure.git.diffs import resolve_commit
from idea.infrastructure.git.errors import git_errors
from idea.infrastructure.git.facts import changes_in_the_way, read_status


def common_dir(repo: pygit2.Repository) -> str:
    """The repository's shared git directory (a linked worktree's own git dir points to it)."""
    own = repo.path.rstrip("/")
    try:
        with open(os.path.join(own, "commondir"), encoding="utf-8") as handle:
            pointer = handle.read().strip()
    except OSError:
        return own
    return os.path.normpath(os.path.join(own, pointer))


def list_worktrees(repo: pygit2.Repository) -> tuple[WorktreeInfo, ...]:
    with git_errors("list the worktrees"):
        found = []
        common = common_dir(repo)
        for name in repo.list_worktrees():
            worktree = repo.lookup_worktree(name)
            meta = os.path.join(common, "worktrees", name)
            branch, head = _read_head_file(os.path.join(meta, "HEAD"))
            found.append(
                WorktreeInfo(
                    name=name,
                    path=worktree.path.rstrip("/"),
                    branch=branch,
                    head=head if head is not None else _branch_tip(repo, branch),
                    prunable=bool(worktree.is_prunable),
                    locked=os.path.exists(os.path.join(meta, "locked")),
                )
            )
    return tuple(sorted(found, key=lambda w: w.name))


def checked_out_elsewhere(repo: pygit2.Repository) -> dict[str, str]:
    """Branch → path, for branches checked out in linked worktrees other than this repository's own."""
    own = (repo.workdir or "").rstrip("/")
    return {w.branch: w.path for w in list_worktrees(repo) if w.branch and not w.prunable and w.path != own}


def _read_head_file(path: str) -> tuple[str | None, str | None]:
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read().strip()
    except OSError:
        return None, None
    if text.startswith("ref:"):
        return text[4:].strip().removeprefix("refs/heads/"), None
    return None, text or None


def _branch_tip(repo: pygit2.Repository, branch: str | None) -> str | None:
    found = repo.lookup_branch(branch) if branch else None
    return str(found.target) if found is not None else None


def add_worktree(repo: pygit2.Repository, name: str, path: str, branch: str, base: str) -> WorktreeInfo:
    with git_errors(f"create the worktree {name}"):
        if os.path.lexists(path) and (not os.path.isdir(path) or os.listdir(path)):
            raise AppError(ErrorCode.GIT, f"{path} already exists and is not empty; choose another folder.")
        ref = repo.lookup_branch(branch)
        created = ref is None
        if ref is None:
            ref = repo.branches.local.create(branch, resolve_commit(repo, base))
        elif ref.is_checked_out():
            raise AppError(ErrorCode.GIT, f"{branch} is already checked out in another worktree.")
        os.makedirs(os.path.dirname(path.rstrip("/")), exist_ok=True)
        if os.path.isdir(path):
            os.rmdir(path)  # empty: libgit2 makes the folder itself
        try:
            repo.add_worktree(name, path, ref)
        except BaseException:
            if created:
                ref.delete()  # leave nothing behind
            raise
    return next(w for w in list_worktrees(repo) if w.name == name)


def remove_worktree(repo: pygit2.Repository, name: str) -> None:
    with git_errors(f"remove the worktree {name}"):
        worktree = repo.lookup_worktree(name)
        path = worktree.path.rstrip("/")
        if os.path.isdir(path):
            _check_is_worktree(repo, name, path)
            shutil.rmtree(path)
            parent = os.path.dirname(path)
            if os.path.isdir(parent) and not os.listdir(parent):
                os.rmdir(parent)  # the empty `<repository>.worktrees` folder
        worktree.prune(True)


def _check_is_worktree(repo: pygit2.Repository, name: str, path: str) -> None:
    """Refuse unless `path/.git` is the file that links this very worktree to this repository."""
    expected = os.path.normpath(os.path.join(common_dir(repo), "worktrees", name))
    try:
        with open(os.path.join(path, ".git"), encoding="utf-8") as handle:
            pointer = handle.read().strip()
    except OSError:
        pointer = ""
    target = pointer.removeprefix("gitdir:").strip()
    if not pointer.startswith("gitdir:") or os.path.normpath(os.path.join(path, target)) != expected:
        raise AppError(
            ErrorCode.GIT,
            f"{path} is not the worktree {name} of this repository (its .git does not point here); "
            "IdeA does not delete it.",
        )


def prune_worktrees(repo: pygit2.Repository) -> tuple[str, ...]:
    with git_errors("prune stale worktrees"):
        pruned = []
        for name in repo.list_worktrees():
            worktree = repo.lookup_worktree(name)
            if worktree.is_prunable:
                worktree.prune(False)
                pruned.append(name)
    return tuple(pruned)


def ahead_behind(repo: pygit2.Repository, branch: str, base: str) -> tuple[int, int]:
    with git_errors(f"compare {branch} with {base}"):
        ahead, behind = repo.ahead_behind(resolve_commit(repo, branch).id, resolve_commit(repo, base).id)
        return int(ahead), int(behind)


def worktree_status(path: str) -> StatusReport:
    with git_errors(f"read the status of {path}"):
        return read_status(pygit2.Repository(path), untracked="normal")


def merge(repo: pygit2.Repository, branch: str, into: str, author: Identity) -> MergeOutcome:
    with git_errors(f"merge {branch} into {into}"):
        base_ref = repo.lookup_branch(into)
        if base_ref is None:
            raise AppError(ErrorCode.GIT, f"There is no branch named {into} to merge into.")
        tip = resolve_commit(repo, branch)
        base = base_ref.peel(pygit2.Commit)
        if tip.id == base.id or repo.descendant_of(base.id, tip.id):
            return MergeOutcome(MergeKind.UP_TO_DATE, branch, into)
        here = base_ref.is_head() and repo.workdir is not None
        if not here and base_ref.is_checked_out():
            raise AppError(ErrorCode.GIT, f"{into} is checked out in another worktree; merge there.")
        if here:
            _require_clean(repo, into)
        if repo.descendant_of(tip.id, base.id):
            _move(repo, base_ref, tip, here, f"merge {branch}: Fast-forward")
            return MergeOutcome(MergeKind.FAST_FORWARD, branch, into, commit=str(tip.id))
        merged = repo.merge_commits(base, tip)
        if merged.conflicts is not None:
            paths = sorted({next(e.path for e in c if e is not None) for c in merged.conflicts})
            return MergeOutcome(MergeKind.CONFLICTS, branch, into, conflicts=tuple(paths))
        tree = merged.write_tree(repo)
        signature = pygit2.Signature(author.name, author.email)
        oid = repo.create_commit(
            None, signature, signature, f"Merge branch '{branch}' into {into}\n", tree, [base.id, tip.id]
        )
        commit = repo[oid]
        assert isinstance(commit, pygit2.Commit)
        _move(repo, base_ref, commit, here, f"merge {branch}: Merge made by IdeA")
        return MergeOutcome(MergeKind.MERGE_COMMIT, branch, into, commit=str(oid))


def _require_clean(repo: pygit2.Repository, into: str) -> None:
    dirty = [e.path for e in read_status(repo, untracked="no").changed()]
    if dirty:
        raise changes_in_the_way(dirty, f"{into} is checked out here with uncommitted changes ({{files}}); IdeA "
                                 "does not merge over them.")


def _move(repo: pygit2.Repository, ref: pygit2.Branch, commit: pygit2.Commit, here: bool, log: str) -> None:
    """Point the branch at `commit`; when it is checked out here, update the files first (safely: a file
    that would be overwritten stops everything before anything changes)."""
    if here:
        repo.checkout_tree(commit, strategy=CheckoutStrategy.SAFE)
    ref.set_target(commit.id, log)
