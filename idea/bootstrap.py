"""The composition root: the one place where adapters are chosen and wired to the use cases.

Entry points (the GUI, tests, headless tools) call `bootstrap` and pass what differs between them, as
in cosmicpython's bootstrap: the terminal backend, the clock, the id source, the host.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from idea.application.agents.profiles import ProfileCatalogue
from idea.application.agents.launch_deps import AgentLaunchDeps
from idea.application.agents.templates import TemplateCatalogue
from idea.application.git.projects import GitDeps, GitProjects
from idea.application.permissions.service import PermissionService
from idea.application.orchestrator.ports import PortalProvider
from idea.application.orchestrator.timing import OrchestratorTimings
from idea.application.ports import Clock, Diagnostics, Host, IdGenerator, TerminalFactory
from idea.application.preferences import Preferences
from idea.application.project_service import ProjectService
from idea.application.projects import OrchestrationDeps, ProjectDeps
from idea.infrastructure.agents.run_dir import LocalRunDirWriter
from idea.infrastructure.cli_probe import SubprocessCliDetector
from idea.infrastructure.clock import SystemClock, Uuid4Generator
from idea.infrastructure.core_loop import CoreLoop
from idea.infrastructure.diagnostics import FileDiagnostics
from idea.infrastructure.event_bus import EventBus
from idea.infrastructure.git.files import LocalWorktreeFiles
from idea.infrastructure.git.pygit2_git import Pygit2Git
from idea.infrastructure.git.watcher import WatchdogFolderWatcher
from idea.infrastructure.git.worker import ThreadWorker
from idea.infrastructure.inspect.process_cpu import DescendantCpuProbe
from idea.infrastructure.installation import name_live_appdir
from idea.infrastructure.mcp.endpoint import sweep_dead_endpoints
from idea.infrastructure.knowledge_adapters import LocalKnowledgeAdapters
from idea.infrastructure.limits.pattern_reader import LocalLimitPatternReader
from idea.infrastructure.agent_watching import LocalAgentWatchAdapters
from idea.infrastructure.agents.sign_in import LocalSignInChecker
from idea.infrastructure.inspect.engine_sessions import LocalSessionInspector
from idea.infrastructure.orchestration_adapters import LocalOrchestrationAdapters
from idea.infrastructure.paths import prepare_data_dir, user_data_dir
from idea.infrastructure.hooks.http_door import HookUrls
from idea.infrastructure.platform import PlatformAdapters, platform_adapters
from idea.infrastructure.project_folder import LocalProjectFolder
from idea.infrastructure.resources import ResourcePromptLibrary
from idea.infrastructure.sandbox.enforcer import platform_sandbox
from idea.infrastructure.stores.layouts import JsonLayoutStore
from idea.infrastructure.stores.manifest import JsonManifestStore
from idea.infrastructure.stores.permissions import JsonPermissionStore
from idea.infrastructure.stores.personas import MarkdownPersonaStore
from idea.infrastructure.stores.profiles import JsonProfileStore
from idea.infrastructure.stores.providers import JsonProviderSessionStore
from idea.infrastructure.stores.reviews import JsonReviewStore
from idea.infrastructure.stores.running import JsonRunningAgentsStore
from idea.infrastructure.stores.templates import JsonTemplateStore
from idea.infrastructure.stores.user_data import JsonUserDataStore
from idea.infrastructure.timer import MonotonicTimer
from idea.infrastructure.write_leftovers import sweep_write_leftovers

TerminalBackend = Callable[[asyncio.AbstractEventLoop], TerminalFactory]

SHUTDOWN_TIMEOUT_S = 15.0


@dataclass
class App:
    data_dir: Path
    core: CoreLoop
    events: EventBus
    diagnostics: FileDiagnostics
    preferences: Preferences
    profiles: ProfileCatalogue
    templates: TemplateCatalogue
    projects: ProjectService
    permissions: PermissionService
    closers: list[Callable[[], None]] = field(default_factory=list)  # after the core loop stops

    def startup_problems(self) -> list[str]:
        """What went wrong while the user data was read (broken files kept aside), for the first window."""
        return [*self.preferences.problems, *self.profiles.problems]

    def shutdown(self, wait: Callable[[concurrent.futures.Future[None]], None] | None = None) -> None:
        """Stop every project's processes, then the core loop. `wait` waits for the closing; the GUI passes
        one that keeps processing Qt events, since stopping a terminal needs the GUI thread."""
        closing = self.core.submit(self.projects.close_all())
        try:
            if wait is None:
                closing.result(SHUTDOWN_TIMEOUT_S)
            else:
                wait(closing)
        finally:
            self.core.stop()
            for close in self.closers:
                close()
            self.diagnostics.close()  # a late beacon opens it again


def headless_terminals(loop: asyncio.AbstractEventLoop) -> TerminalFactory:
    from idea.infrastructure.pty.ptyprocess_terminal import PtyProcessTerminalFactory

    return PtyProcessTerminalFactory(loop)


class NoPortals:
    """Headless: nobody types in the terminals, deliveries need no input portal."""

    def portal_for(self, session_id: str) -> None:
        return None


def bootstrap(
    *,
    terminals: TerminalBackend = headless_terminals,
    data_dir: Path | None = None,
    clock: Clock | None = None,
    ids: IdGenerator | None = None,
    host: Host | None = None,
) -> App:
    name_live_appdir()  # from an AppImage: what agents' bridges and hook relays start from
    data_dir = prepare_data_dir(data_dir or user_data_dir())
    clock = clock or SystemClock()
    ids = ids or Uuid4Generator()
    platform = platform_adapters()  # Unix socket or loopback TCP, hook quoting, PATH lookups
    host = host or platform.make_host()
    diagnostics = FileDiagnostics(data_dir / "logs")
    diagnostics.beacon("[startup] IdeA launched; diagnostics log armed")
    sweep_dead_endpoints(diagnostics)
    for leftover in sweep_write_leftovers(data_dir, now_s=time.time(), skip=("logs",)):
        diagnostics.beacon(f"[startup] removed {leftover}: a write interrupted by a crash")
    events = EventBus()
    user_data = JsonUserDataStore(data_dir)
    preferences = Preferences(user_data, events, diagnostics)
    diagnostics.echo = preferences.settings.diagnostics_verbose
    profiles = ProfileCatalogue(
        JsonProfileStore(data_dir), SubprocessCliDetector(), preferences, host, LocalLimitPatternReader(clock)
    )
    templates = TemplateCatalogue(JsonTemplateStore(data_dir, clock=clock), clock, ids)
    timings = OrchestratorTimings.from_env(host.environ())
    permissions = PermissionService(JsonPermissionStore(), platform_sandbox(), host)
    core = CoreLoop().start()
    terminal_factory = terminals(core.loop)
    # A backend whose terminals people type in also provides their input portals.
    portals = terminal_factory if isinstance(terminal_factory, PortalProvider) else NoPortals()
    git, git_closers = _git_projects(clock, ids, events, diagnostics, user_data)
    hook_urls = HookUrls()  # each open project's HTTP hook door, for the Claude settings of its agents
    deps = ProjectDeps(
        folder=LocalProjectFolder(),
        layouts=JsonLayoutStore(),
        terminals=terminal_factory,
        host=host,
        clock=clock,
        ids=ids,
        events=events,
        diagnostics=diagnostics,
        settings=lambda: preferences.settings,
        manifests=JsonManifestStore(),
        personas=MarkdownPersonaStore(),
        templates=templates,
        launching=AgentLaunchDeps(
            profiles=profiles,
            providers=JsonProviderSessionStore(),
            running=JsonRunningAgentsStore(),
            run_dirs=LocalRunDirWriter(shell=platform.shell, hook_urls=hook_urls, gemini_shell=platform.gemini_shell),
            prompts=ResourcePromptLibrary(),
            endpoint_for=platform.endpoint_for,
            new_token=lambda: secrets.token_hex(32),
            rendezvous_window_ms=timings.window_ms,
            rendezvous_ceiling_ms=timings.ceiling_ms,
            permissions=permissions,
            sign_in=LocalSignInChecker(),
            sessions=LocalSessionInspector(),
        ),
        orchestration=_orchestration(platform, portals, timings, clock, diagnostics, hook_urls),
        knowledge=LocalKnowledgeAdapters(data_dir),
        git=git,
    )
    return App(
        data_dir=data_dir,
        core=core,
        events=events,
        diagnostics=diagnostics,
        preferences=preferences,
        profiles=profiles,
        templates=templates,
        projects=ProjectService(deps, user_data),
        permissions=permissions,
        closers=git_closers,
    )


def _git_projects(
    clock: Clock, ids: IdGenerator, events: EventBus, diagnostics: Diagnostics, user_data: JsonUserDataStore
) -> tuple[GitProjects, list[Callable[[], None]]]:
    """The git side of every project (pygit2 on a worker thread, a folder watcher), and what closes it."""
    worker, watcher = ThreadWorker(), WatchdogFolderWatcher()
    git = GitProjects(
        GitDeps(
            port=Pygit2Git(),
            worker=worker,
            watcher=watcher,
            files=LocalWorktreeFiles(),
            reviews=JsonReviewStore(),
            timer=MonotonicTimer(),
            clock=clock,
            ids=ids,
            events=events,
            diagnostics=diagnostics,
            user_data=user_data,
        ),
    )
    return git, [watcher.close, worker.close]


def _orchestration(
    platform: PlatformAdapters,
    portals: PortalProvider,
    timings: OrchestratorTimings,
    clock: Clock,
    diagnostics: Diagnostics,
    hook_urls: HookUrls,
) -> OrchestrationDeps:
    """What each project's orchestration core is built with: its doors, the people's input portals, its
    timers and the watches of the agents' CLIs."""
    return OrchestrationDeps(
        adapters=LocalOrchestrationAdapters(
            diagnostics, timings.mcp_safety_net_ms(), endpoint_for=platform.endpoint_for, hook_urls=hook_urls
        ),
        portals=portals,
        timer=MonotonicTimer(),
        timings=timings,
        cpu=DescendantCpuProbe(),
        watching=LocalAgentWatchAdapters(clock, MonotonicTimer(), diagnostics),
    )
