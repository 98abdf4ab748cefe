"""Paginated reading of a conversation across its archives and active segment (spec 04 §8).

A page walks lines from a position, forwards or backwards, and stops once it holds `limit + 1` turns, so its
cost does not grow with the conversation. Finding an anchor uses the position remembered when that turn was
last served (the viewer always anchors on a turn it was given); without one, a byte search for the turn's id,
newest segment first.

Turns are de-duplicated by id. A crash between writing an archive and rewriting the active segment leaves the
active segment starting with a copy of that archive: that copy is recognised (the two segments start with
the same turn) and skipped, so each turn is read once.
"""

from __future__ import annotations

import mmap
import threading
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from idea.domain.knowledge.conversation_log import ConversationTurn, TurnId
from idea.domain.knowledge.conversation_pages import Direction, PageCursor, TurnSlice, clamp_limit
from idea.infrastructure.stores.conversation_segments import (
    TURN_ID_KEY,
    Line,
    Segment,
    identity,
    line_at,
    lines_backward,
    lines_forward,
    segments,
    turn_of,
)

HINTS_KEPT = 8192


@dataclass(frozen=True)
class _Hint:
    segment: str
    identity: tuple[int, int]
    start: int


class ReadCache:
    """What reads of one project's conversations remember between pages: where served turns are, and where
    a duplicated copy ends. Pages are read on worker threads: one lock guards both tables."""

    def __init__(self, hints_kept: int = HINTS_KEPT) -> None:
        self._lock = threading.Lock()
        self._hints: OrderedDict[tuple[str, TurnId], _Hint] = OrderedDict()
        self._hints_kept = hints_kept
        self._skips: dict[tuple[tuple[int, int], tuple[int, int]], int] = {}

    def hint(self, folder: str, turn_id: TurnId) -> _Hint | None:
        with self._lock:
            return self._hints.get((folder, turn_id))

    def remember(self, folder: str, turn_id: TurnId, hint: _Hint) -> None:
        key = (folder, turn_id)
        with self._lock:
            self._hints[key] = hint
            self._hints.move_to_end(key)
            while len(self._hints) > self._hints_kept:
                self._hints.popitem(last=False)

    def skip(self, key: tuple[tuple[int, int], tuple[int, int]]) -> int | None:
        with self._lock:
            return self._skips.get(key)

    def remember_skip(self, key: tuple[tuple[int, int], tuple[int, int]], offset: int) -> None:
        with self._lock:
            if len(self._skips) > 1024:
                self._skips.clear()
            self._skips[key] = offset


@dataclass(frozen=True)
class _Found:
    turn: ConversationTurn
    segment: int
    line: Line


