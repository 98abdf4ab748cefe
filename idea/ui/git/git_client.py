"""How the git screens reach a project's git workspace (`ProjectRuntime.git`): a coroutine run on the core
loop, its result back on the GUI thread (never blocking it; libgit2 itself runs on the worker pool)."""

from __future__ import annotations

import concurrent.futures
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from idea.application.git.agent_worktrees import NO_GIT
from idea.application.git.projects import GitWorkspace
from idea.application.projects import ProjectRuntime
from idea.domain.errors import AppError, ErrorCode
from idea.ui.core_client import CoreClient, ErrorHandler

T = TypeVar("T")


class GitClient:
    def __init__(self, client: CoreClient, runtime: ProjectRuntime) -> None:
        self.core = client
        self.runtime = runtime

    def call(
        self,
        work: Callable[[GitWorkspace], Coroutine[Any, Any, T]],
        on_done: Callable[[T], None] | None = None,
        on_error: ErrorHandler | None = None,
    ) -> concurrent.futures.Future[T]:
        workspace = self.runtime.git

        async def run() -> T:
            if workspace is None:
                raise AppError(ErrorCode.GIT, NO_GIT)
            return await work(workspace)

        return self.core.call(run(), on_done, on_error)
