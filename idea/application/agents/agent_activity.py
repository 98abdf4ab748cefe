"""What the orchestration core says about each agent, folded from its events for the Agents panel: its
queue and busy state, its live-state row, its bridge, late replies, a call for the person's
attention and a delivery waiting for the person's line.

Queues and live-state rows can be read again at any time; attention and waiting deliveries are known only
from events, so a fresh read keeps them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import datetime

from idea.domain.events import AgentExited
from idea.domain.agent_states.events import (
    AgentAttentionCleared,
    AgentLimitDismissed,
    AgentLivenessChanged,
    AgentNeedsAttention,
    AgentRateLimited,
    AgentRateLimitSuspected,
    AgentResumeCancelled,
    AgentResumed,
    AgentResumeScheduled,
    SuspicionReason,
)
from idea.domain.ids import AgentId, TicketId
from idea.domain.agent_states.liveness import Liveness
from idea.domain.orchestration.events import (
    AgentAttention,
    AgentBusyChanged,
    AgentQueueChanged,
    AgentQueueSnapshot,
    AgentReplied,
    BridgeStateChanged,
    BusyState,
    DelegationDelivered,
    DeliveryWaiting,
    HumanReplyReceived,
    OrchestratorRequestProcessed,
    QueuedTicketView,
)

IDLE_STATUS = "idle"


@dataclass(frozen=True)
class WorkRow:
    """The agent's live-state row (spec 03 §10): what it is doing, in its own words or IdeA's."""

    status: str  # idle | working | waiting | blocked | done
    intent: str

    @property
    def text(self) -> str:
        return f"{self.status}: {self.intent}" if self.intent else self.status


@dataclass(frozen=True)
class WaitingDelivery:
    """A ticket whose delivery has long waited for the person to send or clear their line."""

    ticket: TicketId
    requester_label: str


@dataclass(frozen=True)
class LastRequest:
    """The last command the agent itself sent through a door (a tool call, a request file)."""

    action: str  # "idea_ask_agent"
    ok: bool
    at_ms: int

    def describe(self) -> str:
        return f"{self.action}{'' if self.ok else ' (refused or failed)'} at {clock_text(self.at_ms)}"


@dataclass(frozen=True)
class LimitState:
    """The agent is at its provider's usage limit (spec 05 §10)."""

    resets_at_ms: int | None  # None: unknown
    fire_at_ms: int | None = None  # when IdeA resumes it; None: no automatic resume armed
    cancelled: bool = False  # the person cancelled the automatic resume


@dataclass(frozen=True)
class HumanNet:
    """IdeA asks the person when to resume the agent (no reset time read, a long stall, re-limits)."""

    reason: SuspicionReason
    resets_at_ms: int | None  # a value to pre-fill
    raised_at_ms: int = 0  # tells one raising of the net from the next (a toast closed stays closed for it)
    detail: str | None = None  # what stopped IdeA (a failed resume's error)


@dataclass(frozen=True)
class AgentActivity:
    busy: BusyState | None = None
    idle_since_ms: int | None = None  # when its last ticket ended, as far as the panel saw
    tickets: tuple[QueuedTicketView, ...] = ()  # head first
    late_replies: int = 0  # replies to its asks that arrived after it stopped waiting
    bridge_connected: bool = False
    work: WorkRow | None = None
    attention: str | None = None  # "permission" | "input" | "trust" | "signIn" | "question" | …
    attention_message: str | None = None
    attention_visible: bool = True  # False: the agent needing the person runs in the background
    waiting: WaitingDelivery | None = None
    last_request: LastRequest | None = None
    stalled: bool = False  # busy without a sign of work for its `stallAfterMs` (advisory)
    limit: LimitState | None = None
    human_net: HumanNet | None = None

    @property
    def queue_depth(self) -> int:
        return len(self.tickets)

    def ticket(self, ticket_id: TicketId) -> QueuedTicketView | None:
        return next((ticket for ticket in self.tickets if ticket.ticket_id == ticket_id), None)


NOTHING_KNOWN = AgentActivity()


