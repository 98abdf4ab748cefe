"""The live terminals of one project. Cells only display sessions; the registry owns them, so moving,
merging, zooming or tearing off a cell never restarts a process."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from idea import __version__
from idea.application.ports import (
    Clock,
    EventPublisher,
    Host,
    IdGenerator,
    TerminalFactory,
    TerminalSession,
    Unsubscribe,
)
from idea.domain.errors import AppError, not_found
from idea.domain.events import AgentExited, AgentLaunched, SessionsChanged
from idea.domain.ids import AgentId, ProjectId, SessionId
from idea.domain.session import SessionInfo, SessionKind, SessionState
from idea.domain.spawn_env import DEFAULT_ENV_DENYLIST, build_spawn_env
from idea.domain.terminal import SpawnSpec

ExitListener = Callable[[SessionInfo], None]


@dataclass(frozen=True)
class LaunchRequest:
    """What to run; the registry completes the environment every terminal child gets."""

    argv: tuple[str, ...]
    cwd: str
    kind: SessionKind
    label: str
    env: Mapping[str, str]
    agent_id: AgentId | None = None
    shift_enter: str | None = None  # SpawnSpec.shift_enter


class SessionRegistry:
    def __init__(
        self,
        project_id: ProjectId,
        factory: TerminalFactory,
        host: Host,
        clock: Clock,
        ids: IdGenerator,
        events: EventPublisher,
        env_denied: Callable[[], Iterable[str]] = lambda: DEFAULT_ENV_DENYLIST,
    ) -> None:
        """`env_denied()`: the variables of IdeA's environment a new terminal does not inherit (the settings')."""
        self._project_id = project_id
        self._env_denied = env_denied
        self._factory = factory
        self._host = host
        self._clock = clock
        self._ids = ids
        self._events = events
        self._terminals: dict[SessionId, TerminalSession] = {}
        self._infos: dict[SessionId, SessionInfo] = {}
        self._requests: dict[SessionId, LaunchRequest] = {}
        self._exit_listeners: list[ExitListener] = []

    # -- queries (snapshots are immutable and safe to read from any thread) --

    def snapshot(self) -> tuple[SessionInfo, ...]:
        return tuple(self._infos.values())

    def info(self, session_id: SessionId) -> SessionInfo:
        try:
            return self._infos[session_id]
        except KeyError:
            raise not_found(f"no terminal session {session_id} in this project") from None

    def knows(self, session_id: SessionId) -> bool:
        return session_id in self._infos

    def is_live(self, session_id: SessionId) -> bool:
        info = self._infos.get(session_id)
        return info is not None and info.is_live

    def terminal(self, session_id: SessionId) -> TerminalSession:
        try:
            return self._terminals[session_id]
        except KeyError:
            raise not_found(f"no terminal session {session_id} in this project") from None

    def request(self, session_id: SessionId) -> LaunchRequest:
        return self._requests[session_id]

    def live_agent_session(self, agent_id: AgentId) -> SessionInfo | None:
        return next((s for s in self._infos.values() if s.agent_id == agent_id and s.is_live), None)

    def on_exit(self, listener: ExitListener) -> Unsubscribe:
        self._exit_listeners.append(listener)
        return lambda: self._exit_listeners.remove(listener)

    # -- use cases --

    def spawn_spec(self, request: LaunchRequest) -> SpawnSpec:
        env = build_spawn_env(
            self._host.environ(),
            idea_version=__version__,
            frozen=self._host.is_frozen(),
            extra=request.env,
            deny=self._env_denied(),
        )
        return SpawnSpec(argv=request.argv, cwd=request.cwd, env=env, shift_enter=request.shift_enter)

    async def start(self, request: LaunchRequest) -> SessionInfo:
        """Start a process in a new terminal. A program that cannot start gives a FAILED session whose
        error the cell shows; it never raises for that."""
        session_id = self._ids.new_id()
        terminal = self._factory.create(session_id, self._project_id)
        info = SessionInfo(
            id=session_id,
            kind=request.kind,
            state=SessionState.STARTING,
            label=request.label,
            cwd=request.cwd,
            started_at_ms=self._clock.now_ms(),
            agent_id=request.agent_id,
        )
        self._terminals[session_id] = terminal
        self._requests[session_id] = request
        self._update(info)
        terminal.on_exit(lambda code: self._exited(session_id, code))
        terminal.on_title(lambda title: self._retitled(session_id, title))
        try:
            pid = await terminal.start(self.spawn_spec(request))
        except AppError as exc:
            self._update(self._infos[session_id].failed(exc.message))
            return self._infos[session_id]
        current = self._infos[session_id]
        if current.state is SessionState.STARTING:
            self._update(current.running(pid))
            if request.kind is SessionKind.AGENT and request.agent_id is not None:
                self._events.publish(AgentLaunched(self._project_id, request.agent_id, session_id))
        return self._infos[session_id]

    async def restart(self, session_id: SessionId) -> SessionInfo:
        """Run the same program again in a new session. The old one stays known until the caller has
        shown the new one in its place and releases it."""
        if self.info(session_id).is_live:
            await self.stop(session_id)
        return await self.start(self._requests[session_id])

    async def stop(self, session_id: SessionId, grace_ms: int = 3000) -> None:
        terminal = self.terminal(session_id)
        if self._infos[session_id].is_live:
            await terminal.terminate(grace_ms)

    async def stop_all(self, grace_ms: int = 3000) -> None:
        live = [sid for sid, info in self._infos.items() if info.is_live]
        await asyncio.gather(*(self.stop(sid, grace_ms) for sid in live), return_exceptions=True)

    def release(self, session_id: SessionId) -> None:
        """Forget an ended session (its widget goes away). Live sessions are never released."""
        info = self._infos.get(session_id)
        if info is None or info.is_live:
            return
        del self._infos[session_id]
        self._terminals.pop(session_id, None)
        self._requests.pop(session_id, None)
        self._factory.release(session_id)
        self._publish()

    # -- terminal callbacks (on the core loop) --

    def _exited(self, session_id: SessionId, exit_code: int | None) -> None:
        info = self._infos.get(session_id)
        if info is None or not info.is_live:
            return
        ended = info.exited(exit_code)
        self._update(ended)
        if ended.kind is SessionKind.AGENT and ended.agent_id is not None:
            self._events.publish(AgentExited(self._project_id, ended.agent_id, session_id, exit_code))
        for listener in list(self._exit_listeners):
            listener(ended)

    def _retitled(self, session_id: SessionId, title: str) -> None:
        info = self._infos.get(session_id)
        if info is not None and info.title != title:
            self._update(info.retitled(title))

    def _update(self, info: SessionInfo) -> None:
        self._infos[info.id] = info
        self._publish()

    def _publish(self) -> None:
        self._events.publish(SessionsChanged(self._project_id, self.snapshot()))
