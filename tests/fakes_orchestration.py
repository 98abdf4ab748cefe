"""In-memory fakes of the orchestrator's ports (`idea/application/orchestrator/ports.py`): a virtual timer
that tests advance, the agent launch pipeline, input portals, the activity and CPU probes, the live-state
and conversation stores, and the per-project adapters with inert doors."""

from __future__ import annotations

import asyncio
import heapq
import itertools
from collections.abc import Callable

from idea.application.orchestrator.ports import DoorsState, LiveAgent
from idea.application.ports import Unsubscribe
from idea.domain.agent import AgentEntry, AgentManifest
from idea.domain.errors import AppError, CorruptFileError, ErrorCode
from idea.domain.knowledge.conversation_log import ConversationTurn
from idea.domain.orchestration.live_state import LiveState
from idea.domain.profile import Profile
from tests.fakes import FakeTerminal

START_MS = 1_781_368_615_582


class VirtualTime:
    """Clock and Timer whose time only moves when a test advances it; sleepers wake in deadline order."""

    def __init__(self, start_ms: int = START_MS) -> None:
        self._wall_offset = start_ms
        self._mono = 0
        self._sleepers: list[tuple[int, int, asyncio.Future[None]]] = []
        self._order = itertools.count()

    def now_ms(self) -> int:
        return self._wall_offset + self._mono

    def monotonic_ms(self) -> int:
        return self._mono

    async def sleep(self, ms: int) -> None:
        if ms <= 0:
            await asyncio.sleep(0)
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._sleepers, (self._mono + ms, next(self._order), future))
        await future

    async def advance(self, ms: int) -> None:
        """Move time forward by `ms`, waking every sleeper whose deadline passes, in order."""
        target = self._mono + ms
        await settle()
        while self._sleepers and self._sleepers[0][0] <= target:
            deadline, _, future = heapq.heappop(self._sleepers)
            self._mono = max(self._mono, deadline)
            if not future.done():
                future.set_result(None)
            await settle()
        self._mono = target
        await settle()

    async def run_until(self, condition: Callable[[], bool], *, within_ms: int, step_ms: int = 10) -> int:
        """Advance in steps until `condition` holds; returns the virtual ms it took. Fails past `within_ms`."""
        started = self._mono
        await settle()
        while not condition():
            if self._mono - started >= within_ms:
                raise AssertionError(f"condition not reached within {within_ms} virtual ms")
            await self.advance(step_ms)
        return self._mono - started


async def settle() -> None:
    """Let every ready task run until the loop has nothing left to do right now."""
    loop = asyncio.get_running_loop()
    for _ in range(1000):
        await asyncio.sleep(0)
        if not getattr(loop, "_ready", None):
            await asyncio.sleep(0)
            if not getattr(loop, "_ready", None):
                return


# --- the launch pipeline ------------------------------------------------------------------------------


def agent_id_of(index: int) -> str:
    return f"a0000000-0000-4000-8000-{index:012d}"


