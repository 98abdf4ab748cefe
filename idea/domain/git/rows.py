"""A diff flattened into display rows, for a viewer that draws only the rows on screen.

Rows are small tuples of indexes into the diff (file, hunk, line), so a 10,000-line diff costs one row per
line and no text is copied. Side by side pairs each run of removed lines with the run of added lines that
follows it; context lines sit on both sides.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum
from typing import NamedTuple

from idea.domain.git.diff import Diff, DiffLine, FileDiff, Hunk, LineKind, human_size


class RowKind(Enum):
    FILE = "file"  # the file's header: path, change, stats
    NOTE = "note"  # a file without text lines: binary, mode change, empty
    HUNK = "hunk"  # a hunk's `@@` header
    LINE = "line"  # a line (unified) or a pair of lines (side by side)


class Row(NamedTuple):
    """One display row (a named tuple: one per diff line, built in bulk)."""

    kind: RowKind
    file: int
    hunk: int = -1
    left: int = -1  # unified: the line index in the hunk; side by side: the old side's line (-1: none)
    right: int = -1  # side by side only: the new side's line (-1: none)


def unified_rows(diff: Diff) -> list[Row]:
    return _rows(diff, lambda rows, f, h, hunk: rows.extend(Row(RowKind.LINE, f, h, i) for i in range(len(hunk.lines))))


def side_by_side_rows(diff: Diff) -> list[Row]:
    return _rows(diff, _side_by_side_lines)


def _rows(diff: Diff, lines: Callable[[list[Row], int, int, Hunk], None]) -> list[Row]:
    """Each file's header (and a note when it has no text lines), each hunk's header, then its lines."""
    rows: list[Row] = []
    for f, file in enumerate(diff.files):
        rows.append(Row(RowKind.FILE, f))
        if not file.hunks:
            rows.append(Row(RowKind.NOTE, f))
        for h, hunk in enumerate(file.hunks):
            rows.append(Row(RowKind.HUNK, f, h))
            lines(rows, f, h, hunk)
    return rows


def _side_by_side_lines(rows: list[Row], f: int, h: int, hunk: Hunk) -> None:
    removed: list[int] = []
    added: list[int] = []
    for i, line in enumerate(hunk.lines):
        if line.kind is LineKind.REMOVED:
            if added:
                _pair(rows, f, h, removed, added)
            removed.append(i)
        elif line.kind is LineKind.ADDED:
            added.append(i)
        else:
            _pair(rows, f, h, removed, added)
            rows.append(Row(RowKind.LINE, f, h, i, i))
    _pair(rows, f, h, removed, added)


def _pair(rows: list[Row], f: int, h: int, removed: list[int], added: list[int]) -> None:
    """Removed lines face the added lines that replace them, one for one; the longer run faces blanks."""
    for k in range(max(len(removed), len(added))):
        left = removed[k] if k < len(removed) else -1
        right = added[k] if k < len(added) else -1
        rows.append(Row(RowKind.LINE, f, h, left, right))
    removed.clear()
    added.clear()


def anchor_rows(diff: Diff, rows: list[Row]) -> dict[tuple[str, str, int], int]:
    """(path, "old"|"new", line number) → the row drawing that line: where a review comment anchored there
    is shown. A context line answers for both sides."""
    where: dict[tuple[str, str, int], int] = {}
    for index, row in enumerate(rows):
        if row.kind is not RowKind.LINE:
            continue
        file = diff.files[row.file]
        lines = file.hunks[row.hunk].lines
        for i in {row.left, row.right}:
            if i < 0:
                continue
            line = lines[i]
            if line.old is not None and line.kind is not LineKind.ADDED:
                where.setdefault((file.path, "old", line.old), index)
            if line.new is not None and line.kind is not LineKind.REMOVED:
                where.setdefault((file.path, "new", line.new), index)
    return where


def line_of(diff: Diff, row: Row, side: str | None) -> tuple[str, int, DiffLine]:
    """The line a LINE row draws on `side` ("old"/"new"; the other side when that one is blank; None in the
    unified layout), with the side and number a comment on it is anchored to."""
    lines = diff.files[row.file].hunks[row.hunk].lines
    pick = row.left
    if row.right >= 0 and side is not None:
        pick = row.left if side == "old" else row.right
        if pick < 0:
            pick = row.right if side == "old" else row.left
    line = lines[pick]
    chosen = "old" if line.kind is LineKind.REMOVED or (side == "old" and line.old is not None) else "new"
    number = line.old if chosen == "old" else line.new
    assert number is not None
    return chosen, number, line


def file_row_index(rows: list[Row], file_index: int) -> int:
    """The row of a file's header (0 when the file is unknown)."""
    for number, row in enumerate(rows):
        if row.kind is RowKind.FILE and row.file == file_index:
            return number
    return 0


def note_for(file: FileDiff) -> str:
    """What a file without text lines shows instead."""
    if file.binary:
        sizes = f"{human_size(file.old_size)} → {human_size(file.new_size)}"
        return f"Binary file, not shown ({sizes})."
    if file.elided:
        return f"{file.changed_lines:,} changed lines: too many to show here."
    if file.old_path and file.new_path and file.old_path != file.new_path:
        return "Renamed without changes."
    return "No line changed (mode or type change only)."
