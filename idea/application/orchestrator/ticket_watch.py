"""The watchers that bound every ticket in time (spec 03 §9), each ending it through the ticket book:

- the inactivity watchdog of every ticket, from its enqueue (window re-armed on activity, absolute ceiling);
- the no-reply backstop, once the turn that processed an ask ended without `idea_reply`;
- the quiet-return watch, for CLIs without an authoritative turn-end signal.

The timing rules themselves live in `rendezvous.py`; this module ties them to tickets.
"""

from __future__ import annotations

from idea.application.orchestrator.context import CoreContext
from idea.application.orchestrator.mailbox import TicketRecord
from idea.application.orchestrator.rendezvous import (
    WatchdogVerdict,
    no_reply_grace,
    run_inactivity_watchdog,
    watch_for_quiet_return,
)
from idea.application.orchestrator.ticket_book import TicketBook
from idea.domain.orchestration.tickets import TicketEnd, TicketEndKind


class TicketWatch:
    def __init__(self, ctx: CoreContext, book: TicketBook) -> None:
        self._ctx = ctx
        self._book = book

    async def supervise(self, record: TicketRecord) -> None:
        """The inactivity watchdog of one ticket, from its enqueue time (§9.4, §9.8)."""
        ctx = self._ctx
        ticket = record.ticket
        name = ctx.name(ticket.target)

        def extended(elapsed: int) -> None:
            ctx.diagnostics.beacon(f"[rendezvous] window re-armed ticket={ticket.id} agent={name} elapsed_ms={elapsed}")

        def expired(elapsed: int) -> None:
            ctx.diagnostics.beacon(f"[rendezvous] no activity ticket={ticket.id} agent={name} elapsed_ms={elapsed}")

        def ceiling(elapsed: int) -> None:
            ctx.diagnostics.beacon(f"[rendezvous] ceiling reached ticket={ticket.id} agent={name} elapsed_ms={elapsed}")

        verdict = await run_inactivity_watchdog(
            record.outcome,
            window_ms=record.window_ms,
            ceiling_ms=ctx.timings.ceiling_ms,
            started_mono_ms=record.enqueued_mono_ms,
            timer=ctx.timer,
            probe=lambda: ctx.activity.of(ticket.target),
            on_extended=extended,
            on_expired=expired,
            on_ceiling=ceiling,
            probe_agents=ctx.activity.tokens_of,
        )
        if verdict is WatchdogVerdict.NO_PROGRESS:
            self._book.end(record, TicketEnd(TicketEndKind.TIMED_OUT))
        elif verdict is WatchdogVerdict.CEILING_ACTIVE:
            self._book.end(record, TicketEnd(TicketEndKind.CEILING_REACHED))

    def start_no_reply_backstop(self, record: TicketRecord, failure: str | None = None) -> None:
        """The turn that processed the ask ended without a reply (`failure`: on that API error): unless one is
        already running."""
        if record.follow_up is None or record.follow_up.done():
            record.follow_up = self._ctx.spawn(self._no_reply_backstop(record, failure))

    def start_quiet_return_watch(self, record: TicketRecord) -> None:
        """The ask was delivered to a CLI that never reports the end of a turn."""
        record.follow_up = self._ctx.spawn(self._watch_quiet_return(record))

    async def _no_reply_backstop(self, record: TicketRecord, failure: str | None = None) -> None:
        """After a turn that ended without a reply, the grace lets a late reply land; an agent still writing in
        its second half kept working, which cancels the verdict — unless an API error ended the turn: the
        CLI writes that error down after it, and no work follows it but a new turn (which cancels this)."""
        ctx = self._ctx
        ticket = record.ticket
        ctx.diagnostics.beacon(f"[rendezvous] turn ended without reply ticket={ticket.id}; grace started")
        if failure is not None:
            await ctx.timer.sleep(ctx.timings.no_reply_grace_ms)
            self._book.end(record, TicketEnd(TicketEndKind.NO_REPLY, note=failure))
        elif await no_reply_grace(ctx.timer, ctx.timings.no_reply_grace_ms, lambda: ctx.activity.of(ticket.target)):
            self._book.end(record, TicketEnd(TicketEndKind.NO_REPLY, note=failure))
        else:
            ctx.diagnostics.beacon(f"[rendezvous] backstop cancelled ticket={ticket.id}: the agent kept working")

    async def _watch_quiet_return(self, record: TicketRecord) -> None:
        ctx = self._ctx
        target = record.ticket.target
        # "Grew since the submission": a short turn may be over before the delivery has finished checking
        # that it started, so the first watch starts from the activity at submission.
        baseline = record.activity_at_submit
        while record.end is None:
            await watch_for_quiet_return(
                timer=ctx.timer,
                quiet_ms=ctx.timings.no_reply_quiet_ms,
                probe=lambda: ctx.activity.of(target),
                waits_on_others=lambda: bool(ctx.graph.waits_on(target)),
                alive=lambda: ctx.lifecycle.live(target) is not None,
                cpu_seconds=lambda: ctx.activity.cpu_seconds(target),
                baseline=baseline,
            )
            baseline = None  # the agent continued after a cancelled verdict: watch from now on
            await self._no_reply_backstop(record)
