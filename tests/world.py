"""An application wired with in-memory fakes: what use-case tests drive."""

from __future__ import annotations

from idea.application.agents.profiles import ProfileCatalogue
from idea.application.agents.runner import AgentLaunchDeps
from idea.application.agents.templates import TemplateCatalogue
from idea.application.permissions.service import PermissionService
from idea.application.preferences import Preferences
from idea.application.orchestrator.timing import OrchestratorTimings
from idea.application.projects import OrchestrationDeps, ProjectDeps, ProjectService
from idea.domain.profile import ProfileBook
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
from tests.fakes_permissions import FakeSandbox, MemoryPermissionStore
from tests.orchestration_fakes import (
    FakeActivity,
    FakePortals,
    MemoryConversationLog,
    MemoryLiveStateStore,
    VirtualTime,
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
    StaticPrompts,
    shipped_profiles,
)

ROOT = "/work/demo"
SOCKET = "/run/user/1000/idea-mcp/demo.sock"


class QuietDoors:
    def __init__(self) -> None:
        self.open = False

    async def start(self) -> None:
        self.open = True

    async def close(self) -> None:
        self.open = False


class MemoryOrchestrationAdapters:
    """One live-state file, conversation log and activity probe per project root, and inert doors."""

    def __init__(self) -> None:
        self.live_states: dict[str, MemoryLiveStateStore] = {}
        self.logs: dict[str, MemoryConversationLog] = {}
        self.probes: dict[str, FakeActivity] = {}
        self.opened_doors: list[QuietDoors] = []

    def live_state(self, root: str) -> MemoryLiveStateStore:
        return self.live_states.setdefault(root, MemoryLiveStateStore())

    def conversations(self, root: str) -> MemoryConversationLog:
        return self.logs.setdefault(root, MemoryConversationLog())

    def activity(self, root: str, kind_of) -> FakeActivity:  # noqa: ANN001
        return self.probes.setdefault(root, FakeActivity())

    def doors(self, project_id: str, root: str, gateway) -> QuietDoors:  # noqa: ANN001
        doors = QuietDoors()
        self.opened_doors.append(doors)
        return doors


class World:
    def __init__(self, new_cells: NewCellContent = NewCellContent.SHELL) -> None:
        self.clock = FakeClock()
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
        self.profiles = ProfileCatalogue(self.profile_store, ScriptedDetector(), self.preferences, self.host)
        self.template_store = MemoryTemplateStore()
        self.templates = TemplateCatalogue(self.template_store, self.clock, self.ids)
        self.manifests = MemoryManifestStore()
        self.personas = MemoryPersonaStore()
        self.providers = MemoryProviderStore()
        self.running = MemoryRunningStore()
        self.run_dirs = RecordingRunDirWriter()
        self.tokens = iter(f"token-{n}" for n in range(1, 1000))
        self.orchestration = MemoryOrchestrationAdapters()
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
                permissions=self.permissions,
            ),
            orchestration=OrchestrationDeps(
                adapters=self.orchestration,
                portals=FakePortals(),
                timer=VirtualTime(),
                timings=OrchestratorTimings(),
            ),
        )
        self.service = ProjectService(self.deps, self.user_data)

    @property
    def settings(self) -> Settings:
        return self.preferences.settings

    def prefer_empty_cells(self) -> None:
        self.preferences.update_settings(new_cell_content=NewCellContent.EMPTY)