class FakeLifecycle:
    def __init__(self, agents: list[tuple[str, Profile]], orchestrator: str | None = None) -> None:
        entries = []
        self.profiles: dict[str, Profile] = {}
        for index, (name, profile) in enumerate(agents, start=1):
            agent_id = agent_id_of(index)
            entries.append(
                AgentEntry(agent_id=agent_id, name=name, md_path=f"agents/{name.lower()}.md", profile_id=profile.id)
            )
            self.profiles[agent_id] = profile
        by_name = {entry.name: entry.agent_id for entry in entries}
        self._manifest = AgentManifest(agents=tuple(entries), orchestrator=by_name.get(orchestrator or ""))
        self.lives: dict[str, LiveAgent] = {}
        self.launches: list[tuple[str, str | None, bool, str]] = []
        self.launch_conversations: list[str | None] = []  # the conversation asked for, per launch
        self.conversations: dict[str, str] = {}  # the conversation a running agent's CLI carries
        self.stops: list[str] = []
        self.personas: dict[str, str] = {}
        self.tokens: dict[str, str] = {}
        self.empty_cells: list[str] = []
        self.launch_hold: asyncio.Event | None = None  # set by a test to make launches wait
        self.fail_launch: AppError | None = None
        self.report_exit_on_stop = True
        self.initial_screen = ""  # what a newly started terminal shows
        self._listeners: list[Callable[[str, int | None], None]] = []
        self._sessions = itertools.count(1)

    def id_of(self, name: str) -> str:
        agent = self._manifest.by_name(name)
        assert agent is not None, name
        return agent.agent_id

    def manifest(self) -> AgentManifest:
        return self._manifest

    def profile_of(self, agent_id: str) -> Profile:
        return self.profiles[agent_id]

    def live(self, agent_id: str) -> LiveAgent | None:
        return self.lives.get(agent_id)

    def terminal(self, name: str) -> FakeTerminal:
        live = self.lives[self.id_of(name)]
        assert isinstance(live.terminal, FakeTerminal)
        return live.terminal

    def start(self, name: str, node_id: str | None = "cell-1") -> LiveAgent:
        """An agent already running (warm), as the person launched it."""
        return self._go_live(self.id_of(name), node_id)

    def conversation_of(self, agent_id: str) -> str | None:
        return self.conversations.get(agent_id) if agent_id in self.lives else None

    async def launch(
        self, agent_id: str, *, node_id: str | None, visible: bool, reason: str, conversation_id: str | None = None
    ) -> LiveAgent:
        self.launches.append((agent_id, node_id, visible, reason))
        self.launch_conversations.append(conversation_id)
        if self.launch_hold is not None:
            await self.launch_hold.wait()
        if self.fail_launch is not None:
            raise self.fail_launch
        if agent_id in self.lives:
            return self.lives[agent_id]
        if node_id is None and visible and self.empty_cells:
            node_id = self.empty_cells.pop(0)
        return self._go_live(agent_id, node_id if visible else None)

    async def stop(self, agent_id: str) -> None:
        self.stops.append(agent_id)
        live = self.lives.get(agent_id)
        if live is None:
            return
        if self.report_exit_on_stop:
            assert isinstance(live.terminal, FakeTerminal)
            live.terminal.exit(-15)
        else:
            self.lives.pop(agent_id, None)

    def on_exit(self, listener: Callable[[str, int | None], None]) -> Unsubscribe:
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    def verify_token(self, agent_id: str, token: str) -> bool:
        return self.tokens.get(agent_id) == token

    async def update_persona(self, agent_id: str, content: str) -> None:
        self.personas[agent_id] = content

    def _go_live(self, agent_id: str, node_id: str | None) -> LiveAgent:
        session_id = f"session-{next(self._sessions)}"
        terminal = FakeTerminal(session_id, "project")
        terminal._pid = 5000 + len(self.lives)
        terminal.screen = self.initial_screen
        live = LiveAgent(agent_id, session_id, node_id, terminal, self.profiles[agent_id])
        self.lives[agent_id] = live

        def exited(code: int | None) -> None:
            if self.lives.get(agent_id) is live:
                del self.lives[agent_id]
            for listener in list(self._listeners):
                listener(agent_id, code)

        terminal.on_exit(exited)
        return live


# --- portals, probes, stores ------------------------------------------------------------------------


class FakePortal:
    """A terminal a person can type in; records suspend/release with their virtual times."""

    def __init__(self, time: VirtualTime) -> None:
        self._time = time
        self.pending = 0
        self.last_key_ms: int | None = None
        self.suspended = False
        self.log: list[tuple[str, int]] = []
        self.banners: list[str] = []  # what the overlay said, one per suspension

    def type(self, chars: int) -> None:
        self.pending += chars
        self.last_key_ms = self._time.monotonic_ms()

    def press_enter(self) -> None:
        self.pending = 0
        self.last_key_ms = self._time.monotonic_ms()

    def pending_human_chars(self) -> int:
        return self.pending

    def ms_since_last_keystroke(self) -> int | None:
        return None if self.last_key_ms is None else self._time.monotonic_ms() - self.last_key_ms

    async def suspend(self, banner: str) -> None:
        self.suspended = True
        self.banners.append(banner)
        self.log.append(("suspend", self._time.monotonic_ms()))

    async def release(self) -> None:
        self.suspended = False
        self.log.append(("release", self._time.monotonic_ms()))


