"""A scriptable stand-in for the orchestration core, for the tests of its doors (MCP, hooks, request folders).

It implements `OrchestrationGateway` and records everything the doors tell it. Commands answer at once
with a scripted result, or are held until the test releases them, which is how a pending `idea_ask_agent`
is simulated. Tests wait for what they expect with `until`, which wakes on every recorded change.
"""

from __future__ import annotations

import asyncio
import hmac
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from idea.domain.errors import AppError
from idea.domain.ids import AgentId, ProjectId
from idea.domain.orchestration.commands import AgentCaller, Command, ListAgents, Outcome, Requester, Source

PROJECT_ID = "0f3c2a9e-6b1d-4c1e-9d0a-2f6f1f7b8c11"
MAIN = "dce19c75-9669-4e45-b8de-9950025157da"
ARCHITECT = "a6ced819-b893-4213-b003-9e9dc79b9641"
NAMES = {MAIN: "Main", ARCHITECT: "Architect"}
TOKENS = {MAIN: "main-secret-" + "1" * 52, ARCHITECT: "architect-secret-" + "2" * 47}


@dataclass
class Dispatched:
    requester: Requester
    command: Command
    source: Source
    held: asyncio.Future[Outcome] | None = None
    cancelled: bool = False
    finished: bool = False


@dataclass
class HookEvent:
    agent_id: AgentId
    source: str
    event: str
    payload: dict[str, Any]


@dataclass
class FakeGateway:
    names: dict[AgentId, str] = field(default_factory=lambda: dict(NAMES))
    tokens: dict[AgentId, str] = field(default_factory=lambda: dict(TOKENS))
    project: ProjectId = PROJECT_ID
    dispatched: list[Dispatched] = field(default_factory=list)
    presented_tokens: list[tuple[AgentId, str]] = field(default_factory=list)
    hook_events: list[HookEvent] = field(default_factory=list)
    connected: list[AgentId] = field(default_factory=list)
    initialized: list[AgentId] = field(default_factory=list)
    disconnected: list[AgentId] = field(default_factory=list)
    _results: dict[type, Outcome | BaseException | Callable[[Command], Outcome]] = field(default_factory=dict)
    _held_types: set[type] = field(default_factory=set)
    _waiters: list[asyncio.Future[None]] = field(default_factory=list)

    # Scripting.

    def answer(self, command_type: type, result: Outcome | BaseException | Callable[[Command], Outcome]) -> None:
        """What every later command of this type returns (or raises)."""
        self._results[command_type] = result

    def hold(self, command_type: type) -> None:
        """Later commands of this type wait until `release` (or their cancellation)."""
        self._held_types.add(command_type)

    def release(self, call: Dispatched, result: Outcome | AppError) -> None:
        assert call.held is not None and not call.held.done(), "that call is not waiting"
        if isinstance(result, AppError):
            call.held.set_exception(result)
        else:
            call.held.set_result(result)

    # Observation.

    def calls_of(self, command_type: type) -> list[Dispatched]:
        return [call for call in self.dispatched if isinstance(call.command, command_type)]

    def waiting(self, command_type: type) -> list[Dispatched]:
        return [
            call
            for call in self.calls_of(command_type)
            if call.held is not None and not call.held.done() and not call.cancelled
        ]

    async def until(self, predicate: Callable[[], bool], timeout: float = 5.0, *, what: str = "") -> None:
        """Wait until `predicate` holds, re-checking it at every change the doors report."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not predicate():
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise AssertionError(f"timed out after {timeout:g} s waiting for {what or predicate}")
            change: asyncio.Future[None] = loop.create_future()
            self._waiters.append(change)
            try:
                await asyncio.wait_for(change, remaining)
            except TimeoutError:
                pass

    def _changed(self) -> None:
        waiters, self._waiters = self._waiters, []
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)

    # OrchestrationGateway.

    @property
    def project_id(self) -> ProjectId:
        return self.project

    def authenticate(self, agent_id: AgentId, token: str) -> bool:
        self.presented_tokens.append((agent_id, token))
        expected = self.tokens.get(agent_id)
        return expected is not None and hmac.compare_digest(expected, token)

    async def dispatch(self, requester: Requester, command: Command, source: Source) -> Outcome:
        call = Dispatched(requester, command, source)
        self.dispatched.append(call)
        self._changed()
        try:
            if type(command) in self._held_types:
                call.held = asyncio.get_running_loop().create_future()
                self._changed()
                return await call.held
            return self._result(requester, command)
        except asyncio.CancelledError:
            call.cancelled = True
            raise
        finally:
            call.finished = True
            self._changed()

    def _result(self, requester: Requester, command: Command) -> Outcome:
        scripted = self._results.get(type(command))
        if isinstance(scripted, BaseException):
            raise scripted
        if isinstance(scripted, Outcome):
            return scripted
        if scripted is not None:
            return scripted(command)
        if isinstance(command, ListAgents):
            return self._listing(requester)
        return Outcome(detail=f"{type(command).__name__} done")

    def _listing(self, requester: Requester) -> Outcome:
        you = self.names.get(requester.agent_id, "?") if isinstance(requester, AgentCaller) else "you"
        agents = [{"name": name, "agentId": agent_id} for agent_id, name in self.names.items()]
        listing = {"you": you, "agents": agents}
        return Outcome(detail=json.dumps(listing), data=listing)

    def bridge_connected(self, agent_id: AgentId) -> None:
        self.connected.append(agent_id)
        self._changed()

    def bridge_initialized(self, agent_id: AgentId) -> None:
        self.initialized.append(agent_id)
        self._changed()

    def bridge_disconnected(self, agent_id: AgentId) -> None:
        self.disconnected.append(agent_id)
        self._changed()

    def hook_event(self, agent_id: AgentId, source: str, event: str, payload: dict[str, Any]) -> None:
        self.hook_events.append(HookEvent(agent_id, source, event, payload))
        self._changed()
