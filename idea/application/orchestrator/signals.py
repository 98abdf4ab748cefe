"""What a running agent tells the core, and what it means for its tickets (spec 03 §9.3, spec 05 §7):

- hook events of its CLI: a turn started (and which ticket's text it carries: the turn's owner), a turn
  ended, the CLI waits for a permission or an input, the session started;
- its MCP bridges connecting, initialising and hanging up;
- its process exiting.

Terminal text never decides that a turn ended; hooks and the activity token do (failure #10).
"""

from __future__ import annotations

from typing import Any

from idea.application.orchestrator.agent_states import AgentStates
from idea.application.orchestrator.cold_launch import ColdLaunches
from idea.application.orchestrator.context import CoreContext
from idea.application.orchestrator.mailbox import AgentLane, TicketRecord
from idea.application.orchestrator.ticket_book import TicketBook
from idea.application.orchestrator.ticket_watch import TicketWatch
from idea.domain.agent_states.attention import AttentionReason, reason_of_notification
from idea.domain.agent_states.turn_failure import FailedTurn
from idea.domain.ids import AgentId, TicketId
from idea.domain.orchestration.commands import WorkStatus
from idea.domain.orchestration.delivery import is_idea_delivery
from idea.domain.orchestration.events import AgentAttention, BridgeStateChanged
from idea.domain.orchestration.live_state import RowChange, exited_marker
from idea.domain.orchestration.tickets import (
    CancelSource,
    TicketEnd,
    TicketEndKind,
    TicketKind,
    TicketPhase,
    collapse_whitespace,
)

CODEX_TURN_COMPLETE = "agent-turn-complete"


