"""One record of a conversation's `log.jsonl` (spec 04 §3): compact JSON, keys in a fixed order, optional
IdeA fields omitted when absent; and reading a line back, tolerant of what a crash or a hand edit leaves."""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from idea.domain.ids import AgentId, ConversationId, TicketId, is_uuid
from idea.domain.orchestration.tickets import AgentSource, HumanSource, InputSource, source_to_json

TurnId = str


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


class UnreadableTurn(ValueError):
    """A `log.jsonl` line that is not a turn (a torn last line after a crash, a hand edit)."""


def parse_turn(line: str | bytes) -> ConversationTurn:
    """The turn a `log.jsonl` line records; UnreadableTurn says why it is not one. Unknown keys are ignored."""
    try:
        record = json.loads(line)
    except (ValueError, UnicodeDecodeError) as exc:
        raise UnreadableTurn(f"not JSON ({exc})") from None
    if not isinstance(record, dict):
        raise UnreadableTurn("not a JSON object")
    turn_id = record.get("id")
    conversation = record.get("conversation")
    at_ms = record.get("atMs")
    text = record.get("text")
    if not isinstance(turn_id, str) or not turn_id:
        raise UnreadableTurn("`id` is missing")
    if not isinstance(conversation, str) or not conversation:
        raise UnreadableTurn("`conversation` is missing")
    if not isinstance(at_ms, int) or isinstance(at_ms, bool):
        raise UnreadableTurn("`atMs` is not an integer")
    if not isinstance(text, str):
        raise UnreadableTurn("`text` is not a string")
    try:
        role = TurnRole(record.get("role"))
    except ValueError:
        raise UnreadableTurn(f"unknown role {record.get('role')!r}") from None
    ticket = record.get("ticket")
    target = record.get("target")
    return ConversationTurn(
        id=turn_id,
        conversation=conversation,
        at_ms=at_ms,
        source=source_from_json(record.get("source")),
        role=role,
        text=text,
        ticket=ticket if isinstance(ticket, str) and ticket else None,
        target=target if isinstance(target, str) and target else None,
        late=record.get("late") is True,
    )


def source_from_json(data: Any) -> InputSource:
    if not isinstance(data, dict):
        raise UnreadableTurn("`source` is not an object")
    kind = data.get("kind")
    if kind == "human":
        return HumanSource()
    agent_id = data.get("agentId")
    if kind == "agent" and isinstance(agent_id, str) and agent_id:
        return AgentSource(agent_id)
    raise UnreadableTurn(f"unknown source {json.dumps(data)[:80]}")


def normalised_turn_id(text: str | None) -> TurnId | None:
    """A pagination anchor as turn ids are written (lowercase, hyphenated); None when it is not a UUID."""
    if text is None or not is_uuid(text.strip()):
        return None
    return str(uuid.UUID(text.strip()))
