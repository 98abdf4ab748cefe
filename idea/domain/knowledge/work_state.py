"""The work panel's read model (spec 04 §15.1): what every agent of the project is doing, its queue, and the
conversations those tickets belong to with a bounded preview of each. Derived on demand, never persisted.

JSON is camelCase and, unlike the files IdeA writes, absent values are explicit nulls (the original's DTOs).
Previews collapse whitespace and cut without an ellipsis; `*Len` fields count the original text.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from idea.domain.knowledge.conversation_log import ConversationTurn, TurnId
from idea.domain.knowledge.handoff import Handoff
from idea.domain.ids import AgentId, ConversationId, NodeId, SessionId, conversation_for_pair
from idea.domain.orchestration.events import AgentQueueSnapshot, QueuedTicketView
from idea.domain.orchestration.tickets import source_to_json
from idea.domain.orchestration.tickets import preview as collapse_preview

TASK_PREVIEW_CHARS = 160
OBJECTIVE_PREVIEW_CHARS = 160
SUMMARY_PREVIEW_CHARS = 480
TURN_PREVIEW_CHARS = 220
RECENT_TURNS = 3
RECENT_RENDEZVOUS_KEPT = 20


class SummaryStatus(StrEnum):
    READY = "ready"  # the handoff was read
    MISSING = "missing"  # no handoff yet: the last turns of the log instead
    PARTIAL = "partial"  # the handoff could not be read, the log could
    UNAVAILABLE = "unavailable"  # neither could


class Liveness(StrEnum):
    ALIVE = "alive"
    STALLED = "stalled"


@dataclass(frozen=True)
class LiveSession:
    node_id: NodeId | None
    session_id: SessionId
    kind: str  # "pty"

    def to_json(self) -> dict[str, Any]:
        return {"nodeId": self.node_id, "sessionId": self.session_id, "kind": self.kind}


@dataclass(frozen=True)
class RateLimit:
    resets_at_ms: int | None
    resume_fire_at_ms: int | None

    def to_json(self) -> dict[str, Any]:
        return {"resetsAtMs": self.resets_at_ms, "resumeFireAtMs": self.resume_fire_at_ms}


@dataclass(frozen=True)
class Attention:
    reason: str  # "permission" | "input" | "trust" | "login"
    message: str | None

    def to_json(self) -> dict[str, Any]:
        return {"reason": self.reason, "message": self.message}


class NoticeLevel(StrEnum):
    INFO = "info"
    WARNING = "warning"
    ERROR = "error"


@dataclass(frozen=True)
class WorkNotice:
    """One line another feature adds to an agent's entry in the work panel (a session limit, a stalled turn):
    what the person should know, in their words."""

    text: str
    level: NoticeLevel = NoticeLevel.INFO
    since_ms: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {"text": self.text, "level": self.level.value, "sinceMs": self.since_ms}


@dataclass(frozen=True)
class AgentWork:
    agent_id: AgentId
    name: str
    profile_id: str
    live: LiveSession | None
    queue: AgentQueueSnapshot | None  # None: the orchestration core reported nothing for this agent
    liveness: Liveness | None = None
    attention: Attention | None = None
    rate_limit: RateLimit | None = None
    notices: tuple[WorkNotice, ...] = ()

    @property
    def tickets(self) -> tuple[QueuedTicketView, ...]:
        return self.queue.tickets if self.queue is not None else ()

    def to_json(self) -> dict[str, Any]:
        busy = self.queue.busy if self.queue is not None else None
        return {
            "agentId": self.agent_id,
            "name": self.name,
            "profileId": self.profile_id,
            "live": self.live.to_json() if self.live is not None else None,
            "busy": (
                {"state": "busy", "ticket": busy.ticket, "sinceMs": busy.since_ms} if busy else {"state": "idle"}
            ),
            "tickets": [ticket_json(ticket) for ticket in self.tickets],
            "bridgeConnected": self.queue.bridge_connected if self.queue is not None else False,
            "liveness": self.liveness.value if self.liveness is not None else None,
            "attention": self.attention.to_json() if self.attention is not None else None,
            "rateLimit": self.rate_limit.to_json() if self.rate_limit is not None else None,
            "lateReplies": self.queue.late_replies if self.queue is not None else 0,
            "notices": [notice.to_json() for notice in self.notices],
        }


def ticket_json(ticket: QueuedTicketView) -> dict[str, Any]:
    return {
        "ticketId": ticket.ticket_id,
        "conversationId": ticket.conversation_id,
        "position": ticket.position,
        "status": ticket.status,
        "phase": ticket.phase.value,
        "source": source_to_json(ticket.source),
        "requesterLabel": ticket.requester_label,
        "taskPreview": ticket.task_preview[:TASK_PREVIEW_CHARS],  # already collapsed by the orchestration core
        "taskLen": ticket.task_len,
    }


@dataclass(frozen=True)
class RecentTurn:
    turn: ConversationTurn

    @property
    def text_preview(self) -> str:
        return collapse_preview(self.turn.text, TURN_PREVIEW_CHARS)

    def to_json(self) -> dict[str, Any]:
        return {
            "role": self.turn.role.value,
            "source": source_to_json(self.turn.source),
            "atMs": self.turn.at_ms,
            "textPreview": self.text_preview,
            "textLen": len(self.turn.text),
        }


@dataclass(frozen=True)
class ConversationWork:
    conversation_id: ConversationId
    status: SummaryStatus
    objective_preview: str | None = None
    summary_preview: str | None = None
    summary_len: int = 0
    up_to: TurnId | None = None
    recent_turns: tuple[RecentTurn, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "conversationId": self.conversation_id,
            "status": self.status.value,
            "objectivePreview": self.objective_preview,
            "summaryPreview": self.summary_preview,
            "summaryLen": self.summary_len,
            "upTo": self.up_to,
            "recentTurns": [turn.to_json() for turn in self.recent_turns],
        }


class Failed:
    """A part of the read model that could not be read (the reason is logged, never shown raw)."""

    def __init__(self, reason: str) -> None:
        self.reason = reason


def conversation_work(
    conversation_id: ConversationId,
    handoff: Handoff | None | Failed,
    recent: Sequence[ConversationTurn] | Failed,
) -> ConversationWork:
    """The status rules: a handoff -> ready; none -> missing with the last 3 turns; an unreadable handoff
    but a readable log -> partial with those turns; neither -> unavailable."""
    if isinstance(handoff, Handoff):
        objective = collapse_preview(handoff.objective, OBJECTIVE_PREVIEW_CHARS) if handoff.objective else None
        return ConversationWork(
            conversation_id,
            SummaryStatus.READY,
            objective_preview=objective,
            summary_preview=collapse_preview(handoff.summary, SUMMARY_PREVIEW_CHARS),
            summary_len=len(handoff.summary),
            up_to=handoff.up_to,
        )
    turns = () if isinstance(recent, Failed) else tuple(RecentTurn(t) for t in list(recent)[-RECENT_TURNS:])
    if handoff is None:
        return ConversationWork(conversation_id, SummaryStatus.MISSING, recent_turns=turns)
    if isinstance(recent, Failed):
        return ConversationWork(conversation_id, SummaryStatus.UNAVAILABLE)
    return ConversationWork(conversation_id, SummaryStatus.PARTIAL, recent_turns=turns)


def conversations_in_view(
    agents: Iterable[AgentWork], recent_rendezvous: Iterable[ConversationId]
) -> tuple[ConversationId, ...]:
    """The distinct conversations of every ticket shown, in first-seen order, then those of the recent ended
    rendezvous (newest first) so recent history stays reachable."""
    seen: dict[ConversationId, None] = {}
    for agent in agents:
        for ticket in agent.tickets:
            seen.setdefault(ticket.conversation_id, None)
    for conversation in recent_rendezvous:
        seen.setdefault(conversation, None)
    return tuple(seen)


@dataclass(frozen=True)
class ProjectWorkState:
    agents: tuple[AgentWork, ...]
    conversations: tuple[ConversationWork, ...]
    problems: tuple[str, ...] = ()  # parts that could not be read; each section still renders

    def to_json(self) -> dict[str, Any]:
        return {
            "agents": [agent.to_json() for agent in self.agents],
            "conversations": [conversation.to_json() for conversation in self.conversations],
        }


def conversation_parties(conversation: ConversationId, agents: Sequence[AgentId]) -> tuple[AgentId, AgentId | None] | None:
    """Who a conversation is between: (agent, None) for the person and that agent, (a, b) for two agents
    (ids are symmetric, `a` comes first in `agents`); None when no pair of these agents gives that id."""
    for position, first in enumerate(agents):
        if conversation_for_pair(first, None) == conversation:
            return first, None
        for second in agents[position + 1 :]:
            if conversation_for_pair(first, second) == conversation:
                return first, second
    return None
