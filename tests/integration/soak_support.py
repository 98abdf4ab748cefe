"""The randomized rendezvous soak (issue 16): many asks across the six agents of a scenario (Main and five
fake agent CLIs), with the disorder real teams bring — targets and requesters killed, Main's bridge
dropped, asks cancelled by their client and by the person, late replies, nested asks — checking after
every step and at the end that

- every ask ended with a typed outcome within its bound (client side: a reply or an `IdeA error <CODE>`;
  IdeA side: one `RendezvousEnded` per ticket, within its bound);
- no agent is busy without an open ticket;
- no ticket is lost (every ticket IdeA opened ended) or ended twice, and no reply reached the wrong ask.

Everything random comes from one seed (printed, and named in every failure); `IDEA_SOAK_SEED` replays it.
Timing on a loaded machine still varies, so a replay repeats the same choices, not the same interleaving.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from idea.application.orchestrator import timing
from idea.domain.events import OrchestrationNews
from idea.domain.orchestration.commands import CancelTicket
from idea.domain.orchestration.events import AgentQueueChanged, RendezvousEnded
from tests.integration.scenario_support import (
    COLD,
    WARM,
    Scenario,
    ScenarioFactory,
    error_code,
    kill_hard,
    requester_client,
    result_text,
)

TARGETS = (*WARM, *COLD)  # five fake agents; Main is the sixth, the soak's own requester
SOAK_TIMINGS = {
    timing.WINDOW_ENV: 6_000,
    timing.CEILING_ENV: 25_000,
}
ASK_BOUND_S = 25 + 15.0  # the ceiling, plus delivery and a loaded machine's slack
TICKET_BOUND_MS = 25_000 + 10_000
MAX_IN_FLIGHT = 6
QUIESCE_S = 60.0
KNOWN_CODES = {
    "TARGET_RETURNED_NO_REPLY",
    "RENDEZVOUS_TIMEOUT",
    "RENDEZVOUS_CEILING_ACTIVE",
    "TARGET_DIED",
    "TARGET_STOPPED",
    "CANCELLED",
    "DELEGATION_CYCLE",
    "PROCESS",
}
ACTIONS = ("ask", "client-cancel", "person-cancel", "kill", "disconnect")
WEIGHTS = (20, 1.5, 1.5, 1.2, 0.6)


@dataclass
class Ask:
    number: int
    target: str
    task: str
    expected: str | None  # the exact answer a success must carry
    started: float
    task_handle: asyncio.Task[Any] | None = None
    ended: float | None = None
    text: str = ""
    is_error: bool = False
    code: str | None = None
    abandoned: str | None = None  # "client-cancel" / "disconnect": the client stopped waiting itself

    @property
    def elapsed(self) -> float:
        return (self.ended or time.monotonic()) - self.started


@dataclass
class TicketLedger:
    """What IdeA said about its tickets, from its events (published on the core thread)."""

    opened: set[str] = field(default_factory=set)
    ended: Counter[str] = field(default_factory=Counter)
    late: list[tuple[str, int]] = field(default_factory=list)  # (ticket, elapsed ms) beyond the bound
    lock: threading.Lock = field(default_factory=threading.Lock)

    def on_event(self, event: object) -> None:
        if not isinstance(event, OrchestrationNews):
            return
        inner = event.event
        with self.lock:
            if isinstance(inner, AgentQueueChanged):
                self.opened.update(view.ticket_id for view in inner.snapshot.tickets)
            elif isinstance(inner, RendezvousEnded):
                self.ended[inner.ticket] += 1
                if inner.elapsed_ms > TICKET_BOUND_MS:
                    self.late.append((inner.ticket, inner.elapsed_ms))

    def open_now(self) -> set[str]:
        with self.lock:
            return self.opened - set(self.ended)


class SoakFailure(AssertionError):
    pass


class Soak:
    def __init__(self, scenario: Scenario, seed: int, asks: int) -> None:
        self.scenario = scenario
        self.seed = seed
        self.wanted = asks
        self.rng = random.Random(seed)
        self.asks: list[Ask] = []
        self.tickets = TicketLedger()
        self.session: Any = None
        self._connected = asyncio.Event()
        self._disconnect = asyncio.Event()
        self._connection: asyncio.Task[None] | None = None
        self.counts: Counter[str] = Counter()
        scenario.app.events.subscribe(self.tickets.on_event)

    def fail(self, message: str) -> SoakFailure:
        return SoakFailure(f"soak seed {self.seed} (replay with IDEA_SOAK_SEED={self.seed}): {message}")

    # -- Main's MCP client, through its real bridge --

    async def connect(self) -> None:
        self._disconnect.clear()
        self._connected.clear()
        self._connection = asyncio.create_task(self._keep_connection())
        await asyncio.wait_for(self._connected.wait(), 30)

    async def _keep_connection(self) -> None:
        # anyio's scopes must be left by the task that entered them: one task holds the whole session.
        async with requester_client(self.scenario) as session:
            self.session = session
            self._connected.set()
            await self._disconnect.wait()
        self.session = None

    async def disconnect(self) -> None:
        self._disconnect.set()
        if self._connection is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._connection, 30)

    # -- the run --

    async def run(self) -> None:
        await self.connect()
        try:
            while len(self.asks) < self.wanted:
                action = self.rng.choices(ACTIONS, WEIGHTS)[0]
                await self.step(action)
                await self.check_step()
            await self.drain()
            await self.check_end()
            await self.check_every_agent_still_answers()
        finally:
            for ask in self.asks:
                if ask.task_handle is not None and not ask.task_handle.done():
                    ask.task_handle.cancel()
            await self.disconnect()

    async def step(self, action: str) -> None:
        self.counts[action] += 1
        if action == "ask":
            while len(self.in_flight()) >= MAX_IN_FLIGHT:
                await self.wait_any(1.0)
            self.start_ask()
            await asyncio.sleep(self.rng.uniform(0.0, 0.15))
        elif action == "client-cancel":
            flying = self.in_flight()
            if flying:
                ask = self.rng.choice(flying)
                await asyncio.sleep(self.rng.uniform(0.1, 0.6))
                if ask.task_handle is not None and not ask.task_handle.done():
                    ask.abandoned = "client-cancel"
                    ask.task_handle.cancel()
        elif action == "person-cancel":
            open_tickets = sorted(self.tickets.open_now())
            if open_tickets:
                ticket = self.rng.choice(open_tickets)
                with contextlib.suppress(Exception):  # it may have ended meanwhile: NOT_FOUND is fine
                    await asyncio.to_thread(self.scenario.dispatch, CancelTicket(ticket=ticket))
        elif action == "kill":
            name = self.rng.choice(TARGETS)
            pid = await asyncio.to_thread(self.scenario.pid, name)
            if pid is not None:
                with contextlib.suppress(ProcessLookupError):
                    kill_hard(pid)
        elif action == "disconnect":
            for ask in self.in_flight():
                ask.abandoned = "disconnect"
            await self.disconnect()
            await self.wait_all(ASK_BOUND_S)
            await self.connect()

    def start_ask(self) -> None:
        number = len(self.asks) + 1
        target = self.rng.choice(TARGETS)
        task, expected = self.directive(number, target)
        ask = Ask(number, target, task, expected, time.monotonic())
        session = self.session
        ask.task_handle = asyncio.create_task(self._ask(ask, session))
        self.asks.append(ask)

    def directive(self, number: int, target: str) -> tuple[str, str | None]:
        kind = self.rng.choices(
            ("reply", "work", "prose", "silent", "nested", "late", "die"), (8, 3, 1, 1, 3, 1, 0.6)
        )[0]
        if kind == "reply":
            return f"reply r{number}", f"r{number}"
        if kind == "work":
            return f"work {self.rng.choice((0.3, 0.8, 1.5))} then reply w{number}", f"w{number}"
        if kind == "prose":
            return f"prose p{number}", None
        if kind == "silent":
            return "silent 0.5", None
        if kind == "nested":
            other = self.rng.choice([name for name in TARGETS if name != target])
            return f"ask {other} reply n{number}", None  # relay:n…, or a relayed error: both typed
        if kind == "late":
            return f"work 3 then reply l{number}", f"l{number}"  # often cancelled first: a late reply
        return "die 3", None

    async def _ask(self, ask: Ask, session: Any) -> None:
        try:
            result = await session.call_tool("idea_ask_agent", {"target": ask.target, "task": ask.task})
            ask.text = result_text(result)
            ask.is_error = bool(result.is_error)
            ask.code = error_code(result) or _code_in_text(ask.text)
        except asyncio.CancelledError:
            ask.is_error, ask.code = True, "client-cancelled"
        except Exception as exc:  # the session closed under it (a disconnect)
            ask.is_error, ask.code, ask.text = True, "connection-closed", repr(exc)
        finally:
            ask.ended = time.monotonic()

    def in_flight(self) -> list[Ask]:
        return [ask for ask in self.asks if ask.ended is None]

    async def wait_any(self, timeout: float) -> None:
        handles = [ask.task_handle for ask in self.in_flight() if ask.task_handle is not None]
        if handles:
            await asyncio.wait(handles, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)

    async def wait_all(self, timeout: float) -> None:
        handles = [ask.task_handle for ask in self.in_flight() if ask.task_handle is not None]
        if handles:
            await asyncio.wait(handles, timeout=timeout)

    async def drain(self) -> None:
        await self.wait_all(ASK_BOUND_S + 5)
        deadline = time.monotonic() + QUIESCE_S
        while self.unended_tickets() and time.monotonic() < deadline:
            await asyncio.sleep(0.1)

    def unended_tickets(self) -> dict[str, str]:
        """The tickets seen in a queue that have not ended, with their kind. Only asks publish
        `RendezvousEnded`; the others (a task, a late reply shown to its requester) end in the log alone, so
        a ticket without that event is looked up there: its kind from `[mailbox] enqueued`, its end from
        the one `ended ticket=` line every ticket gets."""
        still_open = self.tickets.open_now()
        if not still_open:
            return {}
        log = self.scenario.app.data_dir / "logs" / "idea.log"
        kinds: dict[str, str] = {}
        ended: Counter[str] = Counter()
        for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
            fields = dict(part.split("=", 1) for part in line.split() if "=" in part)
            ticket = fields.get("ticket")
            if ticket not in still_open:
                continue
            if "[mailbox] enqueued" in line:
                kinds[ticket] = fields.get("kind", "?")
            elif " ended ticket=" in line:
                ended[ticket] += 1
        return {
            ticket: kinds.get(ticket, "?")
            for ticket in still_open
            if kinds.get(ticket) in (None, "ask") or ended[ticket] != 1
        }

    # -- the invariants --

    async def check_step(self) -> None:
        for ask in self.asks:
            if ask.elapsed > ASK_BOUND_S + 5:
                raise self.fail(f"ask #{ask.number} to {ask.target} ({ask.task!r}) still open after {ask.elapsed:.1f} s")
            if ask.ended is not None:
                self.check_outcome(ask)
        snapshots = await asyncio.to_thread(self.scenario.sync, self.scenario.runtime.orchestrator.queue_snapshots)
        for snapshot in snapshots:
            if snapshot.busy is not None and snapshot.busy.ticket not in {t.ticket_id for t in snapshot.tickets}:
                raise self.fail(f"agent {snapshot.agent_id} is busy with ticket {snapshot.busy.ticket}, which is not open")
        with self.tickets.lock:
            twice = [ticket for ticket, count in self.tickets.ended.items() if count > 1]
            late = list(self.tickets.late)
        if twice:
            raise self.fail(f"tickets ended twice: {twice}")
        if late:
            raise self.fail(f"tickets ended beyond their bound: {late}")

    def check_outcome(self, ask: Ask) -> None:
        if ask.abandoned is not None and ask.code in ("client-cancelled", "connection-closed"):
            return  # the client stopped waiting itself; IdeA's side is checked through its tickets
        if not ask.is_error:
            if ask.expected is not None and ask.text != ask.expected:
                raise self.fail(f"ask #{ask.number} ({ask.task!r}) got {ask.text[:120]!r}: another ask's reply?")
            return
        if ask.code not in KNOWN_CODES:
            raise self.fail(f"ask #{ask.number} to {ask.target} ({ask.task!r}) ended untyped: {ask.code} {ask.text[:200]!r}")

    async def check_end(self) -> None:
        for ask in self.asks:
            if ask.ended is None:
                raise self.fail(f"ask #{ask.number} to {ask.target} never ended")
            self.check_outcome(ask)
        unended = self.unended_tickets()
        if unended:
            raise self.fail(f"tickets IdeA opened and never ended (ticket: kind): {unended}")
        snapshots = await asyncio.to_thread(self.scenario.sync, self.scenario.runtime.orchestrator.queue_snapshots)
        busy = [s.agent_id for s in snapshots if s.busy is not None]
        queued = [s.agent_id for s in snapshots if s.tickets]
        if busy or queued:
            raise self.fail(f"at rest, agents still busy {busy} or with queued tickets {queued}")
        await self.check_step()

    async def check_every_agent_still_answers(self) -> None:
        """After the faults, each agent takes one plain ask (started again if it was killed): a lane that
        stopped delivering fails here, whatever the invariants above saw."""
        for target in TARGETS:
            number = len(self.asks) + 1
            ask = Ask(number, target, f"reply final{number}", f"final{number}", time.monotonic())
            self.asks.append(ask)
            await self._ask(ask, self.session)
            if ask.is_error or ask.text != ask.expected:
                raise self.fail(f"after the soak, {target} did not answer a plain ask: {ask.code} {ask.text[:200]!r}")

    def summary(self) -> dict[str, Any]:
        outcomes: Counter[str] = Counter(
            "ok" if not ask.is_error else (ask.code or "?") for ask in self.asks
        )
        with self.tickets.lock:
            tickets = len(self.tickets.opened)
        return {
            "seed": self.seed,
            "asks": len(self.asks),
            "tickets": tickets,
            "actions": dict(self.counts),
            "outcomes": dict(sorted(outcomes.items())),
            "longest_ask_s": round(max((ask.elapsed for ask in self.asks), default=0.0), 2),
        }


def _code_in_text(text: str) -> str | None:
    """`IdeA error CODE (…)`: the code a model reading only text sees (structured content may be absent)."""
    if text.startswith("IdeA error "):
        return text.split()[2]
    return None


def open_soak_world(factory: ScenarioFactory) -> Scenario:
    return factory.open(timings=SOAK_TIMINGS)


def outcome_table(soak: Soak) -> list[str]:
    return [
        f"#{a.number} {a.target} {a.task!r} -> {'ok' if not a.is_error else a.code} {a.elapsed:.1f}s {a.text[:90]!r}"
        for a in soak.asks
    ]
