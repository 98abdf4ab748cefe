"""Identifier aliases and the pure functions that derive one id from others."""

from __future__ import annotations

import uuid

ProjectId = str
AgentId = str
SessionId = str
NodeId = str
LayoutId = str
TicketId = str
ConversationId = str


def is_uuid(text: str) -> bool:
    """Whether `text` reads as a UUID (hyphenated or not, any case)."""
    try:
        uuid.UUID(text)
    except ValueError:
        return False
    return True


def simple_hex(any_uuid: str) -> str:
    """The 32-hex form used by MCP endpoints and handshakes; accepts hyphenated or simple input."""
    return uuid.UUID(any_uuid).hex


def conversation_for_pair(a: AgentId, b: AgentId | None) -> ConversationId:
    """User<->agent conversation is the agent's id; agent<->agent is the XOR of both ids (commutative)."""
    if b is None:
        return str(uuid.UUID(a))
    return str(uuid.UUID(int=uuid.UUID(a).int ^ uuid.UUID(b).int))
