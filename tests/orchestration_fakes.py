"""Fakes for the orchestration core: a virtual timer that tests advance, the agent launch pipeline, input
portals, the activity probe and in-memory stores, plus a harness wiring an OrchestratorService to them."""

from __future__ import annotations

import asyncio
import heapq
import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from idea.application.orchestrator.dispatch import CommandFamily
from idea.application.orchestrator.ports import LiveAgent
from idea.application.orchestrator.service import OrchestratorService
from idea.application.orchestrator.timing import OrchestratorTimings
from idea.application.ports import Unsubscribe
from idea.domain.agent import AgentEntry, AgentManifest
from idea.domain.conversation_log import ConversationTurn
from idea.domain.errors import AppError, CorruptFileError, ErrorCode
from idea.domain.live_state import LiveState
from idea.domain.orchestration import AgentCaller, Human, Outcome, Requester, Source
from idea.domain.profile import Profile
from tests.fakes import FakeTerminal, RecordingDiagnostics, RecordingEvents, SequentialIds

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


# --- profiles -----------------------------------------------------------------------------------------


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

    async def launch(self, agent_id: str, *, node_id: str | None, visible: bool, reason: str) -> LiveAgent:
        self.launches.append((agent_id, node_id, visible, reason))
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


# --- the harness ----------------------------------------------------------------------------------------


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
        return self.store.state.row(self.id(name))

    def start(self, requester: Requester, command: Any, source: Source = Source.MCP) -> asyncio.Task[Outcome]:
        """Dispatch in the background, as a door would, and return the awaiting task."""
        task = asyncio.ensure_future(self.service.dispatch(requester, command, source))
        self.tasks.append(task)
        return task

    async def ask(self, requester: str | Requester, target: str, task: str) -> asyncio.Task[Outcome]:
        from idea.domain.orchestration import AskAgent

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
    )
    return Harness(service, lifecycle, time, portals, activity, store, log, events, diagnostics, cpu)


HUMAN = Human()