class FolderReader:
    """One read of one conversation folder; opens its segments lazily. Use as a context manager."""

    def __init__(self, folder: Path, cache: ReadCache) -> None:
        self._folder = folder
        self._key = str(folder)
        self._cache = cache
        self._segments: list[Segment] = segments(folder)
        self._handles: dict[int, BinaryIO] = {}

    def __enter__(self) -> FolderReader:
        return self

    def __exit__(self, *exc: object) -> None:
        for handle in self._handles.values():
            handle.close()
        self._handles.clear()

    # ------------------------------------------------------------------ pages

    def page(self, cursor: PageCursor, limit: int | None) -> TurnSlice:
        size = clamp_limit(limit)
        anchor = self._locate(cursor.anchor) if cursor.anchor is not None else None
        if cursor.direction is Direction.BACKWARD:
            start = (anchor.segment, anchor.line.start) if anchor else (len(self._segments) - 1, None)
            found = self._take(self._backward(*start), size + 1)
            found.reverse()
            has_more = len(found) > size
            shown = found[1:] if has_more else found
        else:
            start = (anchor.segment, anchor.line.end) if anchor else (0, 0)
            found = self._take(self._forward(*start), size + 1)
            has_more = len(found) > size
            shown = found[:size]
        for item in shown:
            self._remember(item)
        return TurnSlice(tuple(item.turn for item in shown), has_more)

    def last_turns(self, count: int) -> list[ConversationTurn]:
        found = self._take(self._backward(len(self._segments) - 1, None), count)
        return [item.turn for item in reversed(found)]

    def first_turns(self, count: int) -> list[ConversationTurn]:
        return [item.turn for item in self._take(self._forward(0, 0), count)]

    def all_turns(self) -> list[ConversationTurn]:
        """Every turn, de-duplicated, in order (tests and repairs; never on a hot path)."""
        seen: set[TurnId] = set()
        turns: list[ConversationTurn] = []
        for item in self._forward(0, 0):
            if item.turn.id not in seen:
                seen.add(item.turn.id)
                turns.append(item.turn)
        return turns

    @staticmethod
    def _take(found: Iterator[_Found], count: int) -> list[_Found]:
        seen: set[TurnId] = set()
        taken: list[_Found] = []
        if count <= 0:
            return taken
        for item in found:
            if item.turn.id in seen:
                continue
            seen.add(item.turn.id)
            taken.append(item)
            if len(taken) >= count:
                break
        return taken

    # ------------------------------------------------------------------ walks

    def _forward(self, segment: int, offset: int) -> Iterator[_Found]:
        for index in range(max(segment, 0), len(self._segments)):
            handle = self._handle(index)
            start = max(offset if index == segment else 0, self._skip_start(index))
            for line in lines_forward(handle, start):
                turn = turn_of(line)
                if turn is not None:
                    yield _Found(turn, index, line)

    def _backward(self, segment: int, offset: int | None) -> Iterator[_Found]:
        for index in range(segment, -1, -1):
            handle = self._handle(index)
            floor = self._skip_start(index)
            for line in lines_backward(handle, offset if index == segment else None):
                if line.start < floor:
                    break
                turn = turn_of(line)
                if turn is not None:
                    yield _Found(turn, index, line)

    # ------------------------------------------------------------------ anchors

    def _locate(self, turn_id: TurnId) -> _Found | None:
        hint = self._cache.hint(self._key, turn_id)
        if hint is not None:
            found = self._at_hint(turn_id, hint)
            if found is not None:
                return found
        for index in range(len(self._segments) - 1, -1, -1):
            line = self._search(index, turn_id)
            if line is not None:
                turn = turn_of(line)
                assert turn is not None
                return _Found(turn, index, line)
        return None

    def _at_hint(self, turn_id: TurnId, hint: _Hint) -> _Found | None:
        index = next((i for i, seg in enumerate(self._segments) if seg.name == hint.segment), None)
        if index is None or identity(self._handle(index)) != hint.identity:
            return None
        if hint.start < self._skip_start(index):
            return None
        line = line_at(self._handle(index), hint.start)
        turn = turn_of(line) if line is not None else None
        if line is None or turn is None or turn.id != turn_id:
            return None
        return _Found(turn, index, line)

    def _search(self, index: int, turn_id: TurnId) -> Line | None:
        handle = self._handle(index)
        needle = TURN_ID_KEY + turn_id.encode("ascii") + b'"'
        try:
            view = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        except ValueError:  # an empty file
            return None
        with view:
            cursor = self._skip_start(index)
            while (hit := view.find(needle, cursor)) >= 0:
                line = line_at(handle, view.rfind(b"\n", 0, hit) + 1)
                turn = turn_of(line) if line is not None else None
                if line is not None and turn is not None and turn.id == turn_id:
                    return line
                cursor = hit + len(needle)
        return None

    def _remember(self, item: _Found) -> None:
        segment = self._segments[item.segment]
        self._cache.remember(
            self._key, item.turn.id, _Hint(segment.name, identity(self._handle(item.segment)), item.line.start)
        )

    # ------------------------------------------------------------------ files

    def _handle(self, index: int) -> BinaryIO:
        handle = self._handles.get(index)
        if handle is None:
            handle = self._handles[index] = open(self._segments[index].path, "rb")  # noqa: SIM115
        return handle

    def _skip_start(self, index: int) -> int:
        """Where segment `index` stops repeating the segment before it (0 when it does not)."""
        if index == 0:
            return 0
        previous, current = self._handle(index - 1), self._handle(index)
        key = (identity(previous), identity(current))
        known = self._cache.skip(key)
        if known is not None:
            return known
        offset = 0
        first_previous = _first_turn(previous)
        first_current = _first_turn(current)
        if first_previous is not None and first_current is not None and first_previous.id == first_current.id:
            last_previous = next((t for line in lines_backward(previous) if (t := turn_of(line))), None)
            if last_previous is not None:
                line = next(
                    (line for line in lines_forward(current) if (t := turn_of(line)) and t.id == last_previous.id),
                    None,
                )
                offset = line.end if line is not None else 0
        self._cache.remember_skip(key, offset)
        return offset


def _first_turn(handle: BinaryIO) -> ConversationTurn | None:
    return next((turn for line in lines_forward(handle) if (turn := turn_of(line)) is not None), None)
