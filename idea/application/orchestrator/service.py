"""The orchestration core of one open project (spec 03 §2, §7-§11): the composition of its units behind
`OrchestrationGateway`, and what the project runtime asks of it.

The units, each with one reason to change:
- `dispatch.CommandDispatch` routes a command to the handler registered for its type; the handlers live in
  `handlers/`, one module per family of commands;
- `ticket_book.TicketBook` opens and ends every ticket; `ticket_watch.TicketWatch` bounds each in time;
- `delivery_pump.DeliveryPump` types the next ticket into a free agent (`delivery.Deliverer` does the typing);
- `signals.AgentSignals` turns hooks, bridge connections and process exits into ticket outcomes;
- `cold_launch.ColdLaunches` starts stopped agents for a task and holds deliveries at the cold-start gate;
- `context.CoreContext` holds what they share (lanes, live-state board, wait-for graph, activity, tasks).

Invariants, each covered by tests: every ticket reaches exactly one end, through `TicketBook.end`; every ask
ends in bounded time with a typed outcome; a reply is never lost; terminal text never decides that a turn
ended. Everything runs on the core loop; the callbacks (hooks, bridge, process exit) are synchronous.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from idea.application.orchestrator.activity import ActivityTracker
from idea.application.orchestrator.agent_states import AgentStates
from idea.application.orchestrator.board import LiveBoard
from idea.application.orchestrator.cold_launch import ColdLaunches
from idea.application.orchestrator.context import CoreContext
from idea.application.orchestrator.delivery import Deliverer
from idea.application.orchestrator.delivery_pump import DeliveryPump
from idea.application.orchestrator.dispatch import CommandDispatch, CommandFamily
from idea.application.orchestrator.handlers.agents import AgentCommands
from idea.application.orchestrator.handlers.asks import AskCommands
from idea.application.orchestrator.handlers.person import PersonCommands
from idea.application.orchestrator.handlers.work_state import WorkStateCommands
from idea.application.orchestrator.lanes import Lanes
from idea.application.orchestrator.ports import (
    ActivityProbe,
    AgentLifecycle,
    ConversationLog,
    LiveStateStore,
    PortalProvider,
    ProcessCpuProbe,
    Timer,
)
from idea.application.orchestrator.signals import AgentSignals
from idea.application.orchestrator.ticket_book import TicketBook
from idea.application.orchestrator.ticket_watch import TicketWatch
from idea.application.orchestrator.timing import OrchestratorTimings
from idea.application.orchestrator.watch_ports import AgentWatchAdapters, HookSessions
from idea.application.ports import Clock, Diagnostics, EventPublisher, IdGenerator
from idea.domain.errors import AppError, ErrorCode
from idea.domain.ids import AgentId, ProjectId, TicketId
from idea.domain.orchestration.commands import AgentCaller, Command, Human, Outcome, Requester, Source, SubmitHumanInput
from idea.domain.orchestration.events import AgentQueueSnapshot, OrchestratorRequestProcessed, command_action
from idea.domain.orchestration.live_state import LiveEntry, LiveStateRow
from idea.domain.orchestration.tickets import CancelSource, TicketEnd, TicketEndKind
from idea.domain.wait_for import WaitForGraph


class OrchestratorService:
    """Implements `OrchestrationGateway` for one project; one instance per open project.

    `families` are command families beyond the core's own (agents, asks, work state, the person's
    gestures); each registers its handlers on the dispatch.
    """

    def __init__(
        self,
        *,
        project_id: ProjectId,
        project_root: str,
        lifecycle: AgentLifecycle,
        portals: PortalProvider,
        activity: ActivityProbe,
        live_state: LiveStateStore,
        conversations: ConversationLog,
        clock: Clock,
        timer: Timer,
        ids: IdGenerator,
        events: EventPublisher,
        diagnostics: Diagnostics,
        timings: OrchestratorTimings | None = None,
        cpu: ProcessCpuProbe | None = None,
        families: Sequence[CommandFamily] = (),
        watching: AgentWatchAdapters | None = None,
        engine_sessions: HookSessions | None = None,
    ) -> None:
        """`watching`: terminal watches (dialogs, usage limits) and resume timers; without it the agents'
        attention comes from their hooks only and usage limits are not followed. `engine_sessions`: records
        the CLIs' own session ids their hooks carry."""
        self._project_id = project_id
        self._lifecycle = lifecycle
        timings = timings or OrchestratorTimings()
        graph = WaitForGraph()
        ctx = CoreContext(
            project_root=project_root.rstrip("/"),
            lifecycle=lifecycle,
            conversations=conversations,
            clock=clock,
            timer=timer,
            ids=ids,
            events=events,
            diagnostics=diagnostics,
            timings=timings,
            lanes=Lanes(events),
            board=LiveBoard(live_state, clock, events, diagnostics, timer),
            graph=graph,
            activity=ActivityTracker(activity, graph, lifecycle, cpu, diagnostics),
        )
        self._ctx = ctx
        self._book = TicketBook(ctx)
        watch = TicketWatch(ctx, self._book)
        self.states = AgentStates(
            ctx,
            self._book,
            adapters=watching,
            submit_human=self._submit_human,
            turn_failed=lambda agent_id, failed: self._signals.turn_failed(agent_id, failed),
        )
        self._deliverer = Deliverer(timer, timings, diagnostics)
        self._book.attach(
            supervisor=watch,
            pump=DeliveryPump(ctx, self._book, watch, portals, self._deliverer, holding=self.states.holding),
        )
        self._launches = ColdLaunches(ctx)
        self._signals = AgentSignals(ctx, self._book, watch, self._launches, self.states)
        self._engine_sessions = engine_sessions
        self._commands = CommandDispatch()
        core_families: tuple[CommandFamily, ...] = (
            AgentCommands(ctx, self._book, self._launches, self._signals),
            AskCommands(ctx, self._book, self._launches),
            WorkStateCommands(ctx),
            PersonCommands(ctx, self._book, self._launches),
        )
        for family in (*core_families, *families):
            family.register(self._commands)
        self._stop_listening_exits = lifecycle.on_exit(self._signals.agent_exited)

    # ------------------------------------------------------------------ gateway

    @property
    def project_id(self) -> ProjectId:
        return self._project_id

    def authenticate(self, agent_id: AgentId, token: str) -> bool:
        return self._lifecycle.manifest().by_id(agent_id) is not None and self._lifecycle.verify_token(agent_id, token)

    async def dispatch(self, requester: Requester, command: Command, source: Source) -> Outcome:
        """Every door's command; each one processed is published (`OrchestratorRequestProcessed`)."""
        if self._ctx.closing:
            raise AppError(ErrorCode.INVALID, "the project is closing")
        ok = False
        try:
            outcome = await self._commands.dispatch(requester, command, source)
            ok = True
            return outcome
        finally:
            agent = requester.agent_id if isinstance(requester, AgentCaller) else None
            self._ctx.events.publish(OrchestratorRequestProcessed(source.value, command_action(command), ok, agent))

    def handled_commands(self) -> frozenset[type]:
        """Every command type a handler is registered for."""
        return self._commands.handled_types()

    def bridge_connected(self, agent_id: AgentId) -> None:
        self._signals.bridge_connected(agent_id)

    def bridge_initialized(self, agent_id: AgentId) -> None:
        self._signals.bridge_initialized(agent_id)

    def bridge_disconnected(self, agent_id: AgentId) -> None:
        self._signals.bridge_disconnected(agent_id)

    def hook_event(self, agent_id: AgentId, source: str, event: str, payload: dict[str, Any]) -> None:
        self._signals.hook_event(agent_id, source, event, payload)
        if self._engine_sessions is not None and self._lifecycle.manifest().by_id(agent_id) is not None:
            try:
                self._engine_sessions.hook_event(agent_id, source, payload)
            except Exception as exc:  # noqa: BLE001  (a failed record never disturbs the hook's own work)
                self._ctx.diagnostics.beacon(f"[session] engine id not recorded agent={agent_id}: {exc!r}")

    # ------------------------------------------------------------- project runtime

    def agent_launching(self, agent_id: AgentId) -> None:
        """Called by the launch service before any agent process starts: arms its cold-start gate."""
        self._launches.agent_launching(agent_id)

    def agent_launched(self, agent_id: AgentId) -> None:
        """The launched CLI runs: its prompt-ready pattern can release the gate, its screen is watched."""
        self._launches.agent_launched(agent_id)
        self.states.agent_launched(agent_id)

    async def _submit_human(self, agent_id: AgentId, text: str) -> Outcome:
        agent = self._lifecycle.manifest().by_id(agent_id)
        if agent is None:
            raise AppError(ErrorCode.NOT_FOUND, f"agent {agent_id} is no longer in the team")
        return await self.dispatch(Human(), SubmitHumanInput(agent.name, text), Source.UI)

    def reconcile_at_open(self) -> None:
        """Reboot reconciliation of the live-state (§10.4); run before any agent is launched."""
        stale = self._ctx.board.reconcile(lambda agent_id: self._lifecycle.live(agent_id) is not None)
        if stale:
            self._ctx.diagnostics.beacon(f"[live-state] reconciled stale rows agents={','.join(stale)}")
        team = {agent.agent_id for agent in self._lifecycle.manifest().agents}
        for agent_id in self._ctx.board.agents() - team:  # rows of agents deleted just before a crash
            self._ctx.board.forget(agent_id)

    def queue_snapshots(self) -> tuple[AgentQueueSnapshot, ...]:
        """Every agent's queue, in manifest order, for the work panel."""
        lanes = self._ctx.lanes
        return tuple(lanes.snapshot(lanes.of(agent.agent_id)) for agent in self._lifecycle.manifest().agents)

    def work_state_rows(self, excluding: AgentId) -> tuple[LiveStateRow, ...]:
        """The other agents' lean live-state rows, in manifest order, for an agent's convention file."""
        manifest = self._lifecycle.manifest()
        names = {agent.agent_id: agent.name for agent in manifest.agents}
        order = {agent.agent_id: index for index, agent in enumerate(manifest.agents)}
        entries = [e for e in self._ctx.board.current() if e.agent_id != excluding and e.agent_id in order]
        entries.sort(key=lambda e: order[e.agent_id])
        return tuple(
            LiveStateRow(e.agent_id, names[e.agent_id], e.status.value, e.intent or "", e.ticket) for e in entries
        )

    def live_entry(self, agent_id: AgentId) -> LiveEntry | None:
        """The agent's live-state row as the board holds it now (`live-state.json` follows it shortly)."""
        return self._ctx.board.row(agent_id)

    def force_delivery(self, ticket_id: TicketId) -> None:
        """ "Deliver now (clears your line)": the waiting delivery stops waiting for the person's line."""
        record = self._book.open_ticket(ticket_id)
        if record is not None:
            record.force_delivery = True

    def forget_agent(self, agent_id: AgentId) -> None:
        """The agent was deleted: its live-state row goes (its conversations stay)."""
        self._ctx.board.forget(agent_id)

    async def close(self) -> None:
        """End every ticket (CANCELLED) and stop every watcher. Agents and their launches belong to the
        launch service, which stops them with the project."""
        self._ctx.closing = True
        self._ctx.board.close()  # rows written while the project closes go to the file at once
        self._stop_listening_exits()
        for record in self._book.open_records():
            self._book.end(record, TicketEnd(TicketEndKind.CANCELLED, cancel_source=CancelSource.PROJECT_CLOSED))
        for lane in self._ctx.lanes.all():
            lane.forget_session()
        await self.states.close()
        await self._deliverer.close()
        await self._ctx.tasks.cancel_all(sparing=self._launches.in_flight())
