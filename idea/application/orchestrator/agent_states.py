"""What the core knows of each agent beyond its tickets (spec 05 §1): whether it needs the person, whether it
is stalled, whether it is at its usage limit — and what that means for the asks waiting on it.

- Attention: a Claude `Notification` (permission, or an input wait while it works), a blocking prompt its
  profile names read back on its screen (a trust dialog, a sign-in screen, a question). Deliveries wait while
  a dialog is shown; if the dialog is still there after `attention_notice_ms`, the asks waiting on the agent
  end with `TARGET_NEEDS_ATTENTION`, which says why and that the person was told (never a silent 600 s).
- Liveness: beats from hook events and transcript growth; the sweep marks busy, silent agents stalled.
- Usage limits: a limit seen on the agent's output or screen arms a resume at the reset time (or asks the
  person when there is none); the asks waiting on it end with `TARGET_RATE_LIMITED` (a later reply is still
  delivered); deliveries wait until the resume, which types its prompt into the CLI, or relaunches it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from idea.application.attention import AttentionBoard
from idea.application.limits.ports import ScheduledTask
from idea.application.limits.service import AgentPlace, SessionLimitService
from idea.application.liveness import LivenessMonitor
from idea.application.orchestrator.agent_watches import AgentWatches
from idea.application.orchestrator.context import CoreContext, cancel_unless_current
from idea.application.orchestrator.ticket_book import TicketBook
from idea.application.orchestrator.watch_ports import AgentWatchAdapters
from idea.domain.agent_states.attention import (
    Attention,
    AttentionOrigin,
    AttentionReason,
    reason_of_screen_prompt,
    requester_note,
)
from idea.domain.agent_states.liveness import sees_work, stall_after_ms
from idea.domain.agent_states.session_limit import RateLimitSource
from idea.domain.agent_states.turn_failure import FailedTurn
from idea.domain.ids import AgentId, NodeId
from idea.domain.orchestration.tickets import TicketEnd, TicketEndKind, TicketKind

DEFAULT_NOTIFICATION = "waiting for your input"


class AgentStates:
    def __init__(
        self,
        ctx: CoreContext,
        book: TicketBook,
        *,
        adapters: AgentWatchAdapters | None,
        submit_human: Callable[[AgentId, str], Awaitable[object]],
        turn_failed: Callable[[AgentId, FailedTurn], None] = lambda _agent, _failed: None,
    ) -> None:
        """`submit_human(agent, text)`: the person's input to the agent (how a resume gives its prompt);
        `turn_failed`: a turn the agent's CLI recorded as ended by an API error (`AgentSignals.turn_failed`)."""
        self._ctx = ctx
        self._book = book
        self._adapters = adapters
        self._submit_human = submit_human
        self.attention = AttentionBoard(
            clock=ctx.clock, events=ctx.events, diagnostics=ctx.diagnostics, name_of=ctx.name, visible_of=self._visible
        )
        self.attention.subscribe(self._attention_changed)
        self.liveness = LivenessMonitor(
            clock=ctx.clock,
            timer=ctx.timer,
            events=ctx.events,
            diagnostics=ctx.diagnostics,
            threshold_of=self._stall_threshold,
            token_of=lambda agent: ctx.activity.of(agent).get(agent),
            on_stall_suspected=self._stall_suspected,
        )
        self._fired: asyncio.Queue[ScheduledTask] = asyncio.Queue()
        self._scheduler = adapters.scheduler(self._fired) if adapters is not None else None
        self.limits: SessionLimitService | None = None
        if self._scheduler is not None:
            self.limits = SessionLimitService(
                clock=ctx.clock,
                scheduler=self._scheduler,
                events=ctx.events,
                resumer=self,
                diagnostics=ctx.diagnostics,
                locate=self._place,
            )
        self._watches: AgentWatches | None = None
        if adapters is not None:
            self._watches = AgentWatches(
                ctx,
                adapters,
                screen_limit=self.limit_seen,
                record_limit=self._record_limit,
                prompt=self.prompt_seen,
                turn_failed=turn_failed,
                person_submitted=self._person_took_over,
            )
        self._limited: set[AgentId] = set()  # deliveries wait for the resume
        self._notices: dict[AgentId, asyncio.Task[None]] = {}
        self._started = False

    # ------------------------------------------------------------------ life

    def start(self) -> None:
        """Start the sweep and the resume timers (on the core loop, once)."""
        if self._started:
            return
        self._started = True
        self._ctx.spawn(self._sweep_forever())
        if self._scheduler is not None and self.limits is not None:
            self._scheduler.start()
            self._ctx.spawn(self.limits.drain(self._fired))

    async def close(self) -> None:
        if self._watches is not None:
            await self._watches.close()
        if self._scheduler is not None:
            await self._scheduler.close()

    # ------------------------------------------------------------------ signals

    def hook_event(self, agent_id: AgentId, source: str = "", payload: dict[str, Any] | None = None) -> None:
        """Any hook event is a proof of work. A Claude hook also names its transcript, where some versions
        write their usage-limit records (level 1)."""
        self._ensure_started()
        self.liveness.beat(agent_id)
        transcript = (payload or {}).get("transcript_path")
        if source == "claude" and isinstance(transcript, str) and transcript and self._watches is not None:
            self._watches.transcript(agent_id, transcript)

    def hook_attention(self, agent_id: AgentId, reason: AttentionReason, message: str | None) -> None:
        """A hook says the agent needs the person (`AgentSignals` tells when: Claude's `Notification` of a
        permission prompt or a question, of an input wait only while the agent has a task; a turn that failed
        on its sign-in); it ends with the agent's next turn."""
        self.attention.raise_attention(agent_id, reason, message or DEFAULT_NOTIFICATION, AttentionOrigin.HOOK)

    def turn_moved(self, agent_id: AgentId) -> None:
        self.attention.turn_moved(agent_id)

    def holding(self, agent_id: AgentId) -> str | None:
        """Why a delivery to the agent must wait now (a dialog on its screen, its usage limit), else None."""
        if agent_id in self._limited:
            return "usage-limit"
        return "attention" if self.attention.holds_delivery(agent_id) else None

    def agent_launched(self, agent_id: AgentId) -> None:
        """Watch the new terminal for dialogs and limits (its profile says which), its CLI's records too."""
        self._ensure_started()
        if self._watches is not None:
            self._watches.launched(agent_id)

    def agent_exited(self, agent_id: AgentId) -> None:
        if self._watches is not None:
            self._watches.exited(agent_id)
        self._limited.discard(agent_id)
        self.attention.dismiss(agent_id)
        self.liveness.agent_exited(agent_id)

    def prompt_seen(self, agent_id: AgentId, literal: str | None) -> None:
        if literal is None:
            self.attention.screen_clear(agent_id)
        else:
            self.attention.raise_attention(agent_id, reason_of_screen_prompt(literal), literal, AttentionOrigin.SCREEN)

    def turn_failed_on_limit(self, agent_id: AgentId, message: str) -> None:
        """The CLI says a usage limit ended the turn (`FailedTurn.usage_limit`), with its message."""
        found = self._adapters.limit_in_failure(message) if self._adapters is not None else None
        if found is not None:
            self.limit_seen(agent_id, *found, RateLimitSource.STRUCTURED)

    def limit_seen(
        self, agent_id: AgentId, resets_at_ms: int | None, text: str, source: RateLimitSource = RateLimitSource.PATTERN
    ) -> None:
        """A usage limit on the agent's output or screen (level 2), or in its transcript (level 1)."""
        if self.limits is None:
            return
        place = self._place(agent_id)
        node = place.node_id if place is not None else None
        conversation = place.conversation_id if place is not None else None
        if not self.limits.report(agent_id, node, conversation, resets_at_ms, source):
            return
        self._limited.add(agent_id)
        fire_at = self.limits.armed_fire_at(agent_id)
        when = self._adapters.format_time(resets_at_ms) if self._adapters and resets_at_ms is not None else None
        end = TicketEnd(
            TicketEndKind.RATE_LIMITED, resets_at_ms=resets_at_ms, auto_resume=fire_at is not None, note=when
        )
        for record in self._waiting_asks(agent_id):
            self._book.end(record, end)

    def _record_limit(self, agent_id: AgentId, resets_at_ms: int | None, text: str) -> None:
        self.limit_seen(agent_id, resets_at_ms, text, RateLimitSource.STRUCTURED)

    # ------------------------------------------------------------------ AgentResumer

    async def resume(self, agent_id: AgentId, node_id: NodeId | None, conversation_id: str | None, prompt: str) -> None:
        """The limit lifted: a CLI still running gets the prompt typed in; an exited one is started again in its
        cell (or the background) on the conversation it carried, resuming its own session by its engine id
        (or, without one, with the conversation's handoff), and gets the prompt as its first turn."""
        self._limited.discard(agent_id)
        ctx = self._ctx
        if ctx.lifecycle.live(agent_id) is None:
            await ctx.lifecycle.launch(
                agent_id, node_id=node_id, visible=node_id is not None, reason="usage limit lifted",
                conversation_id=conversation_id,
            )
        await self._submit_human(agent_id, prompt)

    # ------------------------------------------------------------------ internals

    def _person_took_over(self, agent_id: AgentId) -> None:
        """Enter in the agent's cell while a resume is armed: the person is in control (spec 05 §9.4)."""
        if self.limits is not None and self.limits.armed_fire_at(agent_id) is not None:
            self.limits.user_took_over(agent_id)
            self._limited.discard(agent_id)

    def _ensure_started(self) -> None:
        if not self._started and not self._ctx.closing:
            self.start()

    async def _sweep_forever(self) -> None:
        lanes = self._ctx.lanes
        busy_before: set[AgentId] = set()
        while True:
            await self.liveness.next_sweep()
            busy = {lane.agent_id for lane in lanes.all() if lane.mailbox.busy is not None}
            for agent_id in busy - busy_before:
                self.liveness.busy_changed(agent_id, True)
            for agent_id in busy_before - busy:
                self.liveness.busy_changed(agent_id, False)
            busy_before = busy
            self.liveness.sweep()
            if self._watches is not None:
                for agent_id in busy:
                    self._watches.read_records(agent_id)

    def _stall_threshold(self, agent_id: AgentId) -> int | None:
        profile = self._ctx.profile_or_none(agent_id)
        if profile is None:
            return None
        return stall_after_ms(profile, sees_work(profile.hooks, profile.structured_adapter))

    def _stall_suspected(self, agent_id: AgentId) -> None:
        if self.limits is not None:
            self.limits.stall_suspected(agent_id)

    def _visible(self, agent_id: AgentId) -> bool:
        live = self._ctx.lifecycle.live(agent_id)
        return live is not None and live.node_id is not None

    def _place(self, agent_id: AgentId) -> AgentPlace | None:
        live = self._ctx.lifecycle.live(agent_id)
        if live is None:
            return None
        return AgentPlace(live.node_id, self._ctx.lifecycle.conversation_of(agent_id))

    def _waiting_asks(self, agent_id: AgentId) -> list:  # type: ignore[type-arg]
        return [
            record
            for record in self._book.open_records()
            if record.ticket.target == agent_id and record.ticket.kind is TicketKind.ASK
        ]

    def _attention_changed(self, agent_id: AgentId, attention: Attention | None) -> None:
        cancel_unless_current(self._notices.pop(agent_id, None))
        if attention is not None and attention.reason.blocks_delivery:
            self._notices[agent_id] = self._ctx.spawn(self._notice_requesters(agent_id, attention))

    async def _notice_requesters(self, agent_id: AgentId, attention: Attention) -> None:
        """Still waiting for the person after a while: the asks waiting on the agent end and say why."""
        await self._ctx.timer.sleep(self._ctx.timings.attention_notice_ms)
        if self.attention.current(agent_id) != attention:
            return
        self._notices.pop(agent_id, None)
        name, visible = self._ctx.name(agent_id), self._visible(agent_id)
        for record in self._waiting_asks(agent_id):
            note = requester_note(name, attention, visible, delivered=record.submitted)
            self._book.end(record, TicketEnd(TicketEndKind.NEEDS_ATTENTION, note=note))
