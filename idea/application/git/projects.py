"""Git for every open project: one `GitWorkspace` per project runtime, opened when the project opens (the
repository found, stale worktrees pruned, the folders watched) and closed with it."""

from __future__ import annotations

from dataclasses import dataclass

from idea.application.git.access import RepoAccess
from idea.application.git.monitor import GitMonitor
from idea.application.git.ports import FolderWatcher, GitPort, ReviewStore, Worker, WorktreeFiles
from idea.application.git.reviews import ReviewService
from idea.application.git.service import GitService
from idea.application.git.worktrees import WorktreeService
from idea.application.orchestrator.ports import Timer
from idea.application.ports import Clock, Diagnostics, EventPublisher, IdGenerator, UserDataStore
from idea.application.project_beacons import ProjectBeacons
from idea.domain.errors import AppError, ErrorCode
from idea.domain.ids import ProjectId


@dataclass(frozen=True)
class GitDeps:
    port: GitPort
    worker: Worker
    watcher: FolderWatcher
    files: WorktreeFiles
    reviews: ReviewStore
    timer: Timer
    clock: Clock
    ids: IdGenerator
    events: EventPublisher
    diagnostics: Diagnostics
    user_data: UserDataStore


class GitWorkspace:
    """A project's git side: `git` for the panel, `worktrees` for per-agent worktrees, `reviews` for diff
    reviews. All coroutines run on the core loop; repository work runs on the worker pool."""

    def __init__(self, project_id: ProjectId, root: str, deps: GitDeps) -> None:
        self.project_id = project_id
        self.root = root
        self._deps = deps
        self._diagnostics = ProjectBeacons(deps.diagnostics, project_id)
        self.access = RepoAccess(project_id, root, deps.port, deps.worker, deps.events, self._diagnostics)
        self.worktrees = WorktreeService(self.access, deps.files, self.setup_command)
        self.git = GitService(self.access, self.worktrees)
        self.reviews = ReviewService(self.access, deps.reviews, deps.clock, deps.ids)
        self._monitor = GitMonitor(deps.watcher, deps.timer, lambda: self.access.changed("files"))
        self.access.on_found = lambda repo: self._monitor.start(repo.workdir, repo.git_dir)

    async def open(self) -> None:
        """Find the repository (then watched), prune stale worktree metadata. Without a repository, the
        root is watched so that one made in a terminal shows. Best effort: a problem is logged, and shown by
        the panel when it reads the repository."""
        try:
            if await self.access.discover() is None:
                self._monitor.start(self.root, f"{self.root.rstrip('/')}/.git")
                return
            await self.worktrees.prune()
        except AppError as exc:
            self._diagnostics.beacon(f"[git] opening {self.root}: {exc.message}")

    async def init(self) -> None:
        """Create a repository in the project root (`main` as first branch); it is watched from then on."""
        await self.access.init()

    def close(self) -> None:
        self._monitor.stop()

    def setup_command(self) -> str | None:
        """The command run in each new worktree of this project (`worktreeSetup` in projects.json)."""
        try:
            record = self._deps.user_data.load_projects().by_id(self.project_id)
        except AppError:
            return None
        return record.worktree_setup if record is not None else None

    async def read_setup_command(self) -> str | None:
        return self.setup_command()

    async def change_setup_command(self, command: str | None) -> None:
        """The person's gesture (Git panel ▸ Worktrees ▸ Setup command…)."""
        self.set_setup_command(command)

    def set_setup_command(self, command: str | None) -> None:
        """Save the command run in each new worktree of this project (`worktreeSetup` in projects.json)."""
        registry = self._deps.user_data.load_projects()
        record = registry.by_id(self.project_id)
        if record is None:
            raise AppError(ErrorCode.NOT_FOUND, f"project {self.project_id} is not registered")
        cleaned = (command or "").strip() or None
        updated = record.model_copy(update={"worktree_setup": cleaned})
        others = tuple(p if p.id != record.id else updated for p in registry.projects)
        self._deps.user_data.save_projects(registry.model_copy(update={"projects": others}))
        self.access.changed("setup command")


class GitProjects:
    """Makes the git workspace of each project runtime (`ProjectRuntime.git`), which opens it when the project
    opens and closes it with the project."""

    def __init__(self, deps: GitDeps) -> None:
        self._deps = deps

    def workspace(self, project_id: ProjectId, root: str) -> GitWorkspace:
        return GitWorkspace(project_id, root, self._deps)
