"""Appending to `.ideai/conversations/<id>/log.jsonl` (spec 04 §3-§4): one JSON line per record, written
with O_APPEND in a single write, then fsync, under an in-process lock per conversation and a file lock
(`file_lock.py`: flock, or a byte-range lock on Windows), so a crash leaves at most one partial last line,
which readers skip."""

from __future__ import annotations

import asyncio
import os
import uuid
from pathlib import Path

from idea.domain.conversation_log import ConversationTurn
from idea.domain.errors import AppError, ErrorCode
from idea.domain.project import IDEAI_DIR
from idea.infrastructure.file_lock import exclusive_lock

CONVERSATIONS_DIR = "conversations"
LOG_NAME = "log.jsonl"


class JsonlConversationLog:
    def __init__(self, project_root: str) -> None:
        self._root = Path(project_root) / IDEAI_DIR / CONVERSATIONS_DIR
        self._locks: dict[str, asyncio.Lock] = {}

    def path(self, conversation: str) -> Path:
        """The log of a conversation; its id must be a UUID, so it can never name a path outside."""
        try:
            folder = str(uuid.UUID(conversation))
        except ValueError:
            raise AppError(ErrorCode.INVALID, f"conversation id {conversation!r} is not a UUID") from None
        return self._root / folder / LOG_NAME

    async def append(self, turn: ConversationTurn) -> None:
        path = self.path(turn.conversation)
        lock = self._locks.setdefault(str(path), asyncio.Lock())
        async with lock:
            await asyncio.to_thread(_append_line, path, turn.to_line().encode("utf-8"))


def _append_line(path: Path, line: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        with exclusive_lock(fd, str(path)):
            written = os.write(fd, line)
            if written != len(line):  # a regular file only writes short when the disk is full
                raise AppError(ErrorCode.STORE, f"{path}: only {written} of {len(line)} bytes were written")
            os.fsync(fd)
    except OSError as exc:
        raise AppError(ErrorCode.STORE, f"{path}: {exc.strerror or exc}") from exc
    finally:
        os.close(fd)
