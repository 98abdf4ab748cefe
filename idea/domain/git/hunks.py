"""Staging and unstaging one hunk: the new content of a file in the index, computed from the hunk's exact
bytes. The hunk must still fit the content it was computed from; otherwise nothing is applied."""

from __future__ import annotations

from dataclasses import dataclass

from idea.domain.errors import invalid


@dataclass(frozen=True, slots=True)
class RawLine:
    origin: str  # " ", "+" or "-"
    data: bytes  # the line with its line ending (none for a last line without one)


@dataclass(frozen=True)
class RawHunk:
    old_start: int
    old_lines: int
    new_start: int
    new_lines: int
    lines: tuple[RawLine, ...]


def apply_hunk(base: bytes, hunk: RawHunk, *, reverse: bool = False) -> bytes:
    """`base` with the hunk applied: forward turns the hunk's old side into its new side (staging a hunk of
    index → working tree onto the index); reverse turns the new side back into the old side (unstaging a
    hunk of HEAD → index from the index). Raises INVALID when `base` no longer holds what the hunk expects."""
    remove, add = ("+", "-") if reverse else ("-", "+")
    start, count = (hunk.new_start, hunk.new_lines) if reverse else (hunk.old_start, hunk.old_lines)
    lines = base.splitlines(keepends=True)
    first = start if count == 0 else start - 1
    expected = [line.data for line in hunk.lines if line.origin in (" ", remove)]
    if first < 0 or lines[first : first + len(expected)] != expected:
        raise invalid("The file changed since this diff was computed; refresh and try again.")
    replacement = [line.data for line in hunk.lines if line.origin in (" ", add)]
    return b"".join([*lines[:first], *replacement, *lines[first + len(expected) :]])
