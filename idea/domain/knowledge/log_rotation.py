"""When and how far a conversation's active log segment is archived (spec 04 §7), as pure decisions.

INV-LS6: rotation never archives a turn at or after the handoff's `upTo` turn; that turn and everything after
it stay in the active segment, where the incremental fold finds its cursor by position. Without a handoff
(or with an `upTo` the active segment does not hold) nothing is archived.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

ROTATE_AFTER_TURNS = 500
ROTATE_AFTER_BYTES = 1024 * 1024
MAX_ARCHIVE_SEGMENTS = 20
ACTIVE_SEGMENT = "log.jsonl"


@dataclass(frozen=True)
class RotationThresholds:
    after_turns: int = ROTATE_AFTER_TURNS
    after_bytes: int = ROTATE_AFTER_BYTES
    max_archives: int = MAX_ARCHIVE_SEGMENTS


@dataclass(frozen=True)
class Skip:
    reason: str


@dataclass(frozen=True)
class Archive:
    """Move the active segment's turns before index `keep_from` into a new archive."""

    keep_from: int


RotationDecision = Skip | Archive


def rotation_plan(
    active_turns: int, active_bytes: int, floor_turn_index: int | None, thresholds: RotationThresholds
) -> RotationDecision:
    """`floor_turn_index`: the position of the handoff's `upTo` turn among the active segment's readable
    turns, None when there is no handoff or the segment does not hold that turn."""
    if floor_turn_index is None:
        return Skip("no handoff cursor in the active segment")
    if active_turns < thresholds.after_turns and active_bytes < thresholds.after_bytes:
        return Skip("below both thresholds")
    if floor_turn_index <= 0:
        return Skip("the handoff cursor is the first turn")
    return Archive(keep_from=min(floor_turn_index, active_turns))


def archive_name(number: int) -> str:
    return f"log.{number}.jsonl"


def archive_number(file_name: str) -> int | None:
    """The number of an archive segment's file name (`log.7.jsonl` -> 7), None for any other name."""
    if not (file_name.startswith("log.") and file_name.endswith(".jsonl")):
        return None
    middle = file_name[len("log.") : -len(".jsonl")]
    if not middle.isdigit() or not middle.isascii() or middle.startswith("0"):
        return None
    return int(middle)


def next_archive_number(existing: Iterable[int]) -> int:
    """Archives are numbered in creation order; numbers are never reused, even after the backstop."""
    return max(existing, default=0) + 1


def archives_beyond_backstop(existing: Iterable[int], max_archives: int = MAX_ARCHIVE_SEGMENTS) -> list[int]:
    """The oldest (lowest-numbered) archives to delete so that at most `max_archives` remain."""
    ordered = sorted(set(existing))
    excess = len(ordered) - max_archives
    return ordered[:excess] if excess > 0 else []


@dataclass
class RotationReport:
    """What one rotation did."""

    decision: RotationDecision = field(default_factory=lambda: Skip("nothing to rotate"))
    archived_turns: int = 0
    archive: str | None = None  # the archive written
    deleted_archives: list[str] = field(default_factory=list)  # by the backstop
    set_aside: str | None = None  # where lines that are not turns went
    unreadable_lines: list[int] = field(default_factory=list)  # their 1-based line numbers
    finished_interrupted: bool = False  # a previous rotation's crash was repaired first

    def describe(self) -> str:
        parts = []
        if self.finished_interrupted:
            parts.append("finished an interrupted rotation")
        if self.archive:
            parts.append(f"archived {self.archived_turns} turns into {self.archive}")
        else:
            parts.append(f"no archive ({self.decision.reason})" if isinstance(self.decision, Skip) else "no archive")
        if self.set_aside:
            lines = ", ".join(map(str, self.unreadable_lines))
            parts.append(f"unreadable lines {lines} set aside in {self.set_aside}")
        if self.deleted_archives:
            parts.append(f"deleted the oldest archives {', '.join(self.deleted_archives)}")
        return "; ".join(parts)
