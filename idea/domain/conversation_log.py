"""One record of a conversation's `log.jsonl` (spec 04 §3): compact JSON, keys in a fixed order, optional
IdeA fields omitted when absent."""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from idea.domain.ids import AgentId, ConversationId, TicketId
from idea.domain.tickets import InputSource, source_to_json


class TurnRole(StrEnum):
    PROMPT = "prompt"
    RESPONSE = "response"
    TOOL_ACTIVITY = "toolActivity"


@dataclass(frozen=True)
class ConversationTurn:
    id: str
    conversation: ConversationId
    at_ms: int
    source: InputSource
    role: TurnRole
    text: str  # full text, never truncated
    ticket: TicketId | None = None
    target: AgentId | None = None  # on prompts: the agent asked
    late: bool = False  # a reply that arrived after its requester stopped waiting

    def to_json(self) -> dict[str, Any]:
        record: dict[str, Any] = {
            "id": self.id,
            "conversation": self.conversation,
            "atMs": self.at_ms,
            "source": source_to_json(self.source),
            "role": self.role.value,
            "text": self.text,
        }
        if self.ticket is not None:
            record["ticket"] = self.ticket
        if self.target is not None:
            record["target"] = self.target
        if self.late:
            record["late"] = True
        return record

    def to_line(self) -> str:
        """The record as one `log.jsonl` line, newline included."""
        return json.dumps(self.to_json(), ensure_ascii=False, separators=(",", ":")) + "\n"