class FakePortals:
    def __init__(self) -> None:
        self.by_session: dict[str, FakePortal] = {}

    def portal_for(self, session_id: str) -> FakePortal | None:
        return self.by_session.get(session_id)


class FakeActivity:
    """Transcript bytes set by tests plus the hook events the service reports."""

    def __init__(self) -> None:
        self.transcript: dict[str, int] = {}
        self.hooks: dict[str, int] = {}
        self.transcript_paths: dict[str, str] = {}

    def grow(self, agent_id: str, size: int = 100) -> None:
        self.transcript[agent_id] = self.transcript.get(agent_id, 0) + size

    def token(self, agent_id: str) -> int | None:
        if agent_id not in self.transcript and agent_id not in self.hooks:
            return None
        return self.transcript.get(agent_id, 0) + self.hooks.get(agent_id, 0)

    def note_hook_event(self, agent_id: str, transcript_path: str | None) -> None:
        self.hooks[agent_id] = self.hooks.get(agent_id, 0) + 1
        if transcript_path:
            self.transcript_paths[agent_id] = transcript_path


class FakeCpu:
    def __init__(self) -> None:
        self.seconds: float | None = 0.0

    def descendant_cpu_seconds(self, pid: int) -> float | None:
        return self.seconds


class MemoryLiveStateStore:
    def __init__(self, state: LiveState | None = None) -> None:
        self.state = state or LiveState()
        self.saves = 0
        self.corrupt = False

    def load(self) -> LiveState:
        if self.corrupt:
            raise CorruptFileError("/p/.ideai/live-state.json", "invalid JSON", "/p/.ideai/live-state.json.corrupt-1")
        return self.state

    def save(self, state: LiveState) -> None:
        self.state = state
        self.saves += 1


class MemoryConversationLog:
    def __init__(self) -> None:
        self.turns: list[ConversationTurn] = []
        self.fail = False

    async def append(self, turn: ConversationTurn) -> None:
        if self.fail:
            raise AppError(ErrorCode.STORE, "disk full")
        self.turns.append(turn)


# --- the per-project adapters ---------------------------------------------------------------------------


QUIET_ENDPOINT = "/tmp/idea-mcp/quiet.sock"


class QuietDoors:
    """Inert doors that still keep the single-instance rule: a root served by open doors refuses another
    start, as the project's socket does. `refuse_with`: the error the next start raises (a read-only folder)."""

    def __init__(self, root: str = "", served: set[str] | None = None) -> None:
        self.open = False
        self._root = root
        self._served = served if served is not None else set()
        self.refuse_with: BaseException | None = None

    async def start(self) -> None:
        await asyncio.sleep(0)  # binding a socket yields to the loop
        if self.refuse_with is not None:
            raise self.refuse_with
        if self._root in self._served:
            raise AppError(ErrorCode.PROJECT_ALREADY_OPEN, f"another IdeA process has {self._root} open")
        self._served.add(self._root)
        self.open = True

    async def close(self) -> None:
        if self.open:
            self._served.discard(self._root)
        self.open = False

    def state(self) -> DoorsState:
        return DoorsState(QUIET_ENDPOINT if self.open else None)


class MemoryOrchestrationAdapters:
    """One live-state file and activity probe per project root, and inert doors."""

    def __init__(self) -> None:
        self.live_states: dict[str, MemoryLiveStateStore] = {}
        self.probes: dict[str, FakeActivity] = {}
        self.opened_doors: list[QuietDoors] = []
        self.served_roots: set[str] = set()
        self.next_door_error: BaseException | None = None

    def live_state(self, root: str) -> MemoryLiveStateStore:
        return self.live_states.setdefault(root, MemoryLiveStateStore())

    def activity(self, root: str, kind_of) -> FakeActivity:  # noqa: ANN001
        return self.probes.setdefault(root, FakeActivity())

    def doors(self, project_id: str, root: str, gateway) -> QuietDoors:  # noqa: ANN001
        doors = QuietDoors(root, self.served_roots)
        doors.refuse_with, self.next_door_error = self.next_door_error, None
        self.opened_doors.append(doors)
        return doors
