"""The segment files of one conversation folder: `log.1.jsonl`, `log.2.jsonl`, … (archives, oldest first) and
`log.jsonl` (the active segment), read line by line forwards or backwards from any byte offset, so a page
costs what the page holds and never what the conversation holds."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from idea.domain.knowledge.conversation_log import ConversationTurn, UnreadableTurn, parse_turn
from idea.domain.knowledge.log_rotation import ACTIVE_SEGMENT, archive_number

BLOCK_BYTES = 64 * 1024
TURN_ID_KEY = b'"id":"'
LOCK_FILE = "log.lock"  # what appends and rotations lock, beside the segments (never one of them: they are replaced)


@dataclass(frozen=True)
class Segment:
    path: Path
    number: int | None  # None: the active segment

    @property
    def name(self) -> str:
        return self.path.name


def segments(folder: Path) -> list[Segment]:
    """The archives in ascending number, then the active segment when it exists."""
    try:
        names = os.listdir(folder)
    except (FileNotFoundError, NotADirectoryError):
        return []
    archives = sorted(
        (number, name) for name in names if (number := archive_number(name)) is not None
    )
    found = [Segment(folder / name, number) for number, name in archives]
    if ACTIVE_SEGMENT in names:
        found.append(Segment(folder / ACTIVE_SEGMENT, None))
    return found


@dataclass(frozen=True)
class Line:
    start: int  # byte offset of the line's first byte
    end: int  # byte offset just after its newline (or the end of the file)
    raw: bytes  # without the newline


def identity(handle: BinaryIO) -> tuple[int, int]:
    """What tells an opened segment from the file a rotation put in its place: device and inode."""
    status = os.fstat(handle.fileno())
    return status.st_dev, status.st_ino


def size_of(handle: BinaryIO) -> int:
    return handle.seek(0, os.SEEK_END)


def lines_forward(handle: BinaryIO, start: int = 0, block: int = BLOCK_BYTES) -> Iterator[Line]:
    """Every non-empty line starting at or after `start` (which must be a line start), in file order."""
    handle.seek(start)
    pending = b""
    pending_start = start
    while True:
        chunk = handle.read(block)
        if not chunk:
            break
        data = pending + chunk
        cut = 0
        while (newline := data.find(b"\n", cut)) >= 0:
            if newline > cut:
                yield Line(pending_start + cut, pending_start + newline + 1, data[cut:newline])
            cut = newline + 1
        pending = data[cut:]
        pending_start += cut
    if pending:
        yield Line(pending_start, pending_start + len(pending), pending)


def lines_backward(handle: BinaryIO, end: int | None = None, block: int = BLOCK_BYTES) -> Iterator[Line]:
    """Every non-empty line ending at or before `end` (a line boundary; default: the end of the file),
    newest first."""
    base = size_of(handle) if end is None else end
    data = b""  # the bytes from `base` up to what is not yielded yet
    while True:
        cut = len(data)
        while cut > 0:
            body_end = cut - 1 if data[cut - 1 : cut] == b"\n" else cut
            newline = data.rfind(b"\n", 0, body_end)
            if newline < 0 and base > 0:
                break  # this line starts in bytes not read yet
            line_start = newline + 1
            if body_end > line_start:
                yield Line(base + line_start, base + cut, data[line_start:body_end])
            cut = line_start
        data = data[:cut]
        if base == 0:
            return
        read_from = max(0, base - block)
        handle.seek(read_from)
        data = handle.read(base - read_from) + data
        base = read_from


def line_at(handle: BinaryIO, start: int) -> Line | None:
    """The line starting exactly at byte `start`, None past the end."""
    handle.seek(start)
    data = b""
    while True:
        chunk = handle.read(BLOCK_BYTES)
        if not chunk:
            break
        newline = chunk.find(b"\n")
        if newline >= 0:
            data += chunk[:newline]
            return Line(start, start + len(data) + 1, data)
        data += chunk
    return Line(start, start + len(data), data) if data else None


def turn_of(line: Line) -> ConversationTurn | None:
    try:
        return parse_turn(line.raw)
    except UnreadableTurn:
        return None
