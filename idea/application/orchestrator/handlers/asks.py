"""The asks family: `idea_ask_agent` and its rendezvous, `idea_reply` (late replies included, §9.7), and
the person cancelling a ticket.

Every ask ends in bounded time with one typed outcome (reply, no reply, inactivity, ceiling, cancellation,
death); a reply is never lost: after its requester stopped waiting it is recorded and shown.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import NoReturn

from idea.application.orchestrator.callers import (
    caller_of,
    label_of,
    require_agent,
    require_person,
    required,
    resolve_target,
)
from idea.application.orchestrator.cold_launch import ColdLaunches
from idea.application.orchestrator.context import CoreContext
from idea.application.orchestrator.dispatch import CommandDispatch
from idea.application.orchestrator.mailbox import TicketRecord
from idea.application.orchestrator.ticket_book import TicketBook
from idea.domain.agent import AgentEntry
from idea.domain.ids import AgentId
from idea.domain.knowledge.conversation_log import TurnRole
from idea.domain.orchestration import rules
from idea.domain.orchestration.commands import AskAgent, CancelTicket, Outcome, Reply, Requester, Source
from idea.domain.orchestration.events import AgentReplied, HumanReplyReceived, LateReplyAvailable, LateReplyView
from idea.domain.orchestration.tickets import AgentSource, CancelSource, Ticket, TicketEnd, TicketEndKind, TicketKind


class AskCommands:
    def __init__(self, ctx: CoreContext, book: TicketBook, launches: ColdLaunches) -> None:
        self._ctx = ctx
        self._book = book
        self._launches = launches

    def register(self, commands: CommandDispatch) -> None:
        commands.register(AskAgent, self.ask)
        commands.register(Reply, self.reply)
        commands.register(CancelTicket, self.cancel_ticket)

    # ------------------------------------------------------------------ ask

    async def ask(self, requester: Requester, command: AskAgent, source: Source) -> Outcome:
        ctx = self._ctx
        manifest = ctx.lifecycle.manifest()
        caller = caller_of(requester, manifest)
        target = resolve_target(manifest, command.target)
        task = required(command.task, "task")
        if caller is not None and caller.agent_id == target.agent_id:
            raise rules.delegation_cycle(target.name, [target.name])
        profile = ctx.lifecycle.profile_of(target.agent_id)
        if not profile.reachable_by_delegation():
            raise rules.bridge_unsupported(target.name, profile.name)
        release_edge: Callable[[], None] | None = None
        if caller is not None:
            chain = ctx.graph.path(target.agent_id, caller.agent_id)
            if chain is not None:
                raise rules.delegation_cycle(target.name, [ctx.name(agent_id) for agent_id in chain])
            # Held from now on, before any await, so two crossing asks cannot both pass the guard.
            release_edge = self._hold_edge(caller.agent_id, target.agent_id)
        label = label_of(requester, caller)
        record: TicketRecord | None = None
        try:
            await self._launches.ensure_live(target, reason=f"ask from {label}")
            ticket = self._book.new_ticket(target, requester, label, task, TicketKind.ASK)
            await ctx.record_turn(ticket.conversation, ticket.source, TurnRole.PROMPT, task, ticket.id, target.agent_id)
            record = self._book.enqueue(ticket, profile, release_edge=release_edge)
            release_edge = None  # the record owns the edge now
            ctx.diagnostics.beacon(
                f"[rendezvous] ask ticket={ticket.id} from={label} to={target.name} via={source.value}"
            )
            end = await asyncio.shield(record.outcome)
        except asyncio.CancelledError:
            if record is not None:
                self._book.end(record, TicketEnd(TicketEndKind.CANCELLED, cancel_source=CancelSource.REQUESTER_GONE))
            raise
        finally:
            if release_edge is not None:
                release_edge()
            if record is not None and record.end is None:
                self._book.end(record, TicketEnd(TicketEndKind.CANCELLED, cancel_source=CancelSource.REQUESTER_GONE))
        assert record is not None  # set before the await that produced `end`
        return self._verdict(record, end, target.name, label)

    def _verdict(self, record: TicketRecord, end: TicketEnd, target_name: str, label: str) -> Outcome:
        """The reply, or the typed error of how the rendezvous ended."""
        elapsed = self._ctx.timer.monotonic_ms() - record.enqueued_mono_ms
        if end.kind is TicketEndKind.REPLIED and end.result is not None:
            data = {"ticket": record.ticket.id, "target": target_name, "reply": end.result, "elapsedMs": elapsed}
            return Outcome(detail=f"reply from {target_name} (ticket {record.ticket.id})", reply=end.result, data=data)
        raise rules.verdict_error(
            end, target_name, label, ticket_id=record.ticket.id, elapsed_ms=elapsed, window_ms=record.window_ms
        )

    def _hold_edge(self, requester: AgentId, target: AgentId) -> Callable[[], None]:
        """Add the wait-for edge requester → target; the returned function removes it, once."""
        graph = self._ctx.graph
        graph.add(requester, target)
        held = True

        def release() -> None:
            nonlocal held
            if held:
                held = False
                graph.remove(requester, target)

        return release

    # ------------------------------------------------------------------ reply

    async def reply(self, requester: Requester, command: Reply, source: Source) -> Outcome:
        ctx = self._ctx
        caller = require_agent(requester, ctx.lifecycle.manifest(), "idea_reply")
        result = required(command.result, "result")
        record = self._book.reply_target(caller, command.ticket)
        ticket = record.ticket
        if record.end is None and ticket.kind is TicketKind.ASK:
            self._book.end(record, TicketEnd(TicketEndKind.REPLIED, result=result))
            await ctx.record_turn(ticket.conversation, AgentSource(caller.agent_id), TurnRole.RESPONSE, result, ticket.id)
            ctx.events.publish(AgentReplied(caller.agent_id, reply_len=len(result)))
            return Outcome(detail=f"reply delivered to {ticket.requester_label} (ticket {ticket.id})")
        if ticket.kind is TicketKind.ASK and record.end is not None:
            await self._late_reply(caller, record, record.end, result)
        await ctx.record_turn(ticket.conversation, AgentSource(caller.agent_id), TurnRole.RESPONSE, result, ticket.id)
        if ticket.kind is TicketKind.HUMAN:
            ctx.events.publish(HumanReplyReceived(caller.agent_id, ticket.id, result))
            return Outcome(detail="reply recorded for the user")
        return Outcome(detail=f"reply recorded; ticket {ticket.id} expected no reply")

    async def _late_reply(self, caller: AgentEntry, record: TicketRecord, end: TicketEnd, result: str) -> NoReturn:
        """§9.7: always recorded; TICKET_CLOSED to the replier; shown to the requester unless cancelled."""
        ctx = self._ctx
        ticket = record.ticket
        await ctx.record_turn(
            ticket.conversation, AgentSource(caller.agent_id), TurnRole.RESPONSE, result, ticket.id, late=True
        )
        ctx.diagnostics.beacon(f"[rendezvous] late reply ticket={ticket.id} after={end.kind.value}")
        if end.kind not in (TicketEndKind.CANCELLED, TicketEndKind.REPLIED):
            requester = ticket.requester_agent
            if requester is not None:
                self._show_late_reply(caller, ticket, requester, result)
            ctx.events.publish(LateReplyAvailable(requester=requester, target=caller.agent_id, ticket=ticket.id))
        raise rules.ticket_closed(ticket.id, ticket.requester_label, end)

    def _show_late_reply(self, caller: AgentEntry, ticket: Ticket, requester: AgentId, result: str) -> None:
        """Counted on the requester's queue and, while it runs, typed into it as a ticket of its own."""
        ctx = self._ctx
        lane = ctx.lanes.of(requester)
        lane.late_replies.append(LateReplyView(ticket.id, ticket.conversation, caller.name, ctx.clock.now_ms()))
        if ctx.lifecycle.live(requester) is not None:
            late = Ticket(
                id=ctx.ids.new_id(),
                target=requester,
                source=AgentSource(caller.agent_id),
                requester_label=caller.name,
                conversation=ticket.conversation,
                task=result,
                expects_reply=False,
                created_at_ms=ctx.clock.now_ms(),
                kind=TicketKind.LATE_REPLY,
                about_ticket=ticket.id,
            )
            self._book.enqueue(late, ctx.lifecycle.profile_of(requester))
        ctx.lanes.publish(ctx.lanes.of(requester))

    # ------------------------------------------------------------------ cancel

    async def cancel_ticket(self, requester: Requester, command: CancelTicket, source: Source) -> Outcome:
        require_person(requester, "cancelling a delegation")
        record = self._book.open_ticket(command.ticket)
        if record is None:
            closed = self._book.closed_ticket(command.ticket)
            if closed is None or closed.end is None:
                raise rules.unknown_ticket(command.ticket)
            return Outcome(detail=f"ticket {command.ticket} had already ended ({closed.end.kind.value})")
        self._book.end(record, TicketEnd(TicketEndKind.CANCELLED, cancel_source=CancelSource.USER))
        return Outcome(detail=f"cancelled ticket {command.ticket}")
