"""The command dispatch: routes a command to the handler registered for its type.

A handler is `async (requester, command, source) -> Outcome` and raises AppError for every refusal. Command
handlers come in families (`orchestrator/handlers/`), each registering its commands on the dispatch when the
project's core is composed. Adding a command is adding its handler and registering it; nothing here changes.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Protocol, TypeVar

from idea.domain.errors import AppError, ErrorCode
from idea.domain.orchestration.commands import Command, Outcome, Requester, Source

C = TypeVar("C")
Handler = Callable[[Requester, C, Source], Awaitable[Outcome]]


class CommandFamily(Protocol):
    """A group of handlers with one reason to change (the agents, the asks, the work state, …)."""

    def register(self, commands: CommandDispatch) -> None:
        """Register a handler for each command of the family."""
        ...


class CommandDispatch:
    def __init__(self) -> None:
        self._handlers: dict[type, Handler[Any]] = {}

    def register(self, command_type: type[C], handler: Handler[C]) -> None:
        """Route every command of `command_type` to `handler`; one handler per type."""
        if command_type in self._handlers:
            raise ValueError(f"{command_type.__name__} already has a handler")
        self._handlers[command_type] = handler

    def handled_types(self) -> frozenset[type]:
        return frozenset(self._handlers)

    async def dispatch(self, requester: Requester, command: Command, source: Source) -> Outcome:
        handler = self._handlers.get(type(command))
        if handler is None:
            raise AppError(ErrorCode.INVALID, f"unsupported command {type(command).__name__}")
        return await handler(requester, command, source)
