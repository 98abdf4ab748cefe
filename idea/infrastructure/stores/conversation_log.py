"""`.ideai/conversations/<id>/`: the conversation log (spec 04 §3-§8).

Appending: one JSON line per turn, written with O_APPEND in a single write, then fsync, under an in-process
lock per conversation and the conversation's lock file (`log.lock`, `file_lock.py`: flock, or a byte-range
lock on Windows). The lock is never taken on a segment: rotation replaces the active segment, which Windows
refuses while any handle holds it open, so IdeA opens the active segment only under the lock file and
closes it before letting go. A crash leaves at most one partial last line: readers skip it, the next append
starts on a fresh line so it never swallows a turn, and the next rotation sets it aside. An append never
rotates. Reading is paginated across the archives (`conversation_archive.py`); rotation is crash-safe
(`conversation_rotation.py`); reads and rotations of a conversation never have its files open at the same
time (`segment_gate.py`). File work runs on worker threads, never on the core loop: one slow fsync (a busy
or network disk) must not hold every agent's requests.
"""

from __future__ import annotations

import asyncio
import heapq
import os
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from idea.domain.errors import AppError, ErrorCode
from idea.domain.knowledge.conversation_log import ConversationTurn, TurnId
from idea.domain.knowledge.conversation_pages import PageCursor, TurnSlice
from idea.domain.knowledge.log_rotation import ACTIVE_SEGMENT, RotationReport, RotationThresholds
from idea.domain.project import IDEAI_DIR
from idea.infrastructure.file_lock import locked_file
from idea.infrastructure.stores.conversation_archive import FolderReader, ReadCache
from idea.infrastructure.stores.conversation_rotation import Fault, rotate_folder
from idea.infrastructure.stores.conversation_segments import LOCK_FILE, lines_backward, turn_of
from idea.infrastructure.stores.segment_gate import SegmentGate

CONVERSATIONS_DIR = "conversations"
LOG_NAME = ACTIVE_SEGMENT
FOLDERS_KEPT = 4096
T = TypeVar("T")


class JsonlConversationLog:
    """One project's conversation logs: the `ConversationLog` and `ConversationArchive` ports."""

    def __init__(self, project_root: str, *, fault: Fault | None = None) -> None:
        self._root = Path(project_root) / IDEAI_DIR / CONVERSATIONS_DIR
        self._locks: dict[str, asyncio.Lock] = {}
        self._gates: dict[str, SegmentGate] = {}
        self._folders: dict[str, Path] = {}  # conversation id as given -> its folder (ids are checked once)
        self._cache = ReadCache()
        self._fault = fault

    def folder(self, conversation: str) -> Path:
        """A conversation's folder; its id must be a UUID, so it can never name a path outside."""
        folder = self._folders.get(conversation)
        if folder is None:
            try:
                name = str(uuid.UUID(conversation))
            except ValueError:
                raise AppError(ErrorCode.INVALID, f"conversation id {conversation!r} is not a UUID") from None
            if len(self._folders) >= FOLDERS_KEPT:
                self._folders.clear()
            folder = self._folders[conversation] = self._root / name
        return folder

    def path(self, conversation: str) -> Path:
        """The active segment, the file a person opens as "the raw log"."""
        return self.folder(conversation) / LOG_NAME

    def lock(self, conversation: str) -> asyncio.Lock:
        """The in-process lock of a conversation: appends and rotations of it never interleave."""
        return self._locks.setdefault(self.folder(conversation).name, asyncio.Lock())

    async def append(self, turn: ConversationTurn) -> None:
        path = self.path(turn.conversation)
        line = turn.to_line().encode("utf-8")
        async with self.lock(turn.conversation):
            await asyncio.to_thread(append_line, path, line)

    def gate(self, conversation: str) -> SegmentGate:
        """What keeps this process's reads of a conversation's files apart from its rotations."""
        return self._gates.setdefault(self.folder(conversation).name, SegmentGate())

    async def page(self, conversation: str, cursor: PageCursor, limit: int | None) -> TurnSlice:
        return await self._read(conversation, lambda reader: reader.page(cursor, limit))

    async def last(self, conversation: str, count: int) -> list[ConversationTurn]:
        return await self._read(conversation, lambda reader: reader.last_turns(count))

    async def first(self, conversation: str, count: int) -> list[ConversationTurn]:
        return await self._read(conversation, lambda reader: reader.first_turns(count))

    async def recent(self, limit: int) -> list[str]:
        """The conversations whose active segment was written last, newest first."""
        return await asyncio.to_thread(_recent_conversations, self._root, limit)

    async def read_since(self, conversation: str, up_to: TurnId) -> list[ConversationTurn] | None:
        """The turns after `up_to` in the active segment (the fold's cursor), None when the active segment
        does not hold `up_to`."""
        path = self.path(conversation)
        return await self.gate(conversation).shared(lambda: _read_since(path, up_to))

    async def rotate(
        self, conversation: str, up_to: TurnId | None, thresholds: RotationThresholds
    ) -> RotationReport:
        """Archive the active segment's turns before `up_to` when a threshold is passed (never on append)."""
        folder = self.folder(conversation)
        fault = self._fault or _no_fault
        async with self.lock(conversation):
            return await self.gate(conversation).alone(lambda: rotate_folder(folder, up_to, thresholds, fault))

    async def _read(self, conversation: str, read: Callable[[FolderReader], T]) -> T:
        folder = self.folder(conversation)

        def work() -> T:
            with FolderReader(folder, self._cache) as reader:
                return read(reader)

        try:
            return await self.gate(conversation).shared(work)
        except OSError as exc:
            raise AppError(ErrorCode.STORE, f"{folder}: {exc.strerror or exc}") from exc


