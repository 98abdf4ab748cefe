"""What the git use cases need from the outside world.

`GitPort` finds, creates and opens repositories; a `GitRepository` is one open repository. Both are
blocking (libgit2 works on the calling thread): the use cases only call them through a `Worker`, never on
the core loop itself and never on the GUI thread.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol, TypeVar

from idea.application.ports import Unsubscribe
from idea.domain.git.diff import Diff, DiffSpec, Hunk
from idea.domain.git.model import Branch, CommitInfo, Identity, RepoFacts, StatusReport
from idea.domain.git.review import Review
from idea.domain.git.worktrees import MergeOutcome, WorktreeInfo

T = TypeVar("T")


class GitRepository(Protocol):
    """One repository. Every failure is an AppError(GIT) whose message a person can act on; nothing is
    forced: a checkout that would overwrite local changes, a merge that conflicts, a lock held by another
    process are refused, never resolved behind the person's back."""

    @property
    def git_dir(self) -> str: ...

    @property
    def workdir(self) -> str | None:
        """The working tree's folder; None for a bare repository."""
        ...

    def facts(self) -> RepoFacts: ...

    def status(self) -> StatusReport:
        """Staged, unstaged, untracked and conflicted paths (ignored ones left out)."""
        ...

    def diff(self, spec: DiffSpec, context_lines: int = 3) -> Diff: ...

    def read_new_side(self, spec: DiffSpec, path: str) -> str | None:
        """The text of `path` on the new side of `spec` (None when it does not exist there)."""
        ...

    # -- staging and committing --

    def stage(self, paths: Sequence[str]) -> None:
        """Put the working tree's version of each path in the index (a deleted file: its removal)."""
        ...

    def unstage(self, paths: Sequence[str]) -> None:
        """Put HEAD's version of each path back in the index (remove it when HEAD does not have it)."""
        ...

    def stage_hunk(self, path: str, hunk: Hunk) -> None:
        """Apply one hunk of the unstaged diff (index → working tree) to the index."""
        ...

    def unstage_hunk(self, path: str, hunk: Hunk) -> None:
        """Take one hunk of the staged diff (HEAD → index) back out of the index."""
        ...

    def identity(self) -> Identity | None:
        """`user.name` and `user.email` as git resolves them for this repository, None when unset."""
        ...

    def set_identity(self, identity: Identity, everywhere: bool) -> None:
        """Save the author in this repository's config, or in the user's global config."""
        ...

    def commit(self, message: str, author: Identity) -> CommitInfo:
        """Commit the index on HEAD (concluding a merge when one is in progress)."""
        ...

    # -- branches and history --

    def branches(self) -> tuple[Branch, ...]: ...

    def create_branch(self, name: str, start: str | None) -> Branch: ...

    def switch_branch(self, name: str) -> None:
        """Check the branch out; refused, with the files, when local changes would be overwritten."""
        ...

    def delete_branch(self, name: str, force: bool) -> None:
        """Delete a local branch; refused for the current one, one checked out in a worktree, and (unless
        `force`) one with commits HEAD does not have."""
        ...

    def unmerged_commits(self, branch: str, into: str, limit: int) -> tuple[CommitInfo, ...]:
        """Commits of `branch` that `into` does not have, newest first."""
        ...

    def log(self, skip: int, limit: int) -> tuple[CommitInfo, ...]:
        """HEAD's history in topological and time order."""
        ...

    # -- worktrees --

    def worktrees(self) -> tuple[WorktreeInfo, ...]:
        """The linked worktrees (the main tree is not one of them)."""
        ...

    def add_worktree(self, name: str, path: str, branch: str, base: str) -> WorktreeInfo:
        """Create `branch` from `base` (unless it exists) and check it out in a new worktree at `path`."""
        ...

    def remove_worktree(self, name: str) -> None:
        """Delete the worktree's folder (only when it is that worktree) and its metadata."""
        ...

    def prune_worktrees(self) -> tuple[str, ...]:
        """Forget worktrees whose folder is gone (not locked ones); returns their names."""
        ...

    def ahead_behind(self, branch: str, base: str) -> tuple[int, int]: ...

    def worktree_status(self, path: str) -> StatusReport: ...

    def merge(self, branch: str, into: str, author: Identity) -> MergeOutcome:
        """Merge `branch` into `into`: fast-forward when possible, else a merge commit; conflicts are
        reported and nothing is written. When `into` is checked out in the main tree, that tree must be
        clean and is updated; elsewhere only the branch moves."""
        ...

    def get_config(self, key: str) -> str | None: ...

    def set_config(self, key: str, value: str) -> None: ...


class GitPort(Protocol):
    def discover(self, path: str) -> str | None:
        """The git directory of the repository holding `path` (which may be a subfolder), or None."""
        ...

    def init(self, path: str) -> str:
        """Create a repository at `path` with `main` as its first branch; returns its git directory."""
        ...

    def open(self, git_dir: str) -> GitRepository: ...


class Worker(Protocol):
    """Runs blocking work off the core loop (a bounded pool of threads)."""

    async def run(self, work: Callable[[], T]) -> T: ...


class FolderWatcher(Protocol):
    def watch(self, folder: str, on_change: Callable[[str], None]) -> Unsubscribe:
        """Call `on_change(absolute path)` for every change under `folder` (recursively), on any thread."""
        ...


class WorktreeFiles(Protocol):
    def copy_included(self, source_root: str, target_root: str, patterns: Sequence[str]) -> tuple[
        tuple[str, ...], tuple[str, ...]
    ]:
        """Copy the files of `source_root` matching the globs into `target_root` (same relative paths,
        existing files left alone); returns (copied, skipped with reasons)."""
        ...

    def read_text(self, path: str) -> str | None:
        """A small text file, None when absent."""
        ...


class ReviewStore(Protocol):
    """`.ideai/reviews/<reviewId>.json` of one project; written atomically."""

    def load(self, root: str, review_id: str) -> Review | None: ...

    def save(self, root: str, review: Review) -> None: ...

    def list(self, root: str) -> tuple[list[Review], list[str]]:
        """Every readable review, and one message per broken file (kept aside and skipped)."""
        ...

    def delete(self, root: str, review_id: str) -> None: ...
