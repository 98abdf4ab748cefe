"""How the git screens reach a project's git workspace: a coroutine built on the core loop, its result back
on the GUI thread (never blocking it; libgit2 itself runs on the worker pool)."""

from __future__ import annotations

import concurrent.futures
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from idea.application.git.projects import GitProjects, GitWorkspace
from idea.application.projects import ProjectRuntime
from idea.ui.core_client import CoreClient, ErrorHandler

T = TypeVar("T")


class GitClient:
    def __init__(self, client: CoreClient, projects: GitProjects, runtime: ProjectRuntime) -> None:
        self.core = client
        self.projects = projects
        self.runtime = runtime

    def call(
        self,
        work: Callable[[GitWorkspace], Coroutine[Any, Any, T]],
        on_done: Callable[[T], None] | None = None,
        on_error: ErrorHandler | None = None,
    ) -> concurrent.futures.Future[T]:
        projects, runtime = self.projects, self.runtime

        async def run() -> T:
            return await work(projects.workspace(runtime.id, runtime.root))

        return self.core.call(run(), on_done, on_error)