class AgentSignals:
    def __init__(
        self,
        ctx: CoreContext,
        book: TicketBook,
        watch: TicketWatch,
        launches: ColdLaunches,
        states: AgentStates | None = None,
    ) -> None:
        self._ctx = ctx
        self._book = book
        self._watch = watch
        self._launches = launches
        self._states = states  # attention, liveness and limits of the agents

    # ------------------------------------------------------------------ hooks

    def hook_event(self, agent_id: AgentId, source: str, event: str, payload: dict[str, Any]) -> None:
        if self._ctx.lifecycle.manifest().by_id(agent_id) is None:
            return
        transcript = payload.get("transcript_path")
        self._ctx.activity.note_hook_event(agent_id, transcript if isinstance(transcript, str) else None)
        if self._states is not None:
            self._states.hook_event(agent_id, source, payload)
        if source == "codex":
            if event == CODEX_TURN_COMPLETE or payload.get("type") == CODEX_TURN_COMPLETE:
                messages = payload.get("input-messages")
                texts = [m for m in messages if isinstance(m, str)] if isinstance(messages, list) else []
                owner = self._owner_of(agent_id, "\n".join(texts))
                self._turn_ended(agent_id, owner.ticket.id if owner else None)
            return
        if event == "SessionStart":
            self._launches.release_gate(agent_id, "SessionStart")
        elif event == "UserPromptSubmit":
            prompt = payload.get("prompt")
            self._turn_started(agent_id, prompt if isinstance(prompt, str) else "")
        elif event == "Stop":
            self._turn_ended(agent_id, self._ctx.lanes.of(agent_id).turn_owner)
        elif event == "StopFailure":
            error, said = payload.get("error"), payload.get("last_assistant_message")
            failed = FailedTurn(
                error if isinstance(error, str) and error else "unknown", said if isinstance(said, str) else None
            )
            self.turn_failed(agent_id, failed)
        elif event == "Notification":
            kind = payload.get("notification_type")
            self._attention(agent_id, payload.get("message"), kind if isinstance(kind, str) else None)

    def _turn_started(self, agent_id: AgentId, prompt: str) -> None:
        ctx = self._ctx
        lane = ctx.lanes.of(agent_id)
        lane.attention = None
        if self._states is not None:
            self._states.turn_moved(agent_id)
        owner = self._owner_of(agent_id, prompt)
        lane.turn_owner = owner.ticket.id if owner else None
        if owner is not None:
            owner.turn_started = True
        ctx.diagnostics.beacon(f"[turn] started agent={ctx.name(agent_id)} ticket={lane.turn_owner}")
        for record in lane.mailbox.records:  # the agent continued: a pending no-reply verdict is dropped
            if record.follow_up is not None and not record.follow_up.done():
                record.follow_up.cancel()
                ctx.diagnostics.beacon(f"[rendezvous] backstop cancelled ticket={record.ticket.id}: new turn")
        if is_idea_delivery(prompt) or self._recently_delivered(lane):
            return
        # The person started a new turn in this agent's CLI: a tool call it was awaiting was abandoned
        # (Claude's Esc does not tell the MCP server).
        for record in self._book.asks_in_flight_from(agent_id):
            self._book.end(record, TicketEnd(TicketEndKind.CANCELLED, cancel_source=CancelSource.REQUESTER_NEW_PROMPT))

    def turn_failed(self, agent_id: AgentId, failed: FailedTurn) -> None:
        """An API error ended the agent's turn (Claude's `StopFailure`, a Codex rollout's failed
        `task_complete`): the turn ends in any case; a usage limit ends the asks waiting on the agent as such
        (and arms the resume); a failed sign-in asks the person to sign in."""
        lane = self._ctx.lanes.of(agent_id)
        owner = self._owner_of(agent_id, failed.prompt) if failed.prompt else None
        self._ctx.diagnostics.beacon(f"[turn] failed agent={self._ctx.name(agent_id)} error={failed.error}")
        if self._states is not None and failed.usage_limit and failed.message:
            self._states.turn_failed_on_limit(agent_id, failed.message)
        self._turn_ended(agent_id, owner.ticket.id if owner else lane.turn_owner, failure=failed.error)
        if self._states is not None and failed.needs_sign_in:
            self._states.hook_attention(agent_id, AttentionReason.SIGN_IN, failed.message)

    def _turn_ended(self, agent_id: AgentId, owner: TicketId | None, failure: str | None = None) -> None:
        """`failure`: the API error that ended the turn, told to an asker left without a reply."""
        lane = self._ctx.lanes.of(agent_id)
        lane.attention = None
        if self._states is not None:
            self._states.turn_moved(agent_id)
        self._ctx.diagnostics.beacon(f"[turn] ended agent={self._ctx.name(agent_id)} ticket={owner}")
        record = next((r for r in lane.mailbox.records if r.ticket.id == owner), None)
        if record is None:
            return  # a turn of no open ticket (or of an earlier one) never ends anything
        # The turn's prompt carried this ticket, so its text was submitted, even if the write has not
        # reported back yet.
        if record.ticket.kind is not TicketKind.ASK:
            self._book.end(record, TicketEnd(TicketEndKind.COMPLETED))
        else:
            self._watch.start_no_reply_backstop(record, failure)

    def _owner_of(self, agent_id: AgentId, prompt: str) -> TicketRecord | None:
        """The open ticket of `agent_id` whose delivered text this prompt carries."""
        text = collapse_whitespace(prompt)
        if not text:
            return None
        return next(
            (
                record
                for record in self._ctx.lanes.of(agent_id).mailbox.records
                if record.phase is not TicketPhase.QUEUED and record.ticket.correlation_key in text
            ),
            None,
        )

    def _attention(self, agent_id: AgentId, message: object, kind: str | None) -> None:
        """A permission prompt, a question, or an input wait during a task, holds deliveries until the next
        turn. Claude also notifies an input wait at an idle prompt: that is no dialog, and holding deliveries
        there would keep the next task from ever starting the turn that clears the hold; and it notifies what
        is over (a sign-in that succeeded, a dialog answered), which needs nobody."""
        text = message if isinstance(message, str) else None
        reason = reason_of_notification(text, kind)
        lane = self._ctx.lanes.of(agent_id)
        if reason is None or (reason is AttentionReason.INPUT and lane.mailbox.busy is None):
            return
        lane.attention = reason.value
        self._ctx.events.publish(AgentAttention(agent_id, reason.value, text))
        if self._states is not None:
            self._states.hook_attention(agent_id, reason, text)

    def _recently_delivered(self, lane: AgentLane) -> bool:
        last = lane.last_submit_mono_ms
        timer, timings = self._ctx.timer, self._ctx.timings
        return last is not None and timer.monotonic_ms() - last <= timings.native_prompt_after_delivery_ms

    # ------------------------------------------------------------------ bridges

    def bridge_connected(self, agent_id: AgentId) -> None:
        lane = self._ctx.lanes.of(agent_id)
        lane.bridge_connections += 1
        self._ctx.events.publish(BridgeStateChanged(agent_id, connected=True))
        self._ctx.lanes.publish(lane)

    def bridge_initialized(self, agent_id: AgentId) -> None:
        self._launches.release_gate(agent_id, "bridge_initialized")

    def bridge_disconnected(self, agent_id: AgentId) -> None:
        """One connection ended; the agent stays connected while another one of its bridges is (`claude mcp
        list` run in its run dir, a restarted CLI whose old bridge hangs up after the new one connected)."""
        lane = self._ctx.lanes.of(agent_id)
        lane.bridge_connections = max(0, lane.bridge_connections - 1)
        self._ctx.events.publish(BridgeStateChanged(agent_id, connected=lane.bridge_connected))
        self._ctx.lanes.publish(lane)

    # ------------------------------------------------------------------ process

    def agent_exited(self, agent_id: AgentId, exit_code: int | None) -> None:
        """Its tickets end (stopped on request, else died), its own asks are cancelled, its row says so."""
        ctx = self._ctx
        lane = ctx.lanes.of(agent_id)
        kind = TicketEndKind.TARGET_STOPPED if lane.stopping else TicketEndKind.TARGET_DIED
        ctx.diagnostics.beacon(f"[mailbox] agent exited agent={ctx.name(agent_id)} code={exit_code}")
        if self._states is not None:
            self._states.agent_exited(agent_id)
        if lane.writer is not None:
            lane.writer.cancel()
        for record in list(lane.mailbox.records):
            self._book.end(record, TicketEnd(kind, exit_code=exit_code))
        for record in self._book.asks_in_flight_from(agent_id):
            self._book.end(record, TicketEnd(TicketEndKind.CANCELLED, cancel_source=CancelSource.REQUESTER_STOPPED))
        lane.forget_session()
        ctx.board.write_system(
            agent_id, RowChange(status=WorkStatus.IDLE, ticket=None, progress=exited_marker(exit_code))
        )
        ctx.lanes.publish(lane)
