"""Open projects: each one a runtime owning its layouts and its live sessions, independent of any window."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass
from typing import Any

from idea.application.agents.catalogue import AgentCatalogue
from idea.application.agents.human_requests import HumanRequests
from idea.application.agents.lifecycle import TeamLifecycle
from idea.application.agents.placement import AgentPlacement
from idea.application.agents.placement_rules import InCell
from idea.application.agents.ports import ManifestStore, PersonaStore
from idea.application.agents.launch_deps import AgentLaunchDeps
from idea.application.agents.runner import AgentRunner
from idea.application.agents.templates import TemplateCatalogue
from idea.application.git.agent_worktrees import AgentWorktrees
from idea.application.git.projects import GitProjects
from idea.application.knowledge.runtime import KnowledgeAdapters
from idea.application.named_layouts import NamedLayouts
from idea.application.orchestrator.ports import OrchestrationAdapters, PortalProvider, ProcessCpuProbe, Timer
from idea.application.orchestrator.service import OrchestratorService
from idea.application.engine_sessions import EngineSessionRecorder
from idea.application.limits.requests import LimitRequests
from idea.application.orchestrator.timing import OrchestratorTimings
from idea.application.project_knowledge import compose_project_knowledge
from idea.application.orchestrator.watch_ports import AgentWatchAdapters
from idea.application.ports import (
    Clock,
    Diagnostics,
    EventPublisher,
    Host,
    IdGenerator,
    LayoutStore,
    ProjectFolder,
    TerminalFactory,
)
from idea.application.project_beacons import ProjectBeacons
from idea.application.sessions import LaunchRequest, SessionRegistry
from idea.domain import layout as lay
from idea.domain.errors import AppError, CorruptFileError
from idea.domain.agent_states.events import AgentRateLimited, AgentResumed
from idea.domain.events import LayoutChanged, OrchestrationNews, ProjectProblem
from idea.domain.ids import AgentId, NodeId, ProjectId, SessionId
from idea.domain.path_names import program_name
from idea.domain.project import ProjectRecord
from idea.domain.session import SessionInfo, SessionKind
from idea.domain.workspace import NewCellContent, Settings


@dataclass(frozen=True)
class ProjectDeps:
    """What every project runtime needs; built once by the composition root."""

    folder: ProjectFolder
    layouts: LayoutStore
    terminals: TerminalFactory
    host: Host
    clock: Clock
    ids: IdGenerator
    events: EventPublisher
    diagnostics: Diagnostics
    settings: Callable[[], Settings]
    manifests: ManifestStore
    personas: PersonaStore
    templates: TemplateCatalogue
    launching: AgentLaunchDeps
    orchestration: OrchestrationDeps
    knowledge: KnowledgeAdapters  # conversations, handoffs, memory, skills, the shared context
    git: GitProjects | None = None  # None: projects without git (tests of other features)


@dataclass(frozen=True)
class OrchestrationDeps:
    adapters: OrchestrationAdapters
    portals: PortalProvider  # the write portals of terminals a person can type in
    timer: Timer
    timings: OrchestratorTimings
    cpu: ProcessCpuProbe | None = None
    watching: AgentWatchAdapters | None = None  # terminal watches and resume timers (spec 05)


class ProjectRuntime:
    """One open project. Windows and tabs are views over it: a tab can move between windows, a layout can
    be switched, cells can be merged, and no process notices."""

    def __init__(self, record: ProjectRecord, deps: ProjectDeps) -> None:
        self.record = record
        self._deps = deps
        self._document: lay.LayoutDocument | None = None  # read by load_layouts()
        self.problems: list[str] = []
        self._diagnostics = ProjectBeacons(deps.diagnostics, record.id)
        self.sessions = SessionRegistry(
            record.id, deps.terminals, deps.host, deps.clock, deps.ids, deps.events,
            env_denied=lambda: deps.settings().env_denied(),
        )
        self.agents = AgentCatalogue(
            record.id,
            record.root,
            manifests=deps.manifests,
            personas=deps.personas,
            profiles=deps.launching.profiles,
            templates=deps.templates,
            clock=deps.clock,
            ids=deps.ids,
            events=deps.events,
            diagnostics=self._diagnostics,
            is_live=lambda agent_id: self.sessions.live_agent_session(agent_id) is not None,
            forget=lambda agent_id: forget_deleted_agent(self, agent_id),
        )
        self.git = deps.git.workspace(record.id, record.root) if deps.git is not None else None
        self.runner = AgentRunner(self, self.agents, deps.launching, shared_git_dir=lambda: _git_dir(self))
        self.placement = AgentPlacement(self, self.agents, self.runner)
        self.knowledge, knowledge_commands = compose_project_knowledge(
            self,
            deps.knowledge.for_project(record.root),
            clock=deps.clock,
            timer=deps.orchestration.timer,
            ids=deps.ids,
            events=_ProjectNews(record.id, deps.events),
            diagnostics=self._diagnostics,
        )
        self.worktrees = AgentWorktrees(self, self.agents, self.git.worktrees if self.git is not None else None)
        orchestration = deps.orchestration
        self.orchestrator = OrchestratorService(
            project_id=record.id,
            project_root=record.root,
            lifecycle=TeamLifecycle(self.runner, self.placement),
            portals=orchestration.portals,
            activity=orchestration.adapters.activity(record.root, lambda agent_id: _cli_family(self.runner, agent_id)),
            live_state=orchestration.adapters.live_state(record.root),
            conversations=self.knowledge,  # every turn recorded is folded into its handoff
            clock=deps.clock,
            timer=orchestration.timer,
            ids=deps.ids,
            events=_ProjectNews(record.id, deps.events, lambda event: _observe_core(self, event)),
            diagnostics=self._diagnostics,
            timings=orchestration.timings,
            cpu=orchestration.cpu,
            watching=orchestration.watching,
            engine_sessions=EngineSessionRecorder(
                root=record.root,
                providers=deps.launching.providers,
                clock=deps.clock,
                diagnostics=self._diagnostics,
                conversation_of=self.runner.conversation_of,
                provider_of=lambda agent_id: _provider_key(self.runner, agent_id),
            ),
            families=(knowledge_commands,),
        )
        self.requests = HumanRequests(self.orchestrator)
        self.limit_requests = LimitRequests(lambda: self.orchestrator.states.limits)
        self.layouts = NamedLayouts(self)
        self.doors = orchestration.adapters.doors(record.id, record.root, self.orchestrator)
        self._tasks: set[asyncio.Task[Any]] = set()

    @property
    def id(self) -> ProjectId:
        return self.record.id

    @property
    def root(self) -> str:
        return self.record.root

    @property
    def name(self) -> str:
        return self.record.name

    def settings(self) -> Settings:
        return self._deps.settings()

    @property
    def host(self) -> Host:
        return self._deps.host

    @property
    def clock(self) -> Clock:
        return self._deps.clock

    @property
    def ids(self) -> IdGenerator:
        return self._deps.ids

    @property
    def diagnostics(self) -> Diagnostics:
        return self._diagnostics

    def report_problem(self, message: str) -> None:
        self._deps.events.publish(ProjectProblem(self.id, message))

    def schedule(self, work: Coroutine[Any, Any, Any]) -> None:
        """Run follow-up work from a callback on the core loop, keeping a reference until it ends."""
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    @property
    def document(self) -> lay.LayoutDocument:
        """The current layouts; an immutable snapshot, safe to read from the GUI thread."""
        assert self._document is not None, "layouts are read when the project opens"
        return self._document

    def load_layouts(self) -> bool:
        """Read `layouts.json`; a broken file is kept aside and a default layout used. Returns whether
        the layouts were just created (their cells are new)."""
        try:
            decoded = self._deps.layouts.load(self.root)
        except CorruptFileError as exc:
            self.problems.append(f"{exc.message}. The project opened with a default layout.")
            decoded = None
        if decoded is None:
            self._document = lay.default_document(self._deps.ids.new_id(), self._deps.ids.new_id())
            self._deps.layouts.save(self.root, self.document)
            return True
        for repair in decoded.repairs:
            self._diagnostics.beacon(f"[layout] repaired {self.root}: {repair}")
        self._document = decoded.document
        if decoded.notices:  # the file stays; the repair is saved so the new ids hold
            self.problems.append(
                "layouts.json used an id twice; IdeA gave the later one a new id and kept every cell: "
                + "; ".join(decoded.notices) + "."
            )
            try:
                self._deps.layouts.save(self.root, decoded.document)
            except OSError as exc:
                self._diagnostics.beacon(f"[layout] repaired layouts not saved: {exc}")
        return False

    @property
    def active(self) -> lay.Layout:
        return self.document.active

    # -- cells (each gesture is one saved change of layouts.json) --

    async def mutate(self, op: lay.LayoutOp) -> lay.Applied:
        """Apply one operation to the active layout and persist it. Sessions of displaced cells keep
        running in the background."""
        [applied] = await self.change_layout((op,))
        return applied

    async def change_layout(self, ops: Sequence[lay.LayoutOp]) -> list[lay.Applied]:
        """Apply operations to the active layout in order, as one change: saved once, one LayoutChanged.
        A refused operation raises AppError and nothing changes."""
        layout, applied = self.active, []
        for op in ops:
            applied.append(lay.apply(layout, op, self._deps.ids.new_id))
            layout = applied[-1].layout
        if applied:
            self.store_document(lay.replace_layout(self.document, layout))
        return applied

    async def split(self, target: NodeId, direction: lay.Direction, position: str = "after") -> NodeId:
        new_leaf = self._deps.ids.new_id()
        split = lay.SplitCell(target, direction, position, new_leaf)
        lay.apply(self.active, split, self._deps.ids.new_id)  # refused before a shell starts for it
        shells = await self.start_shells(1)
        await self.change_layout([split, *(lay.SetSession(new_leaf, info.id) for info in shells)])
        return new_leaf

    async def start_shell(self, leaf_id: NodeId) -> SessionInfo:
        info = await self.sessions.start(self._shell_request())
        await self.mutate(lay.SetSession(leaf_id, info.id))
        return info

    async def restart(self, leaf_id: NodeId) -> SessionInfo:
        """Run the cell's program again: the agent it pins, or the same command."""
        leaf = lay.find_leaf(self.active.root, leaf_id)
        if leaf.agent is not None:
            live = await self.placement.restart(leaf_id)
            return self.sessions.info(live.session_id)
        if leaf.session is None or not self.sessions.knows(leaf.session):
            return await self.start_shell(leaf_id)
        info = await self.sessions.restart(leaf.session)
        await self.mutate(lay.SetSession(leaf_id, info.id))
        self.release_unshown(leaf.session)
        return info

    async def attach(self, leaf_id: NodeId, session_id: SessionId) -> None:
        """Show a background session in a cell (no spawn; same process, same screen); an agent's session
        is shown as the agent itself (its cell pins it)."""
        info = self.sessions.info(session_id)
        if info.kind is SessionKind.AGENT and info.agent_id is not None:
            await self.placement.attach(info.agent_id, InCell(leaf_id))
            return
        await self.mutate(lay.SetSession(leaf_id, session_id))

    async def close_cell(self, leaf_id: NodeId, *, stop_session: bool) -> None:
        """Close a cell; its session is stopped only when asked, otherwise it keeps running hidden."""
        leaf = lay.find_leaf(self.active.root, leaf_id)
        await self.mutate(lay.CloseCell(leaf_id))
        if leaf.session is not None and self.sessions.knows(leaf.session):
            if stop_session:
                await self.sessions.stop(leaf.session)
            self.release_unshown(leaf.session)

    async def stop_session(self, session_id: SessionId) -> None:
        await self.sessions.stop(session_id)

    def background_sessions(self) -> list[SessionInfo]:
        """Live sessions no cell of the active layout shows."""
        shown = {leaf.session for leaf in lay.leaves(self.active.root) if leaf.session}
        return [s for s in self.sessions.snapshot() if s.is_live and s.id not in shown]

    # -- named layouts --

    # -- lifecycle --

    async def open(self, new_cells: list[NodeId]) -> None:
        """Steps of spec 00 §5.6 after the files are loaded: team, layouts, live-state, doors."""
        self.agents.load()
        self.problems.extend(self.agents.problems)
        team = {entry.agent_id: entry.name for entry in self.agents.manifest().agents}
        if (notice := self._deps.launching.permissions.opening_notice(self.root, team)) is not None:
            self.problems.append(notice)
        await self.agents.sync_templates()
        await self.layouts.show(lambda document: document, new_cells=new_cells)
        forget_agents_deleted_before_a_crash(self)
        self.orchestrator.reconcile_at_open()  # before any launch: a crash never ran close
        await self.knowledge.open()
        if self.git is not None:
            self.schedule(self.git.open())  # best effort, on the worker pool: the project does not wait

    async def close(self) -> None:
        if self.git is not None:
            self.git.close()
        await self.orchestrator.close()
        await self.doors.close()
        await self.runner.stop_all_for_close()
        await self.sessions.stop_all()
        await self.knowledge.close()

    async def start_shells(self, count: int) -> list[SessionInfo]:
        """What new cells run: the user's shell, unless the user prefers empty cells."""
        if self._deps.settings().new_cell_content is not NewCellContent.SHELL:
            return []
        return [await self.sessions.start(self._shell_request()) for _ in range(count)]

    def _shell_request(self) -> LaunchRequest:
        shell = self._deps.host.login_shell()
        return LaunchRequest(argv=(shell,), cwd=self.root, kind=SessionKind.SHELL, label=program_name(shell), env={})

    def release_unshown(self, session_id: SessionId) -> None:
        """Forget an ended session once no layout shows it any more."""
        for layout in self.document.layouts:
            if lay.leaf_showing_session(layout.root, session_id) is not None:
                return
        self.sessions.release(session_id)

    def store_document(self, document: lay.LayoutDocument) -> None:
        self._document = document
        try:
            self._deps.layouts.save(self.root, document)
        except OSError as exc:
            message = f"Could not save the layouts of {self.name}: {exc.strerror or exc}"
            self._diagnostics.beacon(f"[layout] save failed: {exc}")
            self._deps.events.publish(ProjectProblem(self.id, message))
        self._deps.events.publish(LayoutChanged(self.id, document))


