"""The orchestration core of one open project: every command of every door, the mailboxes, delivery into
live terminals, the rendezvous of asks and the live-state board (spec 03 §2, §7-§11).

Invariants, each covered by tests:
- every ticket reaches exactly one end, through `_end_ticket`, which releases the head, the wait-for edge
  and the watchers, and writes the live-state rows — whatever ended it, including the cancellation of the
  coroutine that awaited it (failures #3, #8, #13, #16 of §13);
- every ask ends in bounded time with a typed outcome (window re-armed on activity, absolute ceiling,
  no-reply backstop, death, stop, cancellation);
- a reply is never lost: after its requester stopped waiting it is recorded and shown (§9.7);
- terminal text never decides that a turn ended; hooks and the activity token do (failure #10).

Everything runs on the core loop; the callbacks (hooks, bridge, process exit) are synchronous.
"""

from __future__ import annotations

import asyncio
import json
from collections import OrderedDict
from collections.abc import Callable, Collection, Coroutine
from typing import Any, NoReturn

from idea.application.agents.convention_file import LiveStateRow
from idea.application.orchestrator.board import LiveBoard
from idea.application.orchestrator.cold_start import ColdStartGate, PromptPatternWatcher
from idea.application.orchestrator.delivery import Deliverer, DeliveryJob
from idea.application.orchestrator.mailbox import AgentLane, Mailbox, TicketRecord
from idea.application.orchestrator.ports import (
    ActivityProbe,
    AgentLifecycle,
    ConversationLog,
    LiveAgent,
    LiveStateStore,
    PortalProvider,
    ProcessCpuProbe,
    Timer,
)
from idea.application.orchestrator.rendezvous import (
    ActivitySnapshot,
    WatchdogVerdict,
    no_reply_grace,
    run_inactivity_watchdog,
    watch_for_quiet_return,
)
from idea.application.orchestrator.timing import OrchestratorTimings
from idea.application.ports import Clock, Diagnostics, EventPublisher, IdGenerator
from idea.domain import orchestration_rules as rules
from idea.domain.agent import AgentEntry, AgentManifest
from idea.domain.conversation_log import ConversationTurn, TurnRole
from idea.domain.delivery import FileReplyChannel, compose_delivery, is_idea_delivery
from idea.domain.errors import AppError, ErrorCode
from idea.domain.ids import AgentId, ProjectId, TicketId, conversation_for_pair
from idea.domain.live_state import abandoned_marker, exited_marker
from idea.domain.orchestration import (
    AgentCaller,
    AskAgent,
    CancelTicket,
    Command,
    Human,
    Interrupt,
    LaunchAgent,
    ListAgents,
    Outcome,
    ReadWorkState,
    Reply,
    Requester,
    SetWorkState,
    Source,
    StopAgent,
    SubmitHumanInput,
    UpdateAgentContext,
    Visibility,
    WorkStatus,
)
from idea.domain.orchestration_events import (
    AgentAttention,
    AgentBusyChanged,
    AgentQueueChanged,
    AgentQueueSnapshot,
    AgentReplied,
    BridgeStateChanged,
    ColdStartDegraded,
    DelegationDelivered,
    DelegationReady,
    DeliveryMayBeStuck,
    DeliveryWaiting,
    HumanReplyReceived,
    LateReplyAvailable,
    RendezvousEnded,
)
from idea.domain.profile import Profile
from idea.domain.tickets import (
    AgentSource,
    CancelSource,
    HumanSource,
    InputSource,
    Ticket,
    TicketEnd,
    TicketEndKind,
    TicketKind,
    TicketPhase,
    collapse_whitespace,
    preview,
)
from idea.domain.wait_for import WaitForGraph

ESC = "\x1b"
CLOSED_TICKETS_KEPT = 2000  # ended tickets remembered so late replies find their requester
PERSONA_MAX_CHARS = 200_000
CLAUDE_HOOKS = "claude"
CODEX_NOTIFY = "codexNotify"
CODEX_TURN_COMPLETE = "agent-turn-complete"


