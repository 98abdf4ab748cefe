"""Mailboxes (spec 03 §7.2-7.3): one FIFO of tickets per agent, shared by delegations, launch tasks, human
tickets and late replies, and the agent's busy state.

An agent is busy from the start of its head ticket's delivery until that ticket ends. Only the service's
single end-of-ticket path removes a ticket, so every way a ticket ends releases the head.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from idea.application.orchestrator.cold_start import ColdStartGate
from idea.domain.ids import AgentId
from idea.domain.orchestration.events import AgentQueueSnapshot, BusyState, LateReplyView, QueuedTicketView
from idea.domain.orchestration.rules import TASK_PREVIEW_CHARS
from idea.domain.orchestration.tickets import Ticket, TicketEnd, TicketPhase, preview

DELIVERED_PHASES = frozenset({TicketPhase.AWAITING_REPLY, TicketPhase.DELIVERED})


@dataclass(eq=False)
class TicketRecord:
    """A ticket and what happens to it at runtime."""

    ticket: Ticket
    outcome: asyncio.Future[TicketEnd]
    window_ms: int  # inactivity window of its rendezvous
    enqueued_mono_ms: int
    phase: TicketPhase = TicketPhase.QUEUED
    end: TicketEnd | None = None
    writing: bool = False  # text being typed: the delivery finishes even if the ticket ends meanwhile
    force_delivery: bool = False  # the person chose "Deliver now (clears your line)"
    supervisor: asyncio.Task[None] | None = None  # the inactivity watchdog
    follow_up: asyncio.Task[None] | None = None  # no-reply grace or quiet watch, after submission
    activity_at_submit: Mapping[str, int] | None = None  # the target's activity as its text was submitted
    release_edge: Callable[[], None] | None = None  # the wait-for edge of an ask
    # Set when the CLI reports a turn for this ticket's text; wakes the delivery verifying its submission.
    turn_signal: asyncio.Event = field(default_factory=asyncio.Event, repr=False)

    @property
    def turn_started(self) -> bool:
        """The CLI reported a turn for this ticket's text."""
        return self.turn_signal.is_set()

    @turn_started.setter
    def turn_started(self, value: bool) -> None:
        if value:
            self.turn_signal.set()
        else:
            self.turn_signal.clear()

    @property
    def submitted(self) -> bool:
        return self.phase in DELIVERED_PHASES


class Mailbox:
    def __init__(self, agent_id: AgentId) -> None:
        self.agent_id = agent_id
        self.records: list[TicketRecord] = []  # position 0 is the head
        self.busy: BusyState | None = None

    def enqueue(self, record: TicketRecord) -> None:
        self.records.append(record)

    def start_head(self, now_ms: int) -> TicketRecord | None:
        """Make the head busy when the agent is idle; the record to deliver, or None."""
        if self.busy is not None or not self.records:
            return None
        head = self.records[0]
        self.busy = BusyState(ticket=head.ticket.id, since_ms=now_ms)
        return head

    def remove(self, record: TicketRecord) -> bool:
        """Take `record` out of the queue (idempotent); True when it was the busy head, now released."""
        if record in self.records:
            self.records.remove(record)
        if self.busy is not None and self.busy.ticket == record.ticket.id:
            self.busy = None
            return True
        return False

    def snapshot(self, *, late: tuple[LateReplyView, ...], bridge_connected: bool) -> AgentQueueSnapshot:
        busy_ticket = self.busy.ticket if self.busy else None
        views = tuple(
            QueuedTicketView(
                ticket_id=record.ticket.id,
                conversation_id=record.ticket.conversation,
                position=position,
                status="inProgress" if record.ticket.id == busy_ticket else "queued",
                phase=record.phase,
                source=record.ticket.source,
                requester_label=record.ticket.requester_label,
                task_preview=preview(record.ticket.task, TASK_PREVIEW_CHARS),
                task_len=len(record.ticket.task),
                delivered=record.submitted,
            )
            for position, record in enumerate(self.records)
        )
        return AgentQueueSnapshot(
            agent_id=self.agent_id,
            busy=self.busy,
            tickets=views,
            late=late,
            bridge_connected=bridge_connected,
        )


@dataclass(eq=False)
class AgentLane:
    """Everything the core tracks about one agent: its mailbox and the signals of its current session."""

    agent_id: AgentId
    mailbox: Mailbox
    writer: asyncio.Task[None] | None = None  # the one delivery typing into this terminal
    writer_record: TicketRecord | None = None
    gate: ColdStartGate | None = None
    attention: str | None = None  # a hook reported a permission or input wait
    turn_owner: str | None = None  # ticket id of the turn the CLI is running, from its last prompt
    last_submit_mono_ms: int | None = None
    bridge_connections: int = 0  # live MCP connections of this agent's bridges (a CLI may open several)
    stopping: bool = False  # a stop was requested: its exit ends tickets with TARGET_STOPPED
    late_replies: list[LateReplyView] = field(default_factory=list)

    def forget_session(self) -> None:
        """The agent's process is gone: its session signals mean nothing for the next one."""
        if self.gate is not None:
            self.gate.dispose()
        self.gate = None
        self.attention = None
        self.turn_owner = None
        self.last_submit_mono_ms = None
        self.stopping = False
        # Bridge connections are not forgotten: each one reports its own end, possibly after the exit.

    @property
    def bridge_connected(self) -> bool:
        return self.bridge_connections > 0