def forget_deleted_agent(runtime: ProjectRuntime, agent_id: AgentId) -> None:
    """What names a deleted agent goes with it (spec 02 §1): its cells' pins in every layout (one save)
    and its live-state row."""
    shown = {
        leaf.session
        for layout in runtime.document.layouts
        for leaf in lay.leaves(layout.root)
        if leaf.agent == agent_id and leaf.session is not None
    }
    document = lay.without_agent(runtime.document, agent_id)
    if document != runtime.document:
        runtime.store_document(document)
    for session_id in shown:  # its ended run, no longer shown anywhere
        if runtime.sessions.knows(session_id):
            runtime.release_unshown(session_id)
    runtime.orchestrator.forget_agent(agent_id)


def forget_agents_deleted_before_a_crash(runtime: ProjectRuntime) -> None:
    """A crash during a deletion can leave cells pinning an agent the manifest no longer lists: they are
    cleared as the deletion would have."""
    team = {agent.agent_id for agent in runtime.agents.manifest().agents}
    pinned = {leaf.agent for layout in runtime.document.layouts for leaf in lay.leaves(layout.root) if leaf.agent}
    for agent_id in sorted(pinned - team):
        runtime.diagnostics.beacon(f"[agents] cleared the cells of agent {agent_id}, no longer in the team")
        forget_deleted_agent(runtime, agent_id)


