"""The ticket book of one project (spec 03 §7): every open ticket, the recently ended ones, and the one way
a ticket opens (`enqueue`) and the one way it ends (`end`).

`end` releases everything the ticket held — its place at the head of the mailbox, its wait-for edge, its
watchers — and writes the live-state rows, whatever ended it, including the cancellation of the coroutine
that awaited it (failures #3, #8, #13, #16 of §13). It is synchronous, so no cancellation can interrupt it.

The book does not deliver nor watch: the delivery pump and the rendezvous watch are attached once at
composition (`attach`) and called after each change.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Callable
from typing import Protocol

from idea.application.orchestrator.context import CoreContext, cancel_unless_current
from idea.application.orchestrator.mailbox import AgentLane, TicketRecord
from idea.domain.agent import AgentEntry
from idea.domain.ids import AgentId, TicketId, conversation_for_pair
from idea.domain.orchestration import rules
from idea.domain.orchestration.commands import AgentCaller, Requester, WorkStatus
from idea.domain.orchestration.events import AgentBusyChanged, RendezvousEnded
from idea.domain.orchestration.live_state import RowChange, abandoned_marker
from idea.domain.orchestration.tickets import (
    AgentSource,
    HumanSource,
    InputSource,
    Ticket,
    TicketEnd,
    TicketEndKind,
    TicketKind,
)
from idea.domain.profile import Profile

CLOSED_TICKETS_KEPT = 2000  # ended tickets remembered so late replies find their requester


class TicketSupervisor(Protocol):
    async def supervise(self, record: TicketRecord) -> None:
        """Bound the ticket in time from its enqueue; ends it when its rendezvous runs out."""
        ...


class LanePump(Protocol):
    def pump(self, lane: AgentLane) -> None:
        """Start delivering the lane's head ticket when the agent can take it."""
        ...


