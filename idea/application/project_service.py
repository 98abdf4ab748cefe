"""Opening and closing projects: at most one runtime per project root in the whole application, opens of one
folder that overlap shared, the registry of recent projects kept."""

from __future__ import annotations

import asyncio

from idea.application.agents.retarget import retarget_run_dirs
from idea.application.ports import UserDataStore
from idea.application.projects import ProjectDeps, ProjectRuntime
from idea.domain import layout as lay
from idea.domain.errors import AppError, CorruptFileError, ErrorCode, PartlyReadFileError, not_found
from idea.domain.events import ProjectClosed, ProjectOpened, ProjectProblem
from idea.domain.ids import ProjectId
from idea.domain.path_names import last_part
from idea.domain.project import ProjectRecord, ProjectRegistry


class ProjectService:
    """Opens and closes projects; at most one runtime per project root in the whole application."""

    def __init__(self, deps: ProjectDeps, user_data: UserDataStore) -> None:
        self._deps = deps
        self._user_data = user_data
        self._runtimes: dict[ProjectId, ProjectRuntime] = {}
        self._closing: dict[ProjectId, asyncio.Future[None]] = {}
        self._opening: dict[str, asyncio.Future[ProjectRuntime]] = {}  # by root

    def runtime(self, project_id: ProjectId) -> ProjectRuntime:
        try:
            return self._runtimes[project_id]
        except KeyError:
            raise not_found(f"project {project_id} is not open") from None

    def open_runtimes(self) -> list[ProjectRuntime]:
        return [runtime for runtime in self._runtimes.values() if runtime.id not in self._closing]

    def recent_projects(self) -> list[ProjectRecord]:
        return self._load_registry().recent()

    def known_project(self, project_id: ProjectId) -> ProjectRecord | None:
        return self._load_registry().by_id(project_id)

    async def open(self, path: str) -> ProjectRuntime:
        """Open a project folder (or return its runtime if it is already open). Opens of the same folder that
        overlap (restored and named on the command line) share one opening."""
        root = self._deps.folder.resolve_root(path)
        for runtime in list(self._runtimes.values()):
            if runtime.root != root:
                continue
            if runtime.id not in self._closing:
                return runtime
            await asyncio.shield(self._closing[runtime.id])  # reopened while closing: open it afresh
        opening = self._opening.get(root)
        if opening is None:
            opening = asyncio.ensure_future(self._open(root))
            self._opening[root] = opening
            opening.add_done_callback(lambda _done: self._opening.pop(root, None))
        return await asyncio.shield(opening)

    async def _open(self, root: str) -> ProjectRuntime:
        registry = self._load_registry()
        record = registry.by_root(root) or ProjectRecord(
            id=self._deps.ids.new_id(), name=last_part(root), root=root
        )
        runtime = ProjectRuntime(record, self._deps)
        try:  # refused before anything is written if another IdeA serves it
            await runtime.doors.start()
        except OSError as exc:  # the request folders cannot be made: a read-only or foreign folder
            raise _cannot_prepare(root, exc) from exc
        try:
            try:
                self._deps.folder.ensure_scaffold(root)
            except OSError as exc:
                raise _cannot_prepare(root, exc) from exc
            except CorruptFileError as exc:
                runtime.problems.append(exc.message)
            for leftover in self._deps.folder.remove_write_leftovers(root):
                self._deps.diagnostics.beacon(f"[project] removed {leftover}: a write interrupted by a crash")
            created = runtime.load_layouts()
        except BaseException:
            await runtime.doors.close()
            raise
        self._runtimes[record.id] = runtime
        self._save_registry(registry.touched(record, self._deps.clock.now_ms()))
        self._deps.diagnostics.beacon(f"[project] opened id={record.id} root={root}")
        self._deps.events.publish(ProjectOpened(record.id, root, record.name))
        retarget_run_dirs(self._deps.launching, root, record.id, self._deps.diagnostics)
        await runtime.open(new_cells=[leaf.id for leaf in lay.leaves(runtime.active.root)] if created else [])
        for problem in runtime.problems:
            self._deps.events.publish(ProjectProblem(record.id, problem))
        return runtime

    async def close(self, project_id: ProjectId) -> None:
        """Stop the project's processes; the runtime stays known until they are stopped, so quitting
        right after still waits for them."""
        runtime = self._runtimes.get(project_id)
        if runtime is None:
            return
        closing = self._closing.get(project_id)
        if closing is None:
            closing = asyncio.ensure_future(self._close(runtime))
            self._closing[project_id] = closing
        await asyncio.shield(closing)

    async def _close(self, runtime: ProjectRuntime) -> None:
        try:
            await runtime.close()
        finally:
            self._runtimes.pop(runtime.id, None)
            self._closing.pop(runtime.id, None)
            self._deps.diagnostics.beacon(f"[project] closed id={runtime.id}")
            self._deps.events.publish(ProjectClosed(runtime.id))

    async def close_all(self) -> None:
        """Close every open project, and those still opening once their opening has ended: a quit in the middle
        of an open (its socket already listening) would otherwise leave that project's doors and processes."""
        openings = list(self._opening.values())
        if openings:
            await asyncio.gather(*(asyncio.shield(opening) for opening in openings), return_exceptions=True)
        for project_id in list(self._runtimes):
            await self.close(project_id)

    def _load_registry(self) -> ProjectRegistry:
        try:
            return self._user_data.load_projects()
        except PartlyReadFileError as exc:
            self._tell(f"{exc.message}. The projects it could not read are no longer listed; their folders are untouched.")
            return exc.document  # type: ignore[no-any-return]
        except CorruptFileError as exc:
            self._tell(f"{exc.message}. The list of recent projects starts afresh; the projects themselves are untouched.")
            return ProjectRegistry()

    def _tell(self, message: str) -> None:
        self._deps.diagnostics.beacon(f"[project] {message}")
        self._deps.events.publish(ProjectProblem(None, message))

    def _save_registry(self, registry: ProjectRegistry) -> None:
        try:
            self._user_data.save_projects(registry)
        except OSError as exc:
            self._deps.diagnostics.beacon(f"[project] registry not saved: {exc}")


def _cannot_prepare(root: str, exc: OSError) -> AppError:
    inside = exc.filename is None or str(exc.filename).startswith(root)
    if not inside:  # the endpoint's socket folder, not the project
        return AppError(ErrorCode.STORE, f"Cannot start the agents' endpoint for {root}: {exc.strerror or exc} ({exc.filename})")
    return AppError(ErrorCode.STORE, f"Cannot prepare {root} for IdeA: {exc.strerror or exc}")
