"""The application wired with in-memory fakes: what use-case tests drive.

- `World`: the whole application (projects, sessions, agents, the orchestration core of each project);
- `Harness` (`make_harness`): one project's orchestration core alone, on virtual time, with a team of
  agents whose CLIs are fakes, for the tests of delegation, delivery and rendezvous.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from idea.application.agents.profiles import ProfileCatalogue
from idea.application.agents.launch_deps import AgentLaunchDeps
from idea.application.agents.templates import TemplateCatalogue
from idea.application.permissions.service import PermissionService
from idea.application.preferences import Preferences
from idea.application.orchestrator.board import SAVE_DELAY_MS as LIVE_STATE_SAVE_DELAY_MS
from idea.application.orchestrator.dispatch import CommandFamily
from idea.application.orchestrator.service import OrchestratorService
from idea.application.sign_in import LoginCommand, SignInCheck
from idea.application.orchestrator.timing import OrchestratorTimings
from idea.application.project_service import ProjectService
from idea.application.projects import OrchestrationDeps, ProjectDeps
from idea.domain.orchestration.live_state import LiveState
from idea.domain.orchestration.commands import AgentCaller, Human, Outcome, Requester, Source
from idea.domain.profile import Profile
from idea.domain.profile_book import ProfileBook
from idea.domain.workspace import NewCellContent, Settings
from tests.fakes import (
    FakeClock,
    FakeHost,
    FakeTerminalFactory,
    MemoryLayoutStore,
    MemoryProjectFolder,
    MemoryUserData,
    RecordingDiagnostics,
    RecordingEvents,
    SequentialIds,
)
from tests.fakes_knowledge import MemoryKnowledgeAdapters
from tests.fakes_permissions import FakeSandbox, MemoryPermissionStore
from tests.fakes_orchestration import (
    FakeActivity,
    FakeCpu,
    FakeLifecycle,
    FakePortal,
    FakePortals,
    MemoryConversationLog,
    MemoryLiveStateStore,
    MemoryOrchestrationAdapters,
    VirtualTime,
    settle,
)
from tests.fakes_agents import (
    MemoryManifestStore,
    MemoryPersonaStore,
    MemoryProfileStore,
    MemoryProviderStore,
    MemoryRunningStore,
    MemoryTemplateStore,
    RecordingRunDirWriter,
    ScriptedDetector,
    ScriptedLimitPatterns,
    StaticPrompts,
    shipped_profiles,
)

class ScriptedSignIn:
    """Every CLI is signed in, except the commands in `signed_out`."""

    def __init__(self) -> None:
        self.signed_out: set[str] = set()
        self.can_log_in = True  # False: IdeA cannot run their sign-in in a cell

    def check(self, profile: Profile) -> SignInCheck | None:
        if profile.command not in self.signed_out:
            return SignInCheck(profile.name, True, "")
        login = LoginCommand((profile.command, "login"), {"CODEX_HOME": "/home/dev/.codex"}) if self.can_log_in else None
        return SignInCheck(profile.name, False, f"run `{profile.command} login`, then start the agent again", login)


ROOT = "/work/demo"
SOCKET = "/run/user/1000/idea-mcp/demo.sock"


class World:
    def __init__(self, new_cells: NewCellContent = NewCellContent.SHELL) -> None:
        self.clock = FakeClock()
        self.time = VirtualTime()  # the orchestration core's timer: delays happen when a test advances it
        self.ids = SequentialIds()
        self.terminals = FakeTerminalFactory()
        self.layouts = MemoryLayoutStore()
        self.events = RecordingEvents()
        self.diagnostics = RecordingDiagnostics()
        self.user_data = MemoryUserData()
        self.user_data.settings = Settings(new_cell_content=new_cells, first_run_completed=True)
        self.folder = MemoryProjectFolder({ROOT, "/work/other"})
        self.host = FakeHost()
        self.preferences = Preferences(self.user_data, self.events, self.diagnostics)
        self.profile_store = MemoryProfileStore(ProfileBook(profiles=tuple(shipped_profiles())))
        self.profiles = ProfileCatalogue(
            self.profile_store, ScriptedDetector(), self.preferences, self.host, ScriptedLimitPatterns()
        )
        self.template_store = MemoryTemplateStore()
        self.templates = TemplateCatalogue(self.template_store, self.clock, self.ids)
        self.manifests = MemoryManifestStore()
        self.personas = MemoryPersonaStore()
        self.providers = MemoryProviderStore()
        self.running = MemoryRunningStore()
        self.run_dirs = RecordingRunDirWriter()
        self.tokens = iter(f"token-{n}" for n in range(1, 1000))
        self.orchestration = MemoryOrchestrationAdapters()
        self.knowledge = MemoryKnowledgeAdapters()
        self.sign_in = ScriptedSignIn()
        self.permission_store = MemoryPermissionStore()
        self.sandbox = FakeSandbox()
        self.permissions = PermissionService(self.permission_store, self.sandbox, self.host)
        self.deps = ProjectDeps(
            folder=self.folder,
            layouts=self.layouts,
            terminals=self.terminals,
            host=self.host,
            clock=self.clock,
            ids=self.ids,
            events=self.events,
            diagnostics=self.diagnostics,
            settings=lambda: self.preferences.settings,
            manifests=self.manifests,
            personas=self.personas,
            templates=self.templates,
            launching=AgentLaunchDeps(
                profiles=self.profiles,
                providers=self.providers,
                running=self.running,
                run_dirs=self.run_dirs,
                prompts=StaticPrompts(),
                endpoint_for=lambda _project: SOCKET,
                new_token=lambda: next(self.tokens),
                rendezvous_window_ms=600_000,
                rendezvous_ceiling_ms=14_400_000,
                sign_in=self.sign_in,
                permissions=self.permissions,
            ),
            orchestration=OrchestrationDeps(
                adapters=self.orchestration,
                portals=FakePortals(),
                timer=self.time,
                timings=OrchestratorTimings(),
            ),
            knowledge=self.knowledge,
        )
        self.service = ProjectService(self.deps, self.user_data)

    @property
    def settings(self) -> Settings:
        return self.preferences.settings

    def prefer_empty_cells(self) -> None:
        self.preferences.update_settings(new_cell_content=NewCellContent.EMPTY)


# --- the orchestration core alone ------------------------------------------------------------------------


def claude_profile(**changes: Any) -> Profile:
    data: dict[str, Any] = {
        "id": "664cc20c-47b8-53ad-9351-dce3c09c0de4",
        "name": "Claude Code",
        "command": "claude",
        "contextInjection": {"strategy": "conventionFile", "target": "CLAUDE.md"},
        "structuredAdapter": "claude",
        "mcp": {"config": {"strategy": "configFile", "target": ".mcp.json"}},
        "hooks": "claude",
        "submitDelayMs": 350,
    }
    data.update(changes)
    return Profile.from_json(data)


def codex_profile(**changes: Any) -> Profile:
    data: dict[str, Any] = {
        "id": "d2603c4e-1ee5-51a3-8b61-99a9f03eec50",
        "name": "Codex",
        "command": "codex",
        "contextInjection": {"strategy": "conventionFile", "target": "AGENTS.md"},
        "structuredAdapter": "codex",
        "mcp": {"config": {"strategy": "tomlConfigHome", "target": ".codex/config.toml", "home_env": "CODEX_HOME"}},
        "hooks": "codexNotify",
    }
    data.update(changes)
    return Profile.from_json(data)


def file_protocol_profile(**changes: Any) -> Profile:
    """No MCP, no hooks: reached through request files, watched by the quiet heuristic."""
    data: dict[str, Any] = {
        "id": "2ba0c437-dec7-513b-be25-e419008f78d4",
        "name": "Gemini CLI",
        "command": "gemini",
        "contextInjection": {"strategy": "conventionFile", "target": "GEMINI.md"},
    }
    data.update(changes)
    return Profile.from_json(data)


def bridgeless_profile() -> Profile:
    """Declares an MCP server IdeA cannot materialise for that CLI: no delegation can reach it."""
    return Profile.from_json(
        {
            "id": "0b7e1f52-7d1c-4c1e-9a55-0d8c0c0f2a10",
            "name": "Custom MCP",
            "command": "custom",
            "contextInjection": {"strategy": "conventionFile", "target": "IDEA_CONTEXT.md"},
            "mcp": {"config": {"strategy": "flag", "flag": "--mcp {path}"}},
        }
    )


SPEC_TIMINGS = OrchestratorTimings()  # the spec defaults: virtual time makes them instant


@dataclass
class Harness:
    service: OrchestratorService
    lifecycle: FakeLifecycle
    time: VirtualTime
    portals: FakePortals
    activity: FakeActivity
    store: MemoryLiveStateStore
    log: MemoryConversationLog
    events: RecordingEvents
    diagnostics: RecordingDiagnostics
    cpu: FakeCpu
    tasks: list[asyncio.Task[Any]] = field(default_factory=list)

    def id(self, name: str) -> str:
        return self.lifecycle.id_of(name)

    async def saved(self) -> LiveState:
        """What `live-state.json` holds once the board's write behind is due."""
        await self.time.advance(LIVE_STATE_SAVE_DELAY_MS)
        return self.store.state

    def agent(self, name: str) -> AgentCaller:
        return AgentCaller(self.id(name))

    def portal(self, name: str) -> FakePortal:
        portal = FakePortal(self.time)
        self.portals.by_session[self.lifecycle.lives[self.id(name)].session_id] = portal
        return portal

    def written(self, name: str) -> str:
        return "".join(self.lifecycle.terminal(name).written)

    def last_delivery(self, name: str) -> str:
        """The text of the latest delivery typed into `name`'s terminal (what its CLI's prompt holds)."""
        return [segment for segment in self.written(name).split("\r") if segment][-1]

    async def begin_turn(self, name: str) -> str:
        """Deliver the head ticket of `name` and have its CLI start the turn (Claude `UserPromptSubmit`)."""
        ticket = await self.deliver(name)
        self.hook(name, "UserPromptSubmit", prompt=self.last_delivery(name))
        await settle()
        return ticket

    def row(self, name: str) -> Any:
        return self.service.live_entry(self.id(name))

    def start(self, requester: Requester, command: Any, source: Source = Source.MCP) -> asyncio.Task[Outcome]:
        """Dispatch in the background, as a door would, and return the awaiting task."""
        task = asyncio.ensure_future(self.service.dispatch(requester, command, source))
        self.tasks.append(task)
        return task

    async def ask(self, requester: str | Requester, target: str, task: str) -> asyncio.Task[Outcome]:
        from idea.domain.orchestration.commands import AskAgent

        who = self.agent(requester) if isinstance(requester, str) else requester
        started = self.start(who, AskAgent(target, task))
        await settle()
        return started

    def open_ticket(self, target: str) -> str:
        """The id of the head ticket of `target`."""
        snapshot = next(s for s in self.service.queue_snapshots() if s.agent_id == self.id(target))
        assert snapshot.tickets, f"{target} has no ticket"
        return snapshot.tickets[0].ticket_id

    def hook(self, name: str, event: str, **payload: Any) -> None:
        self.service.hook_event(self.id(name), "claude", event, payload)

    async def deliver(self, target: str, *, within_ms: int = 10_000) -> str:
        """Advance until the head ticket of `target` is submitted; returns its id."""
        await self.time.run_until(lambda: self._head_submitted(target), within_ms=within_ms)
        return self.open_ticket(target)

    def _head_submitted(self, target: str) -> bool:
        snapshot = next(s for s in self.service.queue_snapshots() if s.agent_id == self.id(target))
        return bool(snapshot.tickets) and snapshot.tickets[0].delivered

    def queue(self, name: str) -> Any:
        return next(s for s in self.service.queue_snapshots() if s.agent_id == self.id(name))

    async def close(self) -> None:
        await self.service.close()
        for task in self.tasks:
            if not task.done():
                task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)


