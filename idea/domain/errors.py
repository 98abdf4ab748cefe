"""Typed errors with stable codes shared by the UI, the MCP tools and the file protocol."""

from __future__ import annotations

from enum import StrEnum
from typing import Any


class ErrorCode(StrEnum):
    INVALID = "INVALID"
    INVALID_ARGUMENTS = "INVALID_ARGUMENTS"
    NOT_FOUND = "NOT_FOUND"
    STORE = "STORE"
    PROCESS = "PROCESS"
    GIT = "GIT"
    AGENT_ALREADY_RUNNING = "AGENT_ALREADY_RUNNING"
    PERMISSION_DENIED = "PERMISSION_DENIED"
    PROJECT_ALREADY_OPEN = "PROJECT_ALREADY_OPEN"
    BRIDGE_UNSUPPORTED = "BRIDGE_UNSUPPORTED"
    DELEGATION_CYCLE = "DELEGATION_CYCLE"
    NO_PENDING_REQUEST = "NO_PENDING_REQUEST"
    TICKET_CLOSED = "TICKET_CLOSED"
    TARGET_RETURNED_NO_REPLY = "TARGET_RETURNED_NO_REPLY"
    RENDEZVOUS_TIMEOUT = "RENDEZVOUS_TIMEOUT"
    RENDEZVOUS_CEILING_ACTIVE = "RENDEZVOUS_CEILING_ACTIVE"
    TARGET_DIED = "TARGET_DIED"
    TARGET_STOPPED = "TARGET_STOPPED"
    TARGET_RATE_LIMITED = "TARGET_RATE_LIMITED"
    TARGET_NEEDS_ATTENTION = "TARGET_NEEDS_ATTENTION"
    CANCELLED = "CANCELLED"
    INTERNAL = "INTERNAL"


class AppError(Exception):
    """An expected failure: a stable code, one English sentence, and whether retrying may help."""

    def __init__(
        self,
        code: ErrorCode,
        message: str,
        *,
        retryable: bool = False,
        data: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.retryable = retryable
        self.data = data or {}

    def __repr__(self) -> str:
        return f"AppError({self.code.value}, {self.message!r})"


def invalid(message: str, **data: Any) -> AppError:
    return AppError(ErrorCode.INVALID, message, data=data or None)


def not_found(message: str, **data: Any) -> AppError:
    return AppError(ErrorCode.NOT_FOUND, message, data=data or None)


class CorruptFileError(AppError):
    """A file IdeA owns could not be read; it was moved aside so nothing is overwritten or lost."""

    def __init__(self, path: str, reason: str, kept_as: str | None, *, message: str | None = None) -> None:
        where = f"; it was kept as {kept_as}" if kept_as else ""
        super().__init__(ErrorCode.STORE, message or f"{path} is unreadable ({reason}){where}")
        self.path = path
        self.reason = reason
        self.kept_as = kept_as


class PartlyReadFileError(CorruptFileError):
    """A file IdeA owns had entries it could not read: the file was moved aside as it was, and `document` is
    the rest of it (written back in its place)."""

    def __init__(self, path: str, reason: str, kept_as: str, document: Any) -> None:
        told = f"{path} had entries IdeA cannot read ({reason}); the file was kept as {kept_as}"
        super().__init__(path, reason, kept_as, message=told)
        self.document = document
