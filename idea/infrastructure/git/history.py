"""Commits, branches, the author and the index as pygit2 sees them."""

from __future__ import annotations

import itertools
import os
from collections.abc import Sequence

import pygit2
from pygit2.enums import RepositoryState, SortMode

from idea.domain.errors import AppError, ErrorCode, invalid
from idea.domain.git.model import Branch, CommitInfo, Identity
from idea.domain.wording import counted
from idea.infrastructure.git.diffs import head_tree, resolve_commit
from idea.infrastructure.git.errors import git_errors
from idea.infrastructure.git.facts import changes_in_the_way, read_status


def commit_info(commit: pygit2.Commit) -> CommitInfo:
    message = commit.raw_message.decode("utf-8", "replace")
    author = commit.author
    return CommitInfo(
        oid=str(commit.id),
        parents=tuple(str(p) for p in commit.parent_ids),
        summary=message.strip().split("\n", 1)[0],
        author=_decoded(author.raw_name),
        email=_decoded(author.raw_email),
        time_ms=author.time * 1000,
        message=message,
    )


def _decoded(raw: bytes) -> str:
    return raw.decode("utf-8", "replace")


def log(repo: pygit2.Repository, skip: int, limit: int) -> tuple[CommitInfo, ...]:
    with git_errors("read the history"):
        if repo.head_is_unborn:
            return ()
        walker = repo.walk(repo.head.target, SortMode.TOPOLOGICAL | SortMode.TIME)
        return tuple(commit_info(c) for c in itertools.islice(walker, skip, skip + limit))


def unmerged_commits(repo: pygit2.Repository, branch: str, into: str, limit: int) -> tuple[CommitInfo, ...]:
    with git_errors(f"compare {branch} with {into}"):
        walker = repo.walk(resolve_commit(repo, branch).id, SortMode.TOPOLOGICAL | SortMode.TIME)
        try:
            walker.hide(resolve_commit(repo, into).id)
        except AppError:
            pass  # the base is gone: every commit of the branch is unmerged
        return tuple(commit_info(c) for c in itertools.islice(walker, limit))


# -- the author --


def identity(repo: pygit2.Repository) -> Identity | None:
    config = repo.config
    try:
        name, email = config["user.name"], config["user.email"]
    except (KeyError, pygit2.GitError, UnicodeError):
        return None
    try:
        return Identity(name, email)
    except AppError:
        return None


def set_identity(repo: pygit2.Repository, author: Identity, everywhere: bool) -> None:
    with git_errors("save the author"):
        config = _global_config() if everywhere else repo.config
        config["user.name"] = author.name
        config["user.email"] = author.email


def _global_config() -> pygit2.Config:
    try:
        return pygit2.Config.get_global_config()
    except (OSError, pygit2.GitError):
        path = os.path.join(os.path.expanduser("~"), ".gitconfig")
        open(path, "a").close()  # git's own default place for it
        return pygit2.Config(path)


# -- staging --


def stage(repo: pygit2.Repository, paths: Sequence[str]) -> None:
    workdir = _workdir(repo)
    with git_errors("stage " + _names(paths)):
        index = repo.index
        index.read(False)
        for path in paths:
            if os.path.lexists(os.path.join(workdir, path)):
                index.add(path)
            else:
                index.remove(path)
        index.write()


def unstage(repo: pygit2.Repository, paths: Sequence[str]) -> None:
    _workdir(repo)
    with git_errors("unstage " + _names(paths)):
        index = repo.index
        index.read(False)
        tree = head_tree(repo)
        for path in paths:
            if path in tree:
                entry = tree[path]
                index.add(pygit2.IndexEntry(path, entry.id, entry.filemode))
            elif path in index:
                index.remove(path)
        index.write()


def _names(paths: Sequence[str]) -> str:
    return paths[0] if len(paths) == 1 else f"{len(paths)} files"


def _workdir(repo: pygit2.Repository) -> str:
    if repo.workdir is None:
        raise AppError(ErrorCode.GIT, "A bare repository has no working tree.")
    return repo.workdir


# -- committing --