class TicketBook:
    def __init__(self, ctx: CoreContext) -> None:
        self._ctx = ctx
        self._open: dict[TicketId, TicketRecord] = {}
        self._closed: OrderedDict[TicketId, TicketRecord] = OrderedDict()
        self._supervisor: TicketSupervisor | None = None
        self._pump: LanePump | None = None

    def attach(self, *, supervisor: TicketSupervisor, pump: LanePump) -> None:
        """Composition, once: who watches a new ticket and who delivers the next one."""
        self._supervisor = supervisor
        self._pump = pump

    # ------------------------------------------------------------------ queries

    def open_ticket(self, ticket_id: TicketId) -> TicketRecord | None:
        return self._open.get(ticket_id)

    def closed_ticket(self, ticket_id: TicketId) -> TicketRecord | None:
        return self._closed.get(ticket_id)

    def open_records(self) -> list[TicketRecord]:
        return list(self._open.values())

    def asks_in_flight_from(self, agent_id: AgentId) -> list[TicketRecord]:
        return [
            r for r in self._open.values() if r.ticket.kind is TicketKind.ASK and r.ticket.requester_agent == agent_id
        ]

    def reply_target(self, caller: AgentEntry, ticket_id: TicketId | None) -> TicketRecord:
        """The ticket an `idea_reply` of `caller` answers: the one it names, else its delivered ask, else its
        delivered human ticket, else the most recent ask that ended unanswered (a late reply)."""
        if ticket_id:
            record = self._open.get(ticket_id) or self._closed.get(ticket_id)
            if record is None:
                raise rules.unknown_ticket(ticket_id)
            if record.ticket.target != caller.agent_id:
                raise rules.ticket_of_another_agent(ticket_id, self._ctx.name(record.ticket.target), caller.name)
            return record
        delivered = [r for r in self._ctx.lanes.of(caller.agent_id).mailbox.records if r.submitted]
        awaiting = next((r for r in delivered if r.ticket.kind is TicketKind.ASK), None)
        if awaiting is not None:
            return awaiting
        human = next((r for r in delivered if r.ticket.kind is TicketKind.HUMAN), None)
        if human is not None:
            return human
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

    # ------------------------------------------------------------------ opening

    def new_ticket(self, target: AgentEntry, requester: Requester, label: str, task: str, kind: TicketKind) -> Ticket:
        caller_id = requester.agent_id if isinstance(requester, AgentCaller) else None
        source: InputSource = AgentSource(caller_id) if caller_id is not None else HumanSource()
        return Ticket(
            id=self._ctx.ids.new_id(),
            target=target.agent_id,
            source=source,
            requester_label=label,
            conversation=conversation_for_pair(target.agent_id, caller_id),
            task=task,
            expects_reply=kind is TicketKind.ASK,
            created_at_ms=self._ctx.clock.now_ms(),
            kind=kind,
        )

    def enqueue(
        self, ticket: Ticket, profile: Profile, *, release_edge: Callable[[], None] | None = None
    ) -> TicketRecord:
        """Queue the ticket in its target's mailbox, start its watchdog and deliver it when its turn comes."""
        assert self._supervisor is not None and self._pump is not None, "the book is attached at composition"
        ctx = self._ctx
        lane = ctx.lanes.of(ticket.target)
        window = profile.liveness.turn_timeout_ms if profile.liveness and profile.liveness.turn_timeout_ms else None
        record = TicketRecord(
            ticket=ticket,
            outcome=asyncio.get_running_loop().create_future(),
            window_ms=window or ctx.timings.window_ms,
            enqueued_mono_ms=ctx.timer.monotonic_ms(),
            release_edge=release_edge,
        )
        lane.mailbox.enqueue(record)
        self._open[ticket.id] = record
        ctx.diagnostics.beacon(
            f"[mailbox] enqueued agent={ctx.name(ticket.target)} ticket={ticket.id} kind={ticket.kind.value} "
            f"depth={len(lane.mailbox.records)}"
        )
        requester = ticket.requester_agent
        if ticket.kind is TicketKind.ASK and requester is not None:
            ctx.board.write_system(requester, RowChange(status=WorkStatus.WAITING, last_delegation=ticket.id))
        record.supervisor = ctx.spawn(self._supervisor.supervise(record))
        ctx.lanes.publish(lane)
        self._pump.pump(lane)
        return record

    # ------------------------------------------------------------------ ending

    def end(self, record: TicketRecord, end: TicketEnd) -> None:
        """The one way a ticket ends; idempotent."""
        if record.end is not None:
            return
        record.end = end
        ctx = self._ctx
        ticket = record.ticket
        lane = ctx.lanes.of(ticket.target)
        was_head = lane.mailbox.remove(record)
        self._close(record)
        self._release_holds(record, lane)
        if not record.outcome.done():
            record.outcome.set_result(end)
        elapsed = ctx.timer.monotonic_ms() - record.enqueued_mono_ms
        tag = "[rendezvous]" if ticket.kind is TicketKind.ASK else "[mailbox]"
        ctx.diagnostics.beacon(
            f"{tag} ended ticket={ticket.id} agent={ctx.name(ticket.target)} outcome={end.kind.value}"
            + (f" cancel={end.cancel_source.value}" if end.cancel_source else "")
            + f" elapsed_ms={elapsed}"
        )
        self._rows_after_end(record, end)
        if ticket.kind is TicketKind.ASK:
            ctx.events.publish(
                RendezvousEnded(ticket.id, ticket.requester_agent, ticket.target, end.kind.value, elapsed)
            )
        if was_head:
            ctx.events.publish(AgentBusyChanged(ticket.target, None))
        ctx.lanes.publish(lane)
        assert self._pump is not None
        self._pump.pump(lane)

    def _close(self, record: TicketRecord) -> None:
        ticket_id = record.ticket.id
        self._open.pop(ticket_id, None)
        self._closed[ticket_id] = record
        while len(self._closed) > CLOSED_TICKETS_KEPT:
            self._closed.popitem(last=False)

    @staticmethod
    def _release_holds(record: TicketRecord, lane: AgentLane) -> None:
        """The wait-for edge, the watchers, and a delivery that has not started typing."""
        if record.release_edge is not None:
            record.release_edge()
            record.release_edge = None
        cancel_unless_current(record.supervisor)
        cancel_unless_current(record.follow_up)
        if lane.writer_record is record and not record.writing:
            cancel_unless_current(lane.writer)

    def _rows_after_end(self, record: TicketRecord, end: TicketEnd) -> None:
        """§10.3. The target's row changes only while it describes this ticket (a ticket never delivered
        leaves another ticket's row alone); rows of process ends are written by the exit handler."""
        board = self._ctx.board
        ticket = record.ticket
        target_row = board.row(ticket.target)
        if target_row is not None and target_row.ticket == ticket.id:
            if end.kind in (TicketEndKind.REPLIED, TicketEndKind.COMPLETED):
                board.write_system(
                    ticket.target, RowChange(status=WorkStatus.DONE, intent=None, ticket=None, progress=None)
                )
            elif end.kind in (TicketEndKind.RATE_LIMITED, TicketEndKind.NEEDS_ATTENTION):
                waits_for = f"usage limit until {end.note}" if end.kind is TicketEndKind.RATE_LIMITED else "the person"
                if end.kind is TicketEndKind.RATE_LIMITED and not end.note:
                    waits_for = "usage limit"
                board.write_system(ticket.target, RowChange(status=WorkStatus.BLOCKED, progress=f"({waits_for})"))
            elif end.kind not in (TicketEndKind.TARGET_DIED, TicketEndKind.TARGET_STOPPED):
                code = end.error_code.value if end.error_code else end.kind.value
                board.write_system(
                    ticket.target,
                    RowChange(status=WorkStatus.DONE, ticket=None, progress=abandoned_marker(code)),
                )
        requester = ticket.requester_agent
        if ticket.kind is TicketKind.ASK and requester is not None and not self.asks_in_flight_from(requester):
            alive = self._ctx.lifecycle.live(requester) is not None
            board.write_system(requester, RowChange(status=WorkStatus.WORKING if alive else WorkStatus.IDLE))
