"""Tickets: one task addressed to one agent's mailbox (spec 03 §7.1), the phases it goes through and the
single terminal state it reaches (§9.1)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from idea.domain.errors import ErrorCode
from idea.domain.ids import AgentId, ConversationId, TicketId

HUMAN_KEY_CHARS = 80  # how much of a person's text identifies it in the CLI's prompt report


@dataclass(frozen=True)
class HumanSource:
    """The person at the keyboard."""


@dataclass(frozen=True)
class AgentSource:
    agent_id: AgentId


InputSource = HumanSource | AgentSource


def source_to_json(source: InputSource) -> dict[str, Any]:
    if isinstance(source, AgentSource):
        return {"kind": "agent", "agentId": source.agent_id}
    return {"kind": "human"}


class TicketKind(StrEnum):
    ASK = "ask"  # idea_ask_agent: the requester waits for idea_reply
    TASK = "task"  # the task of idea_launch_agent: nobody waits
    HUMAN = "human"  # SubmitHumanInput: delivered verbatim
    LATE_REPLY = "lateReply"  # a reply that arrived after its requester stopped waiting, shown to it


@dataclass(frozen=True)
class Ticket:
    id: TicketId
    target: AgentId
    source: InputSource
    requester_label: str  # "Main", or "you" for the person
    conversation: ConversationId
    task: str  # the raw task, without any delivery header
    expects_reply: bool  # True for asks only
    created_at_ms: int
    kind: TicketKind
    about_ticket: TicketId | None = None  # a late reply: the ask it answers

    @property
    def requester_agent(self) -> AgentId | None:
        return self.source.agent_id if isinstance(self.source, AgentSource) else None

    @property
    def correlation_key(self) -> str:
        """What the delivered text contains that identifies it in a CLI's prompt or turn report."""
        if self.kind is TicketKind.HUMAN:
            return collapse_whitespace(self.task)[:HUMAN_KEY_CHARS]
        return self.about_ticket or self.id


class TicketPhase(StrEnum):
    QUEUED = "queued"
    DELIVERING = "delivering"
    AWAITING_REPLY = "awaitingReply"  # an ask whose text was submitted
    DELIVERED = "delivered"  # a ticket expecting no reply whose text was submitted


class TicketEndKind(StrEnum):
    REPLIED = "replied"
    COMPLETED = "completed"  # a ticket expecting no reply was served
    NO_REPLY = "noReply"
    TIMED_OUT = "timedOut"
    CEILING_REACHED = "ceilingReached"
    CANCELLED = "cancelled"
    TARGET_DIED = "targetDied"
    TARGET_STOPPED = "targetStopped"
    RATE_LIMITED = "rateLimited"  # the target hit its usage limit; a later reply is still delivered
    NEEDS_ATTENTION = "needsAttention"  # the target waits for the person (a dialog nobody answered yet)


class CancelSource(StrEnum):
    REQUESTER_GONE = "requesterGone"  # the awaiting call was cancelled (MCP cancel, bridge hung up)
    USER = "user"  # CancelTicket from the work panel
    REQUESTER_STOPPED = "requesterStopped"  # the requesting agent was stopped or exited
    REQUESTER_NEW_PROMPT = "requesterNewPrompt"  # its CLI started a new user turn: the tool call was abandoned
    PROJECT_CLOSED = "projectClosed"


_END_CODES: dict[TicketEndKind, ErrorCode] = {
    TicketEndKind.NO_REPLY: ErrorCode.TARGET_RETURNED_NO_REPLY,
    TicketEndKind.TIMED_OUT: ErrorCode.RENDEZVOUS_TIMEOUT,
    TicketEndKind.CEILING_REACHED: ErrorCode.RENDEZVOUS_CEILING_ACTIVE,
    TicketEndKind.CANCELLED: ErrorCode.CANCELLED,
    TicketEndKind.TARGET_DIED: ErrorCode.TARGET_DIED,
    TicketEndKind.TARGET_STOPPED: ErrorCode.TARGET_STOPPED,
    TicketEndKind.RATE_LIMITED: ErrorCode.TARGET_RATE_LIMITED,
    TicketEndKind.NEEDS_ATTENTION: ErrorCode.TARGET_NEEDS_ATTENTION,
}


@dataclass(frozen=True)
class TicketEnd:
    kind: TicketEndKind
    result: str | None = None  # the idea_reply result
    cancel_source: CancelSource | None = None
    exit_code: int | None = None
    # RATE_LIMITED: when it resets (None: unknown), whether IdeA resumes it then, and the time as said;
    # NEEDS_ATTENTION: what the target waits for, as told to the requester; NO_REPLY: the API error that ended
    # the target's turn, when its CLI said.
    resets_at_ms: int | None = None
    auto_resume: bool = False
    note: str | None = None

    @property
    def error_code(self) -> ErrorCode | None:
        """The stable code a requester receives; None when the ticket was served."""
        return _END_CODES.get(self.kind)


def collapse_whitespace(text: str) -> str:
    return " ".join(text.split())


def preview(text: str, max_chars: int) -> str:
    """Whitespace collapsed, then cut to `max_chars` code points without an ellipsis (spec 00 §8)."""
    return collapse_whitespace(text)[:max_chars]