def _observe_core(runtime: ProjectRuntime, event: object) -> None:
    """Every event of the orchestration core, on the core loop, before it is published: the limits noted for
    the resume offer, and what the project's knowledge learns (its work panel)."""
    _note_limits(runtime.runner, event)
    runtime.knowledge.observe(event)


def _note_limits(runner: AgentRunner, event: object) -> None:
    """running.json says when an agent was at its usage limit, for the resume offer (spec 05 §9)."""
    match event:
        case AgentRateLimited(agent_id=agent_id, resets_at_ms=resets_at_ms):
            runner.note_limit(agent_id, resets_at_ms)
        case AgentResumed(agent_id=agent_id):
            runner.note_limit(agent_id, None)


def _git_dir(runtime: ProjectRuntime) -> str | None:
    repository = runtime.git.access.repository if runtime.git is not None else None
    return repository.git_dir if repository is not None else None


def _cli_family(runner: AgentRunner, agent_id: AgentId) -> str | None:
    try:
        return runner.profile_of(agent_id).structured_adapter
    except AppError:
        return None


def _provider_key(runner: AgentRunner, agent_id: AgentId) -> str | None:
    try:
        return runner.profile_of(agent_id).provider_key
    except AppError:
        return None


class _ProjectNews:
    """Tags the orchestration core's and the knowledge's events with their project, for subscribers of many
    projects; `observe` sees each one first, on the core loop (the project's own bookkeeping)."""

    def __init__(
        self, project_id: ProjectId, events: EventPublisher, observe: Callable[[object], None] | None = None
    ) -> None:
        self._project_id = project_id
        self._events = events
        self._observe = observe

    def publish(self, event: object) -> None:
        if self._observe is not None:
            self._observe(event)
        self._events.publish(OrchestrationNews(self._project_id, event))
