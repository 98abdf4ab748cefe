"""`FileGuard` (spec 03 §5.15): per-resource leases, shared to read, exclusive to write. A second writer
waits up to 10 s, then gets STORE "resource busy". It only serialises; it never authorises."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

from idea.domain.errors import AppError, ErrorCode

LEASE_TIMEOUT_S = 10.0
CONTEXT = "context"
MEMORY = "memory"


def persona(agent_id: str) -> str:
    return f"persona:{agent_id}"


@dataclass
class _State:
    readers: int = 0
    writing: bool = False
    changed: asyncio.Condition = field(default_factory=asyncio.Condition)


class FileGuard:
    def __init__(self, timeout_s: float = LEASE_TIMEOUT_S) -> None:
        self._timeout_s = timeout_s
        self._states: dict[str, _State] = {}

    @asynccontextmanager
    async def read(self, resource: str) -> AsyncIterator[None]:
        state = self._states.setdefault(resource, _State())
        async with state.changed:
            await self._wait(state, lambda: not state.writing, resource)
            state.readers += 1
        try:
            yield
        finally:
            async with state.changed:
                state.readers -= 1
                state.changed.notify_all()

    @asynccontextmanager
    async def write(self, resource: str) -> AsyncIterator[None]:
        state = self._states.setdefault(resource, _State())
        async with state.changed:
            await self._wait(state, lambda: not state.writing and state.readers == 0, resource)
            state.writing = True
        try:
            yield
        finally:
            async with state.changed:
                state.writing = False
                state.changed.notify_all()

    async def _wait(self, state: _State, ready: object, resource: str) -> None:
        try:
            await asyncio.wait_for(state.changed.wait_for(ready), self._timeout_s)  # type: ignore[arg-type]
        except TimeoutError:
            raise AppError(
                ErrorCode.STORE, f"resource busy: {resource} is being written; try again", retryable=True
            ) from None