def make_harness(
    agents: list[tuple[str, Profile]],
    *,
    orchestrator: str | None = None,
    timings: OrchestratorTimings = SPEC_TIMINGS,
    store: MemoryLiveStateStore | None = None,
    families: Sequence[CommandFamily] = (),
    watching: Any = None,
) -> Harness:
    time = VirtualTime()
    lifecycle = FakeLifecycle(agents, orchestrator)
    portals = FakePortals()
    activity = FakeActivity()
    store = store or MemoryLiveStateStore()
    log = MemoryConversationLog()
    events = RecordingEvents()
    diagnostics = RecordingDiagnostics()
    cpu = FakeCpu()
    service = OrchestratorService(
        project_id="0f3c2a9e-6b1d-4c1e-9d0a-2f6f1f7b8c11",
        project_root="/work/demo",
        lifecycle=lifecycle,
        portals=portals,
        activity=activity,
        live_state=store,
        conversations=log,
        clock=time,
        timer=time,
        ids=SequentialIds(),
        events=events,
        diagnostics=diagnostics,
        timings=timings,
        cpu=cpu,
        families=families,
        watching=watching(time) if callable(watching) else watching,
    )
    return Harness(service, lifecycle, time, portals, activity, store, log, events, diagnostics, cpu)


HUMAN = Human()
