"""The one way the git use cases reach a project's repository: found once, opened once, every call
serialised (libgit2 objects are not for concurrent use) and run on the worker pool."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TypeVar

from idea.application.git.ports import GitPort, GitRepository, Worker
from idea.application.ports import Diagnostics, EventPublisher
from idea.domain.errors import AppError, ErrorCode
from idea.domain.events import ProjectProblem
from idea.domain.git.events import GitChanged
from idea.domain.git.model import Identity, RepoFacts
from idea.domain.git.notices import Gesture, refusal
from idea.domain.ids import ProjectId

T = TypeVar("T")

MISSING_IDENTITY = "missingIdentity"  # AppError data key: the gesture needs a commit author first


class RepoAccess:
    def __init__(
        self,
        project_id: ProjectId,
        root: str,
        port: GitPort,
        worker: Worker,
        events: EventPublisher,
        diagnostics: Diagnostics,
    ) -> None:
        self.project_id = project_id
        self.root = root
        self._port = port
        self._worker = worker
        self._events = events
        self.diagnostics = diagnostics
        self._lock = asyncio.Lock()
        self._repo: GitRepository | None = None
        self.on_found: Callable[[GitRepository], None] | None = None  # a repository appeared (init, clone…)

    @property
    def repository(self) -> GitRepository | None:
        """The open repository, None before `discover` or when the project has none."""
        return self._repo

    async def discover(self) -> GitRepository | None:
        """The repository holding the project root: found once, and looked for again at every call while
        there is none (a `git init` or a clone made in a terminal is picked up)."""
        async with self._lock:
            if self._repo is not None:
                return self._repo
            git_dir = await self._worker.run(lambda: self._port.discover(self.root))
            if git_dir is None:
                return None
            self._repo = await self._worker.run(lambda: self._port.open(git_dir))
        if self.on_found is not None:
            self.on_found(self._repo)
        return self._repo

    async def init(self) -> GitRepository:
        async with self._lock:
            if self._repo is not None:
                raise AppError(ErrorCode.GIT, f"{self.root} is already in a git repository.")
            git_dir = await self._worker.run(lambda: self._port.init(self.root))
            self._repo = await self._worker.run(lambda: self._port.open(git_dir))
        if self.on_found is not None:
            self.on_found(self._repo)
        self.diagnostics.beacon(f"[git] initialised a repository in {self.root}")
        self.changed("init")
        return self._repo

    async def run(self, work: Callable[[GitRepository], T]) -> T:
        """Run `work` on the repository, alone, on the worker pool."""
        repo = self._repo or await self.discover()
        if repo is None:
            raise AppError(ErrorCode.GIT, f"{self.root} is not in a git repository.")
        async with self._lock:
            return await self._worker.run(lambda: work(repo))

    async def run_allowed(self, gesture: Gesture, work: Callable[[GitRepository], T]) -> T:
        """Run a gesture that changes the repository, unless its current state refuses it."""

        def checked(repo: GitRepository) -> T:
            reason = refusal(repo.facts(), gesture)
            if reason is not None:
                raise AppError(ErrorCode.GIT, reason)
            return work(repo)

        return await self.run(checked)

    async def facts(self) -> RepoFacts:
        return await self.run(lambda repo: repo.facts())

    def changed(self, reason: str) -> None:
        self._events.publish(GitChanged(self.project_id, reason))

    def problem(self, message: str) -> None:
        """Something the person must know (shown in the project's banner)."""
        self._events.publish(ProjectProblem(self.project_id, message))


def require_identity(repo: GitRepository) -> Identity:
    """The author git resolves for this repository; AppError(GIT) with {MISSING_IDENTITY: True} when none
    is configured, so the panel asks for one."""
    author = repo.identity()
    if author is None:
        raise AppError(
            ErrorCode.GIT,
            "No commit author is configured (git's user.name and user.email).",
            data={MISSING_IDENTITY: True},
        )
    return author