def append_line(path: Path, line: bytes) -> None:
    """Append one whole line, fsynced, to the active segment `path`; after a torn last line it starts on a
    line of its own."""
    try:
        with locked_file(path.with_name(LOCK_FILE)):  # rotations replace `path` only under it
            fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT | getattr(os, "O_BINARY", 0), 0o600)
            try:
                _append_open(fd, path, line)
            finally:
                os.close(fd)
    except OSError as exc:
        raise AppError(ErrorCode.STORE, f"{path}: {exc.strerror or exc}") from exc


def _append_open(fd: int, path: Path, line: bytes) -> None:
    size = os.fstat(fd).st_size
    data = line
    if size > 0:
        os.lseek(fd, size - 1, os.SEEK_SET)  # no os.pread on Windows; O_APPEND still writes at the end
        if os.read(fd, 1) != b"\n":
            data = b"\n" + line
    written = os.write(fd, data)
    if written != len(data):  # a regular file only writes short when the disk is full
        raise AppError(ErrorCode.STORE, f"{path}: only {written} of {len(data)} bytes were written")
    os.fsync(fd)


def _read_since(path: Path, up_to: TurnId) -> list[ConversationTurn] | None:
    """Read backwards from the end: the cursor is normally the last turn or close to it."""
    try:
        handle = open(path, "rb")  # noqa: SIM115
    except FileNotFoundError:
        return None
    with handle:
        after: list[ConversationTurn] = []
        for line in lines_backward(handle):
            turn = turn_of(line)
            if turn is None:
                continue
            if turn.id == up_to:
                after.reverse()
                return after
            after.append(turn)
        return None


def _recent_conversations(root: Path, limit: int) -> list[str]:
    found: list[tuple[int, str]] = []
    try:
        entries = list(os.scandir(root))
    except FileNotFoundError:
        return []
    for entry in entries:
        try:
            if str(uuid.UUID(entry.name)) != entry.name or not entry.is_dir(follow_symlinks=False):
                continue
            found.append((os.stat(Path(entry.path) / LOG_NAME).st_mtime_ns, entry.name))
        except (ValueError, OSError):  # not a conversation folder, or no log in it (yet)
            continue
    return [name for _, name in heapq.nlargest(limit, found)]


def _no_fault(step: str) -> None:
    return None
