"""Paginated reading of a conversation (spec 04 §8): the cursor, the limits, the rules of a page over turns in
chronological order, and the page a person's viewer receives (full texts, never truncated)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from idea.domain.knowledge.conversation_log import ConversationTurn, TurnId, normalised_turn_id
from idea.domain.orchestration.tickets import source_to_json

PAGE_DEFAULT_LIMIT = 50
PAGE_MIN_LIMIT = 1
PAGE_MAX_LIMIT = 200


class Direction(StrEnum):
    FORWARD = "forward"
    BACKWARD = "backward"


@dataclass(frozen=True)
class PageCursor:
    """Backward without anchor: the newest turns; with an anchor: the turns strictly before (backward) or
    strictly after (forward) it. An anchor no turn has reads like no anchor."""

    anchor: TurnId | None = None
    direction: Direction = Direction.BACKWARD


@dataclass(frozen=True)
class TurnSlice:
    """Turns in chronological order; `has_more`: more turns exist beyond the page in its direction."""

    turns: tuple[ConversationTurn, ...]
    has_more: bool


def clamp_limit(limit: int | None) -> int:
    """0 or absent: the default 50; anything else is clamped to [1, 200]."""
    if not limit:
        return PAGE_DEFAULT_LIMIT
    return max(PAGE_MIN_LIMIT, min(PAGE_MAX_LIMIT, limit))


def parse_direction(text: str | None) -> Direction:
    """"forward" in any case is forward; anything else, or nothing, is backward (the viewer opens at the end)."""
    return Direction.FORWARD if isinstance(text, str) and text.strip().lower() == "forward" else Direction.BACKWARD


def cursor_from(anchor: str | None, direction: str | None) -> PageCursor:
    """The cursor a caller's strings ask for; an anchor that is not a UUID degrades to no anchor."""
    return PageCursor(normalised_turn_id(anchor), parse_direction(direction))


def page_of(turns: Sequence[ConversationTurn], cursor: PageCursor, limit: int | None) -> TurnSlice:
    """The page of a whole chronological sequence of turns, each once: the rule the file-backed archive
    follows without reading the whole sequence (its tests compare against this)."""
    size = clamp_limit(limit)
    position = None
    if cursor.anchor is not None:
        position = next((index for index, turn in enumerate(turns) if turn.id == cursor.anchor), None)
    if cursor.direction is Direction.BACKWARD:
        end = len(turns) if position is None else position
        start = max(0, end - size)
        return TurnSlice(tuple(turns[start:end]), has_more=start > 0)
    start = 0 if position is None else position + 1
    end = min(len(turns), start + size)
    return TurnSlice(tuple(turns[start:end]), has_more=end < len(turns))


@dataclass(frozen=True)
class TurnPage:
    """What the conversation viewer receives: full texts, their length in characters, the anchor for the
    next forward request (the id of the page's last turn)."""

    turns: tuple[ConversationTurn, ...]
    has_more: bool

    @property
    def next_anchor(self) -> TurnId | None:
        return self.turns[-1].id if self.turns else None

    def to_json(self) -> dict[str, Any]:
        return {
            "turns": [turn_view_json(turn) for turn in self.turns],
            "hasMore": self.has_more,
            "nextAnchor": self.next_anchor,
        }


def turn_view_json(turn: ConversationTurn) -> dict[str, Any]:
    return {
        "id": turn.id,
        "atMs": turn.at_ms,
        "role": turn.role.value,
        "source": source_to_json(turn.source),
        "text": turn.text,
        "textLen": len(turn.text),
        "late": turn.late,
    }