class OrchestratorService:
    """Implements `OrchestrationGateway` for one project; one instance per open project."""

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
    ) -> None:
        self._project_id = project_id
        self._project_root = project_root.rstrip("/")
        self._lifecycle = lifecycle
        self._portals = portals
        self._activity_probe = activity
        self._conversations = conversations
        self._clock = clock
        self._timer = timer
        self._ids = ids
        self._events = events
        self._diagnostics = diagnostics
        self._timings = timings or OrchestratorTimings()
        self._cpu = cpu
        self._board = LiveBoard(live_state, clock, events, diagnostics)
        self._deliverer = Deliverer(timer, self._timings, diagnostics)
        self._graph = WaitForGraph()
        self._lanes: dict[AgentId, AgentLane] = {}
        self._open: dict[TicketId, TicketRecord] = {}
        self._closed: OrderedDict[TicketId, TicketRecord] = OrderedDict()
        self._launches: dict[AgentId, asyncio.Task[LiveAgent]] = {}
        self._declared_intents: dict[AgentId, tuple[str, int]] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._closing = False
        self._stop_listening_exits = lifecycle.on_exit(self._agent_exited)

    # ------------------------------------------------------------------ gateway

    @property
    def project_id(self) -> ProjectId:
        return self._project_id

    def authenticate(self, agent_id: AgentId, token: str) -> bool:
        return self._lifecycle.manifest().by_id(agent_id) is not None and self._lifecycle.verify_token(agent_id, token)

    async def dispatch(self, requester: Requester, command: Command, source: Source) -> Outcome:
        if self._closing:
            raise AppError(ErrorCode.INVALID, "the project is closing")
        match command:
            case ListAgents():
                return self._list_agents(requester)
            case AskAgent():
                return await self._ask(requester, command, source)
            case Reply():
                return await self._reply(requester, command)
            case LaunchAgent():
                return await self._launch(requester, command)
            case StopAgent():
                return await self._stop(requester, command)
            case UpdateAgentContext():
                return await self._update_context(requester, command)
            case ReadWorkState():
                return self._read_work_state()
            case SetWorkState():
                return self._set_work_state(requester, command)
            case SubmitHumanInput():
                return await self._submit_human_input(requester, command)
            case Interrupt():
                return await self._interrupt(requester, command)
            case CancelTicket():
                return self._cancel_ticket(requester, command)
        raise AppError(ErrorCode.INVALID, f"unsupported command {type(command).__name__}")

    def bridge_connected(self, agent_id: AgentId) -> None:
        lane = self._lane(agent_id)
        lane.bridge_connections += 1
        self._events.publish(BridgeStateChanged(agent_id, connected=True))
        self._publish_queue(lane)

    def bridge_initialized(self, agent_id: AgentId) -> None:
        self._release_gate(agent_id, "bridge_initialized")

    def bridge_disconnected(self, agent_id: AgentId) -> None:
        """One connection ended; the agent stays connected while another one of its bridges is (`claude mcp
        list` run in its run dir, a restarted CLI whose old bridge hangs up after the new one connected)."""
        lane = self._lane(agent_id)
        lane.bridge_connections = max(0, lane.bridge_connections - 1)
        self._events.publish(BridgeStateChanged(agent_id, connected=lane.bridge_connected))
        self._publish_queue(lane)

    def hook_event(self, agent_id: AgentId, source: str, event: str, payload: dict[str, Any]) -> None:
        if self._lifecycle.manifest().by_id(agent_id) is None:
            return
        transcript = payload.get("transcript_path")
        self._activity_probe.note_hook_event(agent_id, transcript if isinstance(transcript, str) else None)
        if source == "codex":
            if event == CODEX_TURN_COMPLETE or payload.get("type") == CODEX_TURN_COMPLETE:
                messages = payload.get("input-messages")
                texts = [m for m in messages if isinstance(m, str)] if isinstance(messages, list) else []
                owner = self._owner_of(agent_id, "\n".join(texts))
                self._turn_ended(agent_id, owner.ticket.id if owner else None)
            return
        if event == "SessionStart":
            self._release_gate(agent_id, "SessionStart")
        elif event == "UserPromptSubmit":
            prompt = payload.get("prompt")
            self._turn_started(agent_id, prompt if isinstance(prompt, str) else "")
        elif event == "Stop":
            self._turn_ended(agent_id, self._lane(agent_id).turn_owner)
        elif event == "Notification":
            self._attention(agent_id, payload.get("message"))

    # ------------------------------------------------------------- project runtime

    def agent_launching(self, agent_id: AgentId) -> None:
        """Any launch of an agent, the person's included, is a cold start: a task that arrives before its CLI
        is ready waits at the gate instead of being typed before the prompt exists (§8.6, failure #5).
        Called before the process starts, so its first ready signal is not missed."""
        if self._closing or self._lifecycle.manifest().by_id(agent_id) is None:
            return
        gate = self._lane(agent_id).gate
        if gate is not None and not gate.released:
            return  # armed by the delegation that launches it
        self._arm_gate(agent_id, self._lifecycle.profile_of(agent_id))

    def agent_launched(self, agent_id: AgentId) -> None:
        """The launched CLI runs: its prompt-ready pattern can release the gate."""
        gate = self._lane(agent_id).gate
        live = self._lifecycle.live(agent_id)
        if gate is not None and live is not None:
            self._watch_prompt(agent_id, gate, live)

    def reconcile_at_open(self) -> None:
        """Reboot reconciliation of the live-state (§10.4); run before any agent is launched."""
        stale = self._board.reconcile(lambda agent_id: self._lifecycle.live(agent_id) is not None)
        if stale:
            self._diagnostics.beacon(f"[live-state] reconciled stale rows agents={','.join(stale)}")

    def queue_snapshots(self) -> tuple[AgentQueueSnapshot, ...]:
        """Every agent's queue, in manifest order, for the work panel."""
        return tuple(self._snapshot(self._lane(agent.agent_id)) for agent in self._lifecycle.manifest().agents)

    def work_state_rows(self, excluding: AgentId) -> tuple[LiveStateRow, ...]:
        """The other agents' lean live-state rows, in manifest order, for an agent's convention file."""
        manifest = self._lifecycle.manifest()
        names = {agent.agent_id: agent.name for agent in manifest.agents}
        order = {agent.agent_id: index for index, agent in enumerate(manifest.agents)}
        entries = [e for e in self._board.lean(names) if e["agentId"] != excluding and e["agentId"] in order]
        entries.sort(key=lambda e: order[e["agentId"]])
        return tuple(
            LiveStateRow(e["agentId"], e["name"], e["status"], e.get("intent") or "", e.get("ticket"))
            for e in entries
        )

    def force_delivery(self, ticket_id: TicketId) -> None:
        """ "Deliver now (clears your line)": the waiting delivery stops waiting for the person's line."""
        record = self._open.get(ticket_id)
        if record is not None:
            record.force_delivery = True

    async def close(self) -> None:
        """End every ticket (CANCELLED) and stop every watcher. Agents and their launches belong to the
        launch service, which stops them with the project."""
        self._closing = True
        self._stop_listening_exits()
        for record in list(self._open.values()):
            self._end_ticket(record, TicketEnd(TicketEndKind.CANCELLED, cancel_source=CancelSource.PROJECT_CLOSED))
        for lane in self._lanes.values():
            lane.forget_session()
        pending = [task for task in self._tasks if task not in self._launches.values()]
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)

    # ------------------------------------------------------------------ commands

    def _list_agents(self, requester: Requester) -> Outcome:
        manifest = self._lifecycle.manifest()
        caller = self._caller(requester, manifest)
        orchestrator = manifest.effective_orchestrator()
        agents = []
        for agent in manifest.agents:
            live = self._lifecycle.live(agent.agent_id)
            profile = self._profile_or_none(agent.agent_id)
            lane = self._lane(agent.agent_id)
            row = self._board.row(agent.agent_id)
            agents.append(
                {
                    "name": agent.name,
                    "agentId": agent.agent_id,
                    "profile": profile.name if profile else None,
                    "orchestrator": orchestrator is not None and orchestrator.agent_id == agent.agent_id,
                    "running": live is not None,
                    "visible": live is not None and live.node_id is not None,
                    "busy": lane.mailbox.busy is not None,
                    "queueDepth": len(lane.mailbox.records),
                    "status": row.status.value if row else None,
                    "intent": row.intent if row else None,
                    "reachable": profile.reachable_by_delegation() if profile else False,
                    "bridgeConnected": lane.bridge_connected,
                }
            )
        document = {"you": self._label(requester, caller), "agents": agents}
        return Outcome(detail=json.dumps(document, ensure_ascii=False), data=document)

    async def _ask(self, requester: Requester, command: AskAgent, source: Source) -> Outcome:
        manifest = self._lifecycle.manifest()
        caller = self._caller(requester, manifest)
        target = self._resolve(manifest, command.target)
        task = _required(command.task, "task")
        if caller is not None and caller.agent_id == target.agent_id:
            raise rules.delegation_cycle(target.name, [target.name])
        profile = self._lifecycle.profile_of(target.agent_id)
        if not profile.reachable_by_delegation():
            raise rules.bridge_unsupported(target.name, profile.name)
        release_edge: Callable[[], None] | None = None
        if caller is not None:
            chain = self._graph.path(target.agent_id, caller.agent_id)
            if chain is not None:
                raise rules.delegation_cycle(target.name, [self._name(agent_id) for agent_id in chain])
            # Held from now on, before any await, so two crossing asks cannot both pass the guard.
            release_edge = self._hold_edge(caller.agent_id, target.agent_id)
        label = self._label(requester, caller)
        record: TicketRecord | None = None
        try:
            await self._ensure_live(target, reason=f"ask from {label}")
            ticket = self._new_ticket(target, requester, label, task, TicketKind.ASK)
            await self._record_turn(
                ticket.conversation, ticket.source, TurnRole.PROMPT, task, ticket.id, target.agent_id
            )
            record = self._enqueue(ticket, profile, release_edge=release_edge)
            release_edge = None  # the record owns the edge now
            self._diagnostics.beacon(
                f"[rendezvous] ask ticket={ticket.id} from={label} to={target.name} via={source.value}"
            )
            end = await asyncio.shield(record.outcome)
        except asyncio.CancelledError:
            if record is not None:
                self._end_ticket(record, TicketEnd(TicketEndKind.CANCELLED, cancel_source=CancelSource.REQUESTER_GONE))
            raise
        finally:
            if release_edge is not None:
                release_edge()
            if record is not None and record.end is None:
                self._end_ticket(record, TicketEnd(TicketEndKind.CANCELLED, cancel_source=CancelSource.REQUESTER_GONE))
        elapsed = self._timer.monotonic_ms() - record.enqueued_mono_ms
        if end.kind is TicketEndKind.REPLIED and end.result is not None:
            data = {"ticket": record.ticket.id, "target": target.name, "reply": end.result, "elapsedMs": elapsed}
            return Outcome(detail=f"reply from {target.name} (ticket {record.ticket.id})", reply=end.result, data=data)
        raise rules.verdict_error(
            end, target.name, label, ticket_id=record.ticket.id, elapsed_ms=elapsed, window_ms=record.window_ms
        )

    async def _reply(self, requester: Requester, command: Reply) -> Outcome:
        manifest = self._lifecycle.manifest()
        caller = self._require_agent(requester, manifest, "idea_reply")
        result = _required(command.result, "result")
        record = self._reply_target(caller, command.ticket)
        ticket = record.ticket
        if record.end is None and ticket.kind is TicketKind.ASK:
            self._end_ticket(record, TicketEnd(TicketEndKind.REPLIED, result=result))
            await self._record_turn(
                ticket.conversation, AgentSource(caller.agent_id), TurnRole.RESPONSE, result, ticket.id
            )
            self._events.publish(AgentReplied(caller.agent_id, reply_len=len(result)))
            return Outcome(detail=f"reply delivered to {ticket.requester_label} (ticket {ticket.id})")
        if ticket.kind is TicketKind.ASK and record.end is not None:
            await self._late_reply(caller, record, record.end, result)
        await self._record_turn(ticket.conversation, AgentSource(caller.agent_id), TurnRole.RESPONSE, result, ticket.id)
        if ticket.kind is TicketKind.HUMAN:
            self._events.publish(HumanReplyReceived(caller.agent_id, ticket.id, result))
            return Outcome(detail="reply recorded for the user")
        return Outcome(detail=f"reply recorded; ticket {ticket.id} expected no reply")

    async def _late_reply(self, caller: AgentEntry, record: TicketRecord, end: TicketEnd, result: str) -> NoReturn:
        """§9.7: always recorded; TICKET_CLOSED to the replier; shown to the requester unless cancelled."""
        ticket = record.ticket
        await self._record_turn(
            ticket.conversation, AgentSource(caller.agent_id), TurnRole.RESPONSE, result, ticket.id, late=True
        )
        self._diagnostics.beacon(f"[rendezvous] late reply ticket={ticket.id} after={end.kind.value}")
        if end.kind not in (TicketEndKind.CANCELLED, TicketEndKind.REPLIED):
            requester = ticket.requester_agent
            if requester is not None:
                self._lane(requester).late_replies += 1
                if self._lifecycle.live(requester) is not None:
                    late = Ticket(
                        id=self._ids.new_id(),
                        target=requester,
                        source=AgentSource(caller.agent_id),
                        requester_label=caller.name,
                        conversation=ticket.conversation,
                        task=result,
                        expects_reply=False,
                        created_at_ms=self._clock.now_ms(),
                        kind=TicketKind.LATE_REPLY,
                        about_ticket=ticket.id,
                    )
                    self._enqueue(late, self._lifecycle.profile_of(requester))
                self._publish_queue(self._lane(requester))
            self._events.publish(LateReplyAvailable(requester=requester, target=caller.agent_id, ticket=ticket.id))
        raise rules.ticket_closed(ticket.id, ticket.requester_label, end)

    async def _launch(self, requester: Requester, command: LaunchAgent) -> Outcome:
        manifest = self._lifecycle.manifest()
        caller = self._caller(requester, manifest)
        target = self._resolve(manifest, command.target)
        task = _required(command.task, "task") if command.task is not None else None
        visible = command.visibility is Visibility.VISIBLE
        live = self._lifecycle.live(target.agent_id)
        if live is not None and command.node_id in (None, live.node_id):
            where = f"in cell {live.node_id}" if live.node_id else "in the background"
            detail = f"{target.name} is already running {where}"
        else:
            if target.agent_id in self._launches:
                await asyncio.shield(self._launches[target.agent_id])
            if live is None and self._lifecycle.live(target.agent_id) is None:
                live = await self._cold_launch(target, node_id=command.node_id, visible=visible, reason="launch")
            else:
                live = await self._lifecycle.launch(
                    target.agent_id, node_id=command.node_id, visible=visible, reason="launch"
                )
            where = f"in cell {live.node_id}" if live.node_id else "in the background"
            if visible and live.node_id is None:
                where += " (no empty cell)"
            detail = f"launched {target.name} {where}"
        data: dict[str, Any] = {"agentId": target.agent_id, "nodeId": live.node_id}
        if task is not None:
            label = self._label(requester, caller)
            ticket = self._new_ticket(target, requester, label, task, TicketKind.TASK)
            await self._record_turn(
                ticket.conversation, ticket.source, TurnRole.PROMPT, task, ticket.id, target.agent_id
            )
            self._enqueue(ticket, live.profile)
            detail += f"; task queued as ticket {ticket.id} (no reply expected)"
            data["ticket"] = ticket.id
        return Outcome(detail=detail, data=data)

    async def _stop(self, requester: Requester, command: StopAgent) -> Outcome:
        manifest = self._lifecycle.manifest()
        caller = self._caller(requester, manifest)
        target = self._resolve(manifest, command.target)
        if caller is not None:
            if caller.agent_id == target.agent_id:
                raise AppError(ErrorCode.INVALID, f"{caller.name} cannot stop itself")
            orchestrator = manifest.effective_orchestrator()
            if orchestrator is None or orchestrator.agent_id != caller.agent_id:
                raise AppError(
                    ErrorCode.PERMISSION_DENIED, f"only the orchestrator may stop agents; {caller.name} is not it"
                )
        live = self._lifecycle.live(target.agent_id)
        if live is None:
            return Outcome(detail=f"{target.name} is not running")
        lane = self._lane(target.agent_id)
        lane.stopping = True
        try:
            await self._lifecycle.stop(target.agent_id)
        except BaseException:
            lane.stopping = False
            raise
        if lane.stopping:  # the exit was not reported (yet): its tickets end now all the same
            self._agent_exited(target.agent_id, live.terminal.exit_code())
        return Outcome(detail=f"stopped {target.name}")

    async def _update_context(self, requester: Requester, command: UpdateAgentContext) -> Outcome:
        manifest = self._lifecycle.manifest()
        caller = self._caller(requester, manifest)
        target = self._resolve(manifest, command.target)
        if caller is not None and caller.agent_id != target.agent_id:
            orchestrator = manifest.effective_orchestrator()
            if orchestrator is None or orchestrator.agent_id != caller.agent_id:
                raise AppError(
                    ErrorCode.PERMISSION_DENIED,
                    f"{caller.name} may update only its own context; the orchestrator may update any",
                )
        content = _required(command.content, "content")
        if len(content) > PERSONA_MAX_CHARS:
            raise AppError(ErrorCode.INVALID_ARGUMENTS, f"content is longer than {PERSONA_MAX_CHARS} characters")
        await self._lifecycle.update_persona(target.agent_id, content)
        return Outcome(detail=f"updated context of {target.name} (applies at next launch)")

    def _read_work_state(self) -> Outcome:
        names = {agent.agent_id: agent.name for agent in self._lifecycle.manifest().agents}
        document = {"entries": self._board.lean(names)}
        return Outcome(detail=json.dumps(document, ensure_ascii=False), data=document)

    def _set_work_state(self, requester: Requester, command: SetWorkState) -> Outcome:
        caller = self._require_agent(requester, self._lifecycle.manifest(), "idea_workstate_set")
        changes: dict[str, Any] = {"status": command.status}
        if command.intent is not None:
            changes["intent"] = command.intent
        if command.progress is not None:
            changes["progress"] = command.progress
        self._board.write(caller.agent_id, **changes)
        if command.intent:
            self._declared_intents[caller.agent_id] = (command.intent, self._clock.now_ms())
        return Outcome(detail="work state updated")

    async def _submit_human_input(self, requester: Requester, command: SubmitHumanInput) -> Outcome:
        manifest = self._lifecycle.manifest()
        self._require_person(requester, "sending input to an agent")
        target = self._resolve(manifest, command.target)
        text = _required(command.text, "text")
        live = await self._ensure_live(target, reason="input from the user")
        ticket = self._new_ticket(target, requester, self._label(requester, None), text, TicketKind.HUMAN)
        await self._record_turn(ticket.conversation, ticket.source, TurnRole.PROMPT, text, ticket.id, target.agent_id)
        self._enqueue(ticket, live.profile)
        return Outcome(detail=f"queued for {target.name} as ticket {ticket.id}", data={"ticket": ticket.id})

    async def _interrupt(self, requester: Requester, command: Interrupt) -> Outcome:
        self._require_person(requester, "interrupting an agent")
        target = self._resolve(self._lifecycle.manifest(), command.target)
        live = self._lifecycle.live(target.agent_id)
        if live is None:
            raise AppError(ErrorCode.INVALID, f"agent {target.name} is not running")
        await live.terminal.write_text(ESC)
        self._diagnostics.beacon(f"[delivery] interrupt (ESC) agent={target.name}")
        return Outcome(detail=f"interrupted {target.name}")

    def _cancel_ticket(self, requester: Requester, command: CancelTicket) -> Outcome:
        self._require_person(requester, "cancelling a delegation")
        record = self._open.get(command.ticket)
        if record is None:
            closed = self._closed.get(command.ticket)
            if closed is None or closed.end is None:
                raise rules.unknown_ticket(command.ticket)
            return Outcome(detail=f"ticket {command.ticket} had already ended ({closed.end.kind.value})")
        self._end_ticket(record, TicketEnd(TicketEndKind.CANCELLED, cancel_source=CancelSource.USER))
        return Outcome(detail=f"cancelled ticket {command.ticket}")

    # ------------------------------------------------------------ ticket lifecycle

    def _new_ticket(self, target: AgentEntry, requester: Requester, label: str, task: str, kind: TicketKind) -> Ticket:
        caller_id = requester.agent_id if isinstance(requester, AgentCaller) else None
        source: InputSource = AgentSource(caller_id) if caller_id is not None else HumanSource()
        return Ticket(
            id=self._ids.new_id(),
            target=target.agent_id,
            source=source,
            requester_label=label,
            conversation=conversation_for_pair(target.agent_id, caller_id),
            task=task,
            expects_reply=kind is TicketKind.ASK,
            created_at_ms=self._clock.now_ms(),
            kind=kind,
        )

    def _enqueue(
        self, ticket: Ticket, profile: Profile, *, release_edge: Callable[[], None] | None = None
    ) -> TicketRecord:
        lane = self._lane(ticket.target)
        window = profile.liveness.turn_timeout_ms if profile.liveness and profile.liveness.turn_timeout_ms else None
        record = TicketRecord(
            ticket=ticket,
            outcome=asyncio.get_running_loop().create_future(),
            window_ms=window or self._timings.window_ms,
            enqueued_mono_ms=self._timer.monotonic_ms(),
            release_edge=release_edge,
        )
        lane.mailbox.enqueue(record)
        self._open[ticket.id] = record
        self._diagnostics.beacon(
            f"[mailbox] enqueued agent={self._name(ticket.target)} ticket={ticket.id} kind={ticket.kind.value} "
            f"depth={len(lane.mailbox.records)}"
        )
        requester = ticket.requester_agent
        if ticket.kind is TicketKind.ASK and requester is not None:
            self._write_row(requester, status=WorkStatus.WAITING, last_delegation=ticket.id)
        record.supervisor = self._spawn(self._supervise(record))
        self._publish_queue(lane)
        self._pump(lane)
        return record

    def _end_ticket(self, record: TicketRecord, end: TicketEnd) -> None:
        """The one way a ticket ends. Synchronous, so no cancellation can interrupt the cleanup."""
        if record.end is not None:
            return
        record.end = end
        ticket = record.ticket
        lane = self._lane(ticket.target)
        was_head = lane.mailbox.remove(record)
        self._open.pop(ticket.id, None)
        self._closed[ticket.id] = record
        while len(self._closed) > CLOSED_TICKETS_KEPT:
            self._closed.popitem(last=False)
        if record.release_edge is not None:
            record.release_edge()
            record.release_edge = None
        _cancel_unless_current(record.supervisor)
        _cancel_unless_current(record.follow_up)
        if lane.writer_record is record and not record.writing:
            _cancel_unless_current(lane.writer)
        if not record.outcome.done():
            record.outcome.set_result(end)
        elapsed = self._timer.monotonic_ms() - record.enqueued_mono_ms
        tag = "[rendezvous]" if ticket.kind is TicketKind.ASK else "[mailbox]"
        self._diagnostics.beacon(
            f"{tag} ended ticket={ticket.id} agent={self._name(ticket.target)} outcome={end.kind.value}"
            + (f" cancel={end.cancel_source.value}" if end.cancel_source else "")
            + f" elapsed_ms={elapsed}"
        )
        self._rows_after_end(record, end)
        if ticket.kind is TicketKind.ASK:
            self._events.publish(
                RendezvousEnded(ticket.id, ticket.requester_agent, ticket.target, end.kind.value, elapsed)
            )
        if was_head:
            self._events.publish(AgentBusyChanged(ticket.target, None))
        self._publish_queue(lane)
        self._pump(lane)

    def _rows_after_end(self, record: TicketRecord, end: TicketEnd) -> None:
        """§10.3. The target's row changes only while it describes this ticket (a ticket never delivered
        leaves another ticket's row alone); rows of process ends are written by the exit handler."""
        ticket = record.ticket
        target_row = self._board.row(ticket.target)
        if target_row is not None and target_row.ticket == ticket.id:
            if end.kind in (TicketEndKind.REPLIED, TicketEndKind.COMPLETED):
                self._write_row(ticket.target, status=WorkStatus.DONE, intent=None, ticket=None, progress=None)
            elif end.kind not in (TicketEndKind.TARGET_DIED, TicketEndKind.TARGET_STOPPED):
                code = end.error_code.value if end.error_code else end.kind.value
                self._write_row(ticket.target, status=WorkStatus.DONE, ticket=None, progress=abandoned_marker(code))
        requester = ticket.requester_agent
        if ticket.kind is TicketKind.ASK and requester is not None and not self._asks_in_flight_from(requester):
            alive = self._lifecycle.live(requester) is not None
            self._write_row(requester, status=WorkStatus.WORKING if alive else WorkStatus.IDLE)

    def _pump(self, lane: AgentLane) -> None:
        """Start delivering the head when the agent is idle and nothing is being typed into it."""
        if self._closing or lane.writer is not None:
            return
        record = lane.mailbox.start_head(self._clock.now_ms())
        if record is None:
            return
        record.phase = TicketPhase.DELIVERING
        self._events.publish(AgentBusyChanged(lane.agent_id, lane.mailbox.busy))
        lane.writer_record = record
        lane.writer = self._spawn(self._deliver(lane, record))
        self._publish_queue(lane)

    async def _deliver(self, lane: AgentLane, record: TicketRecord) -> None:
        ticket = record.ticket
        try:
            live = self._lifecycle.live(ticket.target)
            if live is None:
                self._end_ticket(record, TicketEnd(TicketEndKind.TARGET_DIED))
                return
            text = compose_delivery(ticket, self._file_channel(ticket.target, live.profile))
            self._events.publish(
                DelegationReady(
                    ticket.target, ticket.id, text, live.profile.submit_sequence, live.profile.submit_delay_ms
                )
            )
            job = DeliveryJob(
                record=record,
                text=text,
                live=live,
                agent_name=self._name(ticket.target),
                portal=self._portals.portal_for(live.session_id),
                gate=lane.gate,
                attention=lambda: lane.attention,
                probe=lambda: self._activity(ticket.target),
                on_submitted=lambda: self._submitted(lane, record),
                on_waiting_for_human=lambda: self._events.publish(
                    DeliveryWaiting(ticket.target, ticket.id, ticket.requester_label)
                ),
                on_may_be_stuck=lambda: self._events.publish(DeliveryMayBeStuck(ticket.target, ticket.id)),
            )
            await self._deliverer.deliver(job)
            self._delivered(record, live.profile)
        except Exception as exc:  # noqa: BLE001  (a write refused: the session is gone; never leave it busy)
            self._diagnostics.beacon(f"[delivery] failed ticket={ticket.id}: {exc!r}")
            self._end_ticket(record, TicketEnd(TicketEndKind.TARGET_DIED))
        finally:
            lane.writer = None
            lane.writer_record = None
            self._pump(lane)

    def _submitted(self, lane: AgentLane, record: TicketRecord) -> None:
        lane.last_submit_mono_ms = self._timer.monotonic_ms()
        if record.end is not None:
            return
        record.activity_at_submit = self._activity(record.ticket.target)
        ticket = record.ticket
        record.phase = TicketPhase.AWAITING_REPLY if ticket.kind is TicketKind.ASK else TicketPhase.DELIVERED
        if ticket.kind is not TicketKind.LATE_REPLY:
            self._write_row(ticket.target, status=WorkStatus.WORKING, ticket=ticket.id, intent=self._intent_for(ticket))
        self._publish_queue(lane)

    def _delivered(self, record: TicketRecord, profile: Profile) -> None:
        ticket = record.ticket
        self._events.publish(DelegationDelivered(ticket.target, ticket.id, self._clock.now_ms()))
        if record.end is not None:
            return
        if _reports_turn_end(profile):
            return  # the turn-end hook ends it (or starts the no-reply backstop)
        if ticket.kind is TicketKind.ASK:
            record.follow_up = self._spawn(self._watch_quiet_return(record))
        else:
            self._end_ticket(record, TicketEnd(TicketEndKind.COMPLETED))

    async def _supervise(self, record: TicketRecord) -> None:
        """The inactivity watchdog of one ticket, from its enqueue time (§9.4, §9.8)."""
        ticket = record.ticket
        name = self._name(ticket.target)

        def extended(elapsed: int) -> None:
            self._diagnostics.beacon(
                f"[rendezvous] window re-armed ticket={ticket.id} agent={name} elapsed_ms={elapsed}"
            )

        def expired(elapsed: int) -> None:
            self._diagnostics.beacon(f"[rendezvous] no activity ticket={ticket.id} agent={name} elapsed_ms={elapsed}")

        def ceiling(elapsed: int) -> None:
            self._diagnostics.beacon(
                f"[rendezvous] ceiling reached ticket={ticket.id} agent={name} elapsed_ms={elapsed}"
            )

        verdict = await run_inactivity_watchdog(
            record.outcome,
            window_ms=record.window_ms,
            ceiling_ms=self._timings.ceiling_ms,
            started_mono_ms=record.enqueued_mono_ms,
            timer=self._timer,
            probe=lambda: self._activity(ticket.target),
            on_extended=extended,
            on_expired=expired,
            on_ceiling=ceiling,
            probe_agents=self._tokens_of,
        )
        if verdict is WatchdogVerdict.NO_PROGRESS:
            self._end_ticket(record, TicketEnd(TicketEndKind.TIMED_OUT))
        elif verdict is WatchdogVerdict.CEILING_ACTIVE:
            self._end_ticket(record, TicketEnd(TicketEndKind.CEILING_REACHED))

    async def _no_reply_backstop(self, record: TicketRecord) -> None:
        ticket = record.ticket
        self._diagnostics.beacon(f"[rendezvous] turn ended without reply ticket={ticket.id}; grace started")
        if await no_reply_grace(self._timer, self._timings.no_reply_grace_ms, lambda: self._activity(ticket.target)):
            self._end_ticket(record, TicketEnd(TicketEndKind.NO_REPLY))
        else:
            self._diagnostics.beacon(f"[rendezvous] backstop cancelled ticket={ticket.id}: the agent kept working")

    async def _watch_quiet_return(self, record: TicketRecord) -> None:
        target = record.ticket.target
        # "Grew since the submission": a short turn may be over before the delivery has finished checking
        # that it started, so the first watch starts from the activity at submission.
        baseline = record.activity_at_submit
        while record.end is None:
            await watch_for_quiet_return(
                timer=self._timer,
                quiet_ms=self._timings.no_reply_quiet_ms,
                probe=lambda: self._activity(target),
                waits_on_others=lambda: bool(self._graph.waits_on(target)),
                alive=lambda: self._lifecycle.live(target) is not None,
                cpu_seconds=lambda: self._cpu_seconds(target),
                baseline=baseline,
            )
            baseline = None  # the agent continued after a cancelled verdict: watch from now on
            await self._no_reply_backstop(record)

    # ---------------------------------------------------------------- signals

    def _turn_started(self, agent_id: AgentId, prompt: str) -> None:
        lane = self._lane(agent_id)
        lane.attention = None
        owner = self._owner_of(agent_id, prompt)
        lane.turn_owner = owner.ticket.id if owner else None
        if owner is not None:
            owner.turn_started = True
        self._diagnostics.beacon(f"[turn] started agent={self._name(agent_id)} ticket={lane.turn_owner}")
        for record in lane.mailbox.records:  # the agent continued: a pending no-reply verdict is dropped
            if record.follow_up is not None and not record.follow_up.done():
                record.follow_up.cancel()
                self._diagnostics.beacon(f"[rendezvous] backstop cancelled ticket={record.ticket.id}: new turn")
        if is_idea_delivery(prompt) or self._recently_delivered(lane):
            return
        # The person started a new turn in this agent's CLI: a tool call it was awaiting was abandoned
        # (Claude's Esc does not tell the MCP server).
        for record in self._asks_in_flight_from(agent_id):
            self._end_ticket(
                record, TicketEnd(TicketEndKind.CANCELLED, cancel_source=CancelSource.REQUESTER_NEW_PROMPT)
            )

    def _turn_ended(self, agent_id: AgentId, owner: TicketId | None) -> None:
        lane = self._lane(agent_id)
        lane.attention = None
        self._diagnostics.beacon(f"[turn] ended agent={self._name(agent_id)} ticket={owner}")
        record = next((r for r in lane.mailbox.records if r.ticket.id == owner), None)
        if record is None:
            return  # a turn of no open ticket (or of an earlier one) never ends anything
        # The turn's prompt carried this ticket, so its text was submitted, even if the write has not
        # reported back yet.
        if record.ticket.kind is not TicketKind.ASK:
            self._end_ticket(record, TicketEnd(TicketEndKind.COMPLETED))
        elif record.follow_up is None or record.follow_up.done():
            record.follow_up = self._spawn(self._no_reply_backstop(record))

    def _owner_of(self, agent_id: AgentId, prompt: str) -> TicketRecord | None:
        """The open ticket of `agent_id` whose delivered text this prompt carries."""
        text = collapse_whitespace(prompt)
        if not text:
            return None
        return next(
            (
                record
                for record in self._lane(agent_id).mailbox.records
                if record.phase is not TicketPhase.QUEUED and record.ticket.correlation_key in text
            ),
            None,
        )

    def _attention(self, agent_id: AgentId, message: object) -> None:
        text = message if isinstance(message, str) else None
        reason = "permission" if text and "permission" in text.lower() else "input"
        self._lane(agent_id).attention = reason
        self._events.publish(AgentAttention(agent_id, reason, text))

    def _recently_delivered(self, lane: AgentLane) -> bool:
        last = lane.last_submit_mono_ms
        return last is not None and self._timer.monotonic_ms() - last <= self._timings.native_prompt_after_delivery_ms

    def _agent_exited(self, agent_id: AgentId, exit_code: int | None) -> None:
        lane = self._lane(agent_id)
        kind = TicketEndKind.TARGET_STOPPED if lane.stopping else TicketEndKind.TARGET_DIED
        self._diagnostics.beacon(f"[mailbox] agent exited agent={self._name(agent_id)} code={exit_code}")
        if lane.writer is not None:
            lane.writer.cancel()
        for record in list(lane.mailbox.records):
            self._end_ticket(record, TicketEnd(kind, exit_code=exit_code))
        for record in self._asks_in_flight_from(agent_id):
            self._end_ticket(record, TicketEnd(TicketEndKind.CANCELLED, cancel_source=CancelSource.REQUESTER_STOPPED))
        lane.forget_session()
        self._write_row(agent_id, status=WorkStatus.IDLE, ticket=None, progress=exited_marker(exit_code))
        self._publish_queue(lane)

    # ------------------------------------------------------------- cold start

    async def _ensure_live(self, agent: AgentEntry, *, reason: str) -> LiveAgent:
        """The agent's live session; a stopped agent is started (once, however many asks wait for it) in the
        first empty cell of the active layout, else in the background."""
        live = self._lifecycle.live(agent.agent_id)
        if live is not None:
            return live
        launch = self._launches.get(agent.agent_id)
        if launch is None:
            launch = self._spawn(self._cold_launch(agent, node_id=None, visible=True, reason=reason))
            self._launches[agent.agent_id] = launch
            launch.add_done_callback(lambda done: self._launch_finished(agent.agent_id, done))
        return await asyncio.shield(launch)

    def _launch_finished(self, agent_id: AgentId, launch: asyncio.Task[LiveAgent]) -> None:
        self._launches.pop(agent_id, None)
        if not launch.cancelled():
            launch.exception()  # retrieved here: every asker may have gone away

    async def _cold_launch(self, agent: AgentEntry, *, node_id: str | None, visible: bool, reason: str) -> LiveAgent:
        profile = self._lifecycle.profile_of(agent.agent_id)
        gate = self._arm_gate(agent.agent_id, profile)  # before launching: an early ready signal counts
        try:
            live = await self._lifecycle.launch(agent.agent_id, node_id=node_id, visible=visible, reason=reason)
        except BaseException as exc:
            gate.dispose()
            if self._lane(agent.agent_id).gate is gate:
                self._lane(agent.agent_id).gate = None
            if isinstance(exc, Exception) and not isinstance(exc, AppError):
                raise AppError(ErrorCode.PROCESS, f"could not start agent {agent.name}: {exc}") from exc
            raise
        self._watch_prompt(agent.agent_id, gate, live)
        return live

    def _arm_gate(self, agent_id: AgentId, profile: Profile) -> ColdStartGate:
        lane = self._lane(agent_id)
        if lane.gate is not None:
            lane.gate.dispose()
        gate = ColdStartGate(self._timer.monotonic_ms())
        lane.gate = gate
        timeout = self._spawn(self._gate_timeout(agent_id, gate, profile.cold_start_max_ms))
        gate.on_dispose(lambda: _cancel_unless_current(timeout))
        self._diagnostics.beacon(f"[cold-start] armed agent={self._name(agent_id)} max_ms={profile.cold_start_max_ms}")
        return gate

    async def _gate_timeout(self, agent_id: AgentId, gate: ColdStartGate, max_ms: int) -> None:
        await self._timer.sleep(max_ms)
        if self._lane(agent_id).gate is gate and self._release_gate(agent_id, "timeout") and gate.waited:
            self._events.publish(ColdStartDegraded(agent_id))  # a task waited that long

    def _watch_prompt(self, agent_id: AgentId, gate: ColdStartGate, live: LiveAgent) -> None:
        pattern = live.profile.prompt_ready_pattern
        if not pattern or gate.released or gate.watching_prompt or self._closing:
            return
        gate.watching_prompt = True
        watcher = PromptPatternWatcher(pattern)

        def on_output(data: bytes) -> None:
            if watcher.feed(data):
                self._release_gate(agent_id, "prompt")

        gate.on_dispose(live.terminal.on_output(on_output))

        async def check_screen() -> None:  # the prompt may have been drawn before we subscribed
            if watcher.seen_in(await live.terminal.screen_text()):
                self._release_gate(agent_id, "prompt")

        screen_check = self._spawn(check_screen())
        gate.on_dispose(lambda: _cancel_unless_current(screen_check))

    def _release_gate(self, agent_id: AgentId, by: str) -> bool:
        gate = self._lane(agent_id).gate
        if gate is None or not gate.release(self._timer.monotonic_ms()):
            return False
        after = self._timer.monotonic_ms() - gate.armed_mono_ms
        self._diagnostics.beacon(f"[cold-start] released agent={self._name(agent_id)} by={by} after_ms={after}")
        return True

    # ---------------------------------------------------------------- helpers

    def _spawn(self, work: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        """A task of this service, awaited by `close`."""
        task = asyncio.create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def _lane(self, agent_id: AgentId) -> AgentLane:
        lane = self._lanes.get(agent_id)
        if lane is None:
            lane = self._lanes[agent_id] = AgentLane(agent_id=agent_id, mailbox=Mailbox(agent_id))
        return lane

    def _snapshot(self, lane: AgentLane) -> AgentQueueSnapshot:
        return lane.mailbox.snapshot(late_replies=lane.late_replies, bridge_connected=lane.bridge_connected)

    def _publish_queue(self, lane: AgentLane) -> None:
        self._events.publish(AgentQueueChanged(self._snapshot(lane)))

    def _activity(self, agent_id: AgentId) -> ActivitySnapshot:
        """Tokens of the agent and of every agent it transitively waits on (§9.2, T13)."""
        return self._tokens_of({agent_id} | self._graph.transitively_waited(agent_id))

    def _tokens_of(self, agents: Collection[AgentId]) -> ActivitySnapshot:
        tokens = {agent: self._token(agent) for agent in agents}
        return {agent: token for agent, token in tokens.items() if token is not None}

    def _token(self, agent_id: AgentId) -> int | None:
        try:
            return self._activity_probe.token(agent_id)
        except Exception as exc:  # noqa: BLE001  (a broken probe must not stop the watchdog that bounds the ask)
            self._diagnostics.beacon(f"[rendezvous] activity probe failed agent={agent_id}: {exc!r}")
            return None  # no proof of life

    def _cpu_seconds(self, agent_id: AgentId) -> float | None:
        live = self._lifecycle.live(agent_id)
        pid = live.terminal.pid() if live else None
        return self._cpu.descendant_cpu_seconds(pid) if self._cpu is not None and pid is not None else None

    def _asks_in_flight_from(self, agent_id: AgentId) -> list[TicketRecord]:
        return [
            r for r in self._open.values() if r.ticket.kind is TicketKind.ASK and r.ticket.requester_agent == agent_id
        ]

    def _hold_edge(self, requester: AgentId, target: AgentId) -> Callable[[], None]:
        self._graph.add(requester, target)
        held = True

        def release() -> None:
            nonlocal held
            if held:
                held = False
                self._graph.remove(requester, target)

        return release

    def _reply_target(self, caller: AgentEntry, ticket_id: TicketId | None) -> TicketRecord:
        if ticket_id:
            record = self._open.get(ticket_id) or self._closed.get(ticket_id)
            if record is None:
                raise rules.unknown_ticket(ticket_id)
            if record.ticket.target != caller.agent_id:
                raise rules.ticket_of_another_agent(ticket_id, self._name(record.ticket.target), caller.name)
            return record
        delivered = [r for r in self._lane(caller.agent_id).mailbox.records if r.submitted]
        awaiting = next((r for r in delivered if r.ticket.kind is TicketKind.ASK), None)
        if awaiting is not None:
            return awaiting
        human = next((r for r in delivered if r.ticket.kind is TicketKind.HUMAN), None)
        if human is not None:
            return human
        # Nothing open: the answer to the caller's most recent ask that ended unanswered is a late reply.
        latest = next(
            (
                r
                for r in reversed(self._closed.values())
                if r.ticket.target == caller.agent_id and r.ticket.kind is TicketKind.ASK and r.submitted
            ),
            None,
        )
        if latest is not None and latest.end is not None and latest.end.kind is not TicketEndKind.REPLIED:
            return latest
        raise rules.no_pending_request(caller.name)

    def _intent_for(self, ticket: Ticket) -> str:
        declared = self._declared_intents.get(ticket.target)
        if declared and self._clock.now_ms() - declared[1] <= self._timings.declared_intent_fresh_ms:
            return declared[0]
        if ticket.kind is TicketKind.HUMAN:
            return preview(ticket.task, rules.AUTO_INTENT_PREVIEW_CHARS)
        return f"task from {ticket.requester_label}: {preview(ticket.task, rules.AUTO_INTENT_PREVIEW_CHARS)}"

    def _write_row(self, agent_id: AgentId, **changes: Any) -> None:
        try:
            self._board.write(agent_id, **changes)
        except AppError as exc:  # a system write never fails the delegation that caused it
            self._diagnostics.beacon(f"[live-state] write failed agent={agent_id}: {exc.message}")

    async def _record_turn(
        self,
        conversation: str,
        source: InputSource,
        role: TurnRole,
        text: str,
        ticket: TicketId,
        target: AgentId | None = None,
        *,
        late: bool = False,
    ) -> None:
        """Append to the conversation log, best effort: a failed record never degrades the delegation."""
        turn = ConversationTurn(
            id=self._ids.new_id(),
            conversation=conversation,
            at_ms=self._clock.now_ms(),
            source=source,
            role=role,
            text=text,
            ticket=ticket,
            target=target,
            late=late,
        )
        try:
            await self._conversations.append(turn)
        except (AppError, OSError) as exc:
            self._diagnostics.beacon(f"[conversation] append failed conversation={conversation}: {exc}")

    def _file_channel(self, agent_id: AgentId, profile: Profile) -> FileReplyChannel | None:
        if profile.materializes_idea_bridge():
            return None
        return FileReplyChannel(f"{self._project_root}/.ideai/requests/{agent_id}/in")

    def _profile_or_none(self, agent_id: AgentId) -> Profile | None:
        try:
            return self._lifecycle.profile_of(agent_id)
        except AppError:
            return None

    def _name(self, agent_id: AgentId) -> str:
        agent = self._lifecycle.manifest().by_id(agent_id)
        return agent.name if agent else agent_id

    @staticmethod
    def _resolve(manifest: AgentManifest, name: str) -> AgentEntry:
        wanted = _required(name, "target")
        agent = manifest.by_name(wanted)
        if agent is None:
            raise rules.agent_not_found(wanted, [a.name for a in manifest.agents])
        return agent

    @staticmethod
    def _caller(requester: Requester, manifest: AgentManifest) -> AgentEntry | None:
        """The calling agent, None for the person; an agent the manifest does not know is refused."""
        if isinstance(requester, Human):
            return None
        agent = manifest.by_id(requester.agent_id)
        if agent is None:
            raise AppError(ErrorCode.PERMISSION_DENIED, "unauthenticated caller")
        return agent

    def _require_agent(self, requester: Requester, manifest: AgentManifest, what: str) -> AgentEntry:
        caller = self._caller(requester, manifest)
        if caller is None:
            raise AppError(ErrorCode.PERMISSION_DENIED, f"{what} is for agents; the user has no such row or ticket")
        return caller

    @staticmethod
    def _require_person(requester: Requester, what: str) -> None:
        if not isinstance(requester, Human):
            raise AppError(ErrorCode.PERMISSION_DENIED, f"{what} is reserved to the user")

    @staticmethod
    def _label(requester: Requester, caller: AgentEntry | None) -> str:
        if caller is not None:
            return caller.name
        return requester.label if isinstance(requester, Human) else requester.agent_id


def _required(value: str, name: str) -> str:
    if not value or not value.strip():
        raise AppError(ErrorCode.INVALID_ARGUMENTS, f"{name} must not be empty")
    return value


def _reports_turn_end(profile: Profile) -> bool:
    """Whether the CLI tells IdeA authoritatively that a turn ended (Claude `Stop`, Codex notify)."""
    return profile.hooks in (CLAUDE_HOOKS, CODEX_NOTIFY)


def _cancel_unless_current(task: asyncio.Task[Any] | None) -> None:
    if task is not None and task is not asyncio.current_task():
        task.cancel()
