"""The delivery pump (spec 03 §7.3, §8): when an agent is free, its head ticket is composed into text and
typed into its live terminal by the `Deliverer`, one delivery per terminal at a time; what happens once the
text is submitted and once the delivery is over.
"""

from __future__ import annotations

import asyncio

from collections.abc import Callable
from typing import Any

from idea.application.orchestrator.context import CoreContext
from idea.application.orchestrator.delivery import Deliverer, DeliveryJob
from idea.application.orchestrator.mailbox import AgentLane, TicketRecord
from idea.application.orchestrator.ports import PortalProvider
from idea.application.orchestrator.ticket_book import TicketBook
from idea.application.orchestrator.ticket_watch import TicketWatch
from idea.domain.orchestration import rules
from idea.domain.orchestration.delivery import FileReplyChannel, compose_delivery
from idea.domain.ids import AgentId
from idea.domain.orchestration.live_state import RowChange
from idea.domain.orchestration.commands import WorkStatus
from idea.domain.orchestration.events import (
    AgentBusyChanged,
    DelegationDelivered,
    DelegationReady,
    DeliveryMayBeStuck,
    DeliveryWaiting,
)
from idea.domain.profile import Profile
from idea.domain.orchestration.tickets import Ticket, TicketEnd, TicketEndKind, TicketKind, TicketPhase, preview

CLAUDE_HOOKS = "claude"
CODEX_NOTIFY = "codexNotify"


class DeliveryPump:
    def __init__(
        self,
        ctx: CoreContext,
        book: TicketBook,
        watch: TicketWatch,
        portals: PortalProvider,
        deliverer: Deliverer,
        holding: Callable[[AgentId], str | None] | None = None,
    ) -> None:
        """`holding(agent)`: why deliveries to the agent must wait now beyond its hooks' attention (a dialog
        read on its screen, its usage limit), else None."""
        self._ctx = ctx
        self._book = book
        self._watch = watch
        self._portals = portals
        self._deliverer = deliverer
        self._holding = holding

    def pump(self, lane: AgentLane) -> None:
        """Start delivering the head when the agent is idle and nothing is being typed into it."""
        ctx = self._ctx
        if ctx.closing or lane.writer is not None:
            return
        record = lane.mailbox.start_head(ctx.clock.now_ms())
        if record is None:
            return
        record.phase = TicketPhase.DELIVERING
        ctx.events.publish(AgentBusyChanged(lane.agent_id, lane.mailbox.busy))
        lane.writer_record = record
        writer = lane.writer = ctx.spawn(self._deliver(lane, record))
        # A delivery cancelled before it ever ran (its ticket ended at once, e.g. while a dead agent's queue is
        # emptied) never reaches its own `finally`: the lane must not keep it as its writer.
        writer.add_done_callback(lambda _done: self._writer_ended(lane, writer))
        ctx.lanes.publish(lane)

    def _writer_ended(self, lane: AgentLane, writer: asyncio.Task[Any] | None) -> None:
        """The lane's delivery is over (from its own `finally`, or from its task's end when it never ran):
        the lane takes its next ticket."""
        if lane.writer is writer:
            lane.writer = None
            lane.writer_record = None
            self.pump(lane)

    async def _deliver(self, lane: AgentLane, record: TicketRecord) -> None:
        ctx = self._ctx
        ticket = record.ticket
        try:
            live = ctx.lifecycle.live(ticket.target)
            if live is None:
                self._book.end(record, TicketEnd(TicketEndKind.TARGET_DIED))
                return
            text = compose_delivery(ticket, self._file_channel(ticket.target, live.profile))
            ctx.events.publish(
                DelegationReady(
                    ticket.target, ticket.id, text, live.profile.submit_sequence, live.profile.submit_delay_ms
                )
            )
            job = DeliveryJob(
                record=record,
                text=text,
                live=live,
                agent_name=ctx.name(ticket.target),
                portal=self._portals.portal_for(live.session_id),
                gate=lane.gate,
                attention=lambda: lane.attention or (self._holding(ticket.target) if self._holding else None),
                probe=lambda: ctx.activity.of(ticket.target),
                on_submitted=lambda: self._submitted(lane, record),
                on_waiting_for_human=lambda: ctx.events.publish(
                    DeliveryWaiting(ticket.target, ticket.id, ticket.requester_label)
                ),
                on_may_be_stuck=lambda: ctx.events.publish(DeliveryMayBeStuck(ticket.target, ticket.id)),
            )
            await self._deliverer.deliver(job)
            self._delivered(record, live.profile)
        except Exception as exc:  # noqa: BLE001  (a write refused: the session is gone; never leave it busy)
            ctx.diagnostics.beacon(f"[delivery] failed ticket={ticket.id}: {exc!r}")
            self._book.end(record, TicketEnd(TicketEndKind.TARGET_DIED))
        finally:
            self._writer_ended(lane, asyncio.current_task())

    def _submitted(self, lane: AgentLane, record: TicketRecord) -> None:
        ctx = self._ctx
        lane.last_submit_mono_ms = ctx.timer.monotonic_ms()
        if record.end is not None:
            return
        record.activity_at_submit = ctx.activity.of(record.ticket.target)
        ticket = record.ticket
        record.phase = TicketPhase.AWAITING_REPLY if ticket.kind is TicketKind.ASK else TicketPhase.DELIVERED
        if ticket.kind is not TicketKind.LATE_REPLY:
            ctx.board.write_system(
                ticket.target, RowChange(status=WorkStatus.WORKING, ticket=ticket.id, intent=self._intent_for(ticket))
            )
        ctx.lanes.publish(lane)

    def _delivered(self, record: TicketRecord, profile: Profile) -> None:
        ticket = record.ticket
        self._ctx.events.publish(DelegationDelivered(ticket.target, ticket.id, self._ctx.clock.now_ms()))
        if record.end is not None:
            return
        if reports_turn_end(profile):
            return  # the turn-end hook ends it (or starts the no-reply backstop)
        if ticket.kind is TicketKind.ASK:
            self._watch.start_quiet_return_watch(record)
        else:
            self._book.end(record, TicketEnd(TicketEndKind.COMPLETED))

    def _intent_for(self, ticket: Ticket) -> str:
        declared = self._ctx.board.declared_intent(ticket.target, self._ctx.timings.declared_intent_fresh_ms)
        if declared:
            return declared
        if ticket.kind is TicketKind.HUMAN:
            return preview(ticket.task, rules.AUTO_INTENT_PREVIEW_CHARS)
        return f"task from {ticket.requester_label}: {preview(ticket.task, rules.AUTO_INTENT_PREVIEW_CHARS)}"

    def _file_channel(self, agent_id: AgentId, profile: Profile) -> FileReplyChannel | None:
        if profile.materializes_idea_bridge():
            return None
        return FileReplyChannel(f"{self._ctx.project_root}/.ideai/requests/{agent_id}/in")


def reports_turn_end(profile: Profile) -> bool:
    """Whether the CLI tells IdeA authoritatively that a turn ended (Claude `Stop`, Codex notify)."""
    return profile.hooks in (CLAUDE_HOOKS, CODEX_NOTIFY)