def commit(repo: pygit2.Repository, message: str, author: Identity) -> CommitInfo:
    _workdir(repo)
    with git_errors("commit"):
        index = repo.index
        index.read(False)
        if index.conflicts is not None:
            raise AppError(ErrorCode.GIT, "Some files still conflict: resolve and stage them before committing.")
        tree = index.write_tree()
        merging = repo.state() == RepositoryState.MERGE
        parents = [] if repo.head_is_unborn else [repo.head.target]
        if merging:
            parents.extend(repo.listall_mergeheads())
        elif parents and repo.head.peel(pygit2.Commit).tree_id == tree:
            raise AppError(ErrorCode.GIT, "Nothing is staged: stage the changes to commit first.")
        elif not parents and not len(index):
            raise AppError(ErrorCode.GIT, "Nothing is staged: stage the changes to commit first.")
        signature = pygit2.Signature(author.name, author.email)
        text = message.strip() + "\n"
        oid = repo.create_commit("HEAD", signature, signature, text, tree, parents)
        if merging:
            repo.state_cleanup()
        created = repo[oid]
        assert isinstance(created, pygit2.Commit)
        return commit_info(created)


# -- branches --


def branches(repo: pygit2.Repository, checked_out: dict[str, str]) -> tuple[Branch, ...]:
    """Local branches, the current one first; `checked_out` maps branch → path of another worktree."""
    with git_errors("list the branches"):
        found = []
        for name in repo.branches.local:
            branch = repo.branches.local[name]
            try:
                upstream = branch.upstream_name
            except (KeyError, pygit2.GitError, ValueError):
                upstream = None
            found.append(
                Branch(
                    name=name,
                    oid=str(branch.target),
                    is_head=branch.is_head(),
                    upstream=upstream.removeprefix("refs/remotes/") if upstream else None,
                    worktree=checked_out.get(name),
                )
            )
    return tuple(sorted(found, key=lambda b: (not b.is_head, b.name.casefold())))


def create_branch(repo: pygit2.Repository, name: str, start: str | None) -> Branch:
    if not name or not pygit2.reference_is_valid_name(f"refs/heads/{name}"):
        raise invalid(f"{name!r} is not a valid branch name (no spaces, '..', '~', '^', ':', '?', '*', '[').")
    with git_errors(f"create branch {name}"):
        if repo.lookup_branch(name) is not None:
            raise AppError(ErrorCode.GIT, f"A branch named {name} already exists.")
        if start is None and repo.head_is_unborn:
            raise AppError(ErrorCode.GIT, "There is no commit yet to start a branch from.")
        target = resolve_commit(repo, start or "HEAD")
        created = repo.branches.local.create(name, target)
        return Branch(name=name, oid=str(created.target))


def switch_branch(repo: pygit2.Repository, name: str, elsewhere: str | None) -> None:
    _workdir(repo)
    if elsewhere is not None:
        raise AppError(ErrorCode.GIT, f"{name} is checked out in the worktree at {elsewhere}; it cannot be here too.")
    with git_errors(f"switch to {name}"):
        branch = repo.lookup_branch(name)
        if branch is None:
            raise AppError(ErrorCode.GIT, f"There is no branch named {name}.")
        if branch.is_head():
            return
        target = branch.peel(pygit2.Commit)
        deltas = list(head_tree(repo).diff_to_tree(target.tree).deltas)
        changed = {d.new_file.path for d in deltas} | {d.old_file.path for d in deltas}
        dirty = [e.path for e in read_status(repo).changed() if e.path in changed]
        if dirty:
            raise changes_in_the_way(dirty, f"Switching to {name} would overwrite your changes to {{changed}}: "
                                     "{files}.")
        repo.checkout(branch)


def delete_branch(repo: pygit2.Repository, name: str, force: bool) -> None:
    with git_errors(f"delete branch {name}"):
        branch = repo.lookup_branch(name)
        if branch is None:
            raise AppError(ErrorCode.GIT, f"There is no branch named {name}.")
        if branch.is_head():
            raise AppError(ErrorCode.GIT, f"{name} is the current branch: switch to another one first.")
        if branch.is_checked_out():
            raise AppError(ErrorCode.GIT, f"{name} is checked out in a worktree: remove the worktree first.")
        if not force and not repo.head_is_unborn:
            ahead = unmerged_commits(repo, name, "HEAD", 1000)
            if ahead:
                raise AppError(
                    ErrorCode.GIT,
                    f"{name} has {counted(len(ahead), 'commit')} the current branch does not have; deleting the "
                    f"branch would lose {'it' if len(ahead) == 1 else 'them'}.",
                    data={"unmerged": len(ahead)},
                )
        branch.delete()
