"""`GitPort` on pygit2 (spec 07 §1): libgit2 1.9 bundled in the wheel, no `git` process. Blocking: the use
cases call it on the worker pool. pygit2 itself is imported there, at the first call, not when IdeA starts."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from idea.infrastructure.git.repository import Pygit2Repository

INITIAL_BRANCH = "main"


class Pygit2Git:
    def discover(self, path: str) -> str | None:
        import pygit2

        from idea.infrastructure.git.errors import git_errors

        with git_errors(f"look for a repository at {path}"):
            found = pygit2.discover_repository(path)
        return found.rstrip("/") if found else None

    def init(self, path: str) -> str:
        import pygit2

        from idea.infrastructure.git.errors import git_errors

        with git_errors(f"create a repository in {path}"):
            repo = pygit2.init_repository(path, initial_head=INITIAL_BRANCH)
        return str(repo.path).rstrip("/")

    def open(self, git_dir: str) -> Pygit2Repository:
        from idea.infrastructure.git.repository import open_repository

        return open_repository(git_dir)