class ActivityBook:
    def __init__(self) -> None:
        self._agents: dict[AgentId, AgentActivity] = {}

    def of(self, agent_id: AgentId) -> AgentActivity:
        return self._agents.get(agent_id, NOTHING_KNOWN)

    def all(self) -> Mapping[AgentId, AgentActivity]:
        return dict(self._agents)

    def clear(self) -> None:
        self._agents.clear()

    def load(self, snapshots: Iterable[AgentQueueSnapshot], work: Mapping[AgentId, WorkRow], now_ms: int) -> None:
        """A fresh read of the core: every queue and every live-state row."""
        for snapshot in snapshots:
            self._queue(snapshot, now_ms)
        self.set_work(work)

    def set_work(self, work: Mapping[AgentId, WorkRow]) -> None:
        for agent_id in set(self._agents) | set(work):
            self._update(agent_id, work=work.get(agent_id))

    def apply(self, event: object, now_ms: int) -> bool:
        """Fold one orchestration event in; True when it changed something the panel shows."""
        match event:
            case AgentQueueChanged(snapshot=snapshot):
                self._queue(snapshot, now_ms)
            case AgentBusyChanged(agent_id=agent_id, busy=busy):
                self._update(agent_id, **self._busy_changes(self.of(agent_id), busy, now_ms))
            case BridgeStateChanged(agent_id=agent_id, connected=connected):
                self._update(agent_id, bridge_connected=connected)
            case AgentAttention(agent_id=agent_id, reason=reason, message=message):
                self._update(agent_id, attention=reason, attention_message=message)
            case DeliveryWaiting(agent_id=agent_id, ticket=ticket, requester_label=requester):
                self._update(agent_id, waiting=WaitingDelivery(ticket, requester))
            case DelegationDelivered(agent_id=agent_id, ticket=ticket):
                # Published once the delivery is over, which can be after the new turn already asked the
                # person something: it ends a waiting banner, never an attention mark.
                waiting = self.of(agent_id).waiting
                if waiting is not None and waiting.ticket == ticket:
                    self._update(agent_id, waiting=None)
            case AgentReplied(agent_id=agent_id) | HumanReplyReceived(agent_id=agent_id):
                self.clear_attention(agent_id)
            case OrchestratorRequestProcessed(requester=str() as agent_id, action=action, ok=ok):
                self._update(agent_id, last_request=LastRequest(action, ok, now_ms))
            case AgentExited(agent_id=agent_id):
                self.process_ended(agent_id)
            case AgentNeedsAttention(agent_id=agent_id, reason=reason, message=message, visible=visible):
                self._update(agent_id, attention=reason.value, attention_message=message, attention_visible=visible)
            case AgentAttentionCleared(agent_id=agent_id):
                self.clear_attention(agent_id)
            case AgentLivenessChanged(agent_id=agent_id, liveness=liveness):
                self._update(agent_id, stalled=liveness is Liveness.STALLED)
            case AgentRateLimited(agent_id=agent_id, resets_at_ms=resets_at_ms):
                self._update(agent_id, limit=LimitState(resets_at_ms))
            case AgentResumeScheduled(agent_id=agent_id, fire_at_ms=fire_at_ms):
                limit = self.of(agent_id).limit or LimitState(None)
                self._update(agent_id, limit=replace(limit, fire_at_ms=fire_at_ms, cancelled=False), human_net=None)
            case AgentResumeCancelled(agent_id=agent_id):
                limit = self.of(agent_id).limit or LimitState(None)
                self._update(agent_id, limit=replace(limit, fire_at_ms=None, cancelled=True))
            case AgentResumed(agent_id=agent_id):
                self._update(agent_id, limit=None, human_net=None, stalled=False)
            case AgentRateLimitSuspected(agent_id=agent_id, resets_at_ms=resets_at_ms, reason=reason, detail=detail):
                raised = event.raised_at_ms or now_ms
                self._update(agent_id, human_net=HumanNet(reason, resets_at_ms, raised, detail))
            case AgentLimitDismissed(agent_id=agent_id):
                self._update(agent_id, limit=None, human_net=None)
            case _:
                return False
        return True

    def dismiss_human_net(self, agent_id: AgentId) -> None:
        """The person answered the human net (a time, "not a limit", "keep waiting")."""
        self._update(agent_id, human_net=None)

    def clear_attention(self, agent_id: AgentId) -> bool:
        """The person saw it, or the agent moved on; True when there was a mark to clear."""
        if self.of(agent_id).attention is None:
            return False
        self._update(agent_id, attention=None, attention_message=None)
        return True

    def find_ticket(self, ticket_id: TicketId) -> tuple[AgentId, QueuedTicketView] | None:
        """The queued ticket and the agent whose queue holds it."""
        for agent_id, activity in self._agents.items():
            ticket = activity.ticket(ticket_id)
            if ticket is not None:
                return agent_id, ticket
        return None

    def delivery_forced(self, ticket_id: TicketId) -> AgentId | None:
        """The person chose "Deliver now": the banner goes. Returns the agent it was shown for."""
        for agent_id, activity in self._agents.items():
            if activity.waiting is not None and activity.waiting.ticket == ticket_id:
                self._update(agent_id, waiting=None)
                return agent_id
        return None

    def process_ended(self, agent_id: AgentId) -> None:
        """Its CLI is gone: nobody is asking the person anything and nothing waits for their line."""
        if agent_id in self._agents:
            self._update(agent_id, attention=None, attention_message=None, waiting=None, stalled=False)

    def _queue(self, snapshot: AgentQueueSnapshot, now_ms: int) -> None:
        before = self.of(snapshot.agent_id)
        already_submitted = {ticket.ticket_id for ticket in before.tickets if ticket.delivered}
        newly_submitted = any(t.delivered and t.ticket_id not in already_submitted for t in snapshot.tickets)
        waiting = before.waiting
        if waiting is not None and not any(
            t.ticket_id == waiting.ticket and not t.delivered for t in snapshot.tickets
        ):
            waiting = None
        changes = self._busy_changes(before, snapshot.busy, now_ms)
        if newly_submitted:  # its CLI took a new prompt, so it is no longer stuck on a question
            changes.update(attention=None, attention_message=None)
        self._update(
            snapshot.agent_id,
            tickets=snapshot.tickets,
            late_replies=snapshot.late_replies,
            bridge_connected=snapshot.bridge_connected,
            waiting=waiting,
            **changes,
        )

    @staticmethod
    def _busy_changes(before: AgentActivity, busy: BusyState | None, now_ms: int) -> dict[str, object]:
        changes: dict[str, object] = {"busy": busy}
        if before.busy is not None and busy is None:
            changes["idle_since_ms"] = now_ms
        return changes

    def _update(self, agent_id: AgentId, **changes: object) -> None:
        self._agents[agent_id] = replace(self.of(agent_id), **changes)  # type: ignore[arg-type]


def elapsed_text(ms: int) -> str:
    """A duration at minute precision: "<1m", "12m", "2h 05m"."""
    minutes = max(0, ms) // 60_000
    if minutes < 1:
        return "<1m"
    if minutes < 60:
        return f"{minutes}m"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h {minutes:02d}m"


def clock_text(epoch_ms: int) -> str:
    """The local time of day of a timestamp, for tooltips ("since 14:02")."""
    return datetime.fromtimestamp(epoch_ms / 1000).strftime("%H:%M")
