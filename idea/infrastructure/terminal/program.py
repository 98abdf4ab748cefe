"""The program a terminal started, as the application sees it, for every terminal adapter: its pid (also
after it exited), its exit code reported once to every subscriber, and how to end it.

Exit codes follow `subprocess`: the program's exit status, or -N when signal N ended it. The exit is
recorded on the core loop; a subscriber that comes after the exit is called soon after, on that loop.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from idea.application.ports import Unsubscribe
from idea.domain.ids import SessionId
from idea.infrastructure.terminal.process_tree import terminate_terminal_program
from idea.infrastructure.terminal.subscribers import Subscribers

_log = logging.getLogger(__name__)

# Time for the exit to be reported once terminate_terminal_program has ended the program.
EXIT_REPORT_TIMEOUT_S = 2.0


class TerminalProgram:
    def __init__(self, session_id: SessionId, loop: asyncio.AbstractEventLoop) -> None:
        self._session_id = session_id
        self._loop = loop
        self._pid: int | None = None
        self._agent_marker: str | None = None
        self._exited = asyncio.Event()
        self._exit_code: int | None = None
        self._exit_subscribers: Subscribers[int | None] = Subscribers()

    def started(self, pid: int, agent_marker: str | None) -> None:
        """The program runs as `pid`; `agent_marker` is its IDEA_AGENT_ID, when an agent runs in it."""
        self._pid = pid
        self._agent_marker = agent_marker

    @property
    def pid(self) -> int | None:
        return self._pid

    def has_exited(self) -> bool:
        return self._exited.is_set()

    def exit_code(self) -> int | None:
        return self._exit_code if self._exited.is_set() else None

    def on_exit(self, callback: Callable[[int | None], None]) -> Unsubscribe:
        """Called once with the exit code; a subscriber that comes after the exit is called soon after."""
        if self._exited.is_set():
            return self._loop.call_soon_threadsafe(callback, self._exit_code).cancel
        return self._exit_subscribers.add(callback)

    def exited(self, code: int | None) -> None:
        """Core loop: the program's exit, once known; the first report counts."""
        if self._exited.is_set():
            return
        self._exit_code = code
        self._exited.set()
        self._exit_subscribers.notify(code)
        self._exit_subscribers.clear()

    async def terminate(self, grace_ms: int, *, gone: bool | None = None) -> None:
        """End the program and its descendants, and what the agent left behind (IDEA_AGENT_ID), then wait
        for the exit to be reported. `gone`: the process is known to have ended even if its exit is not
        reported yet (default: it has been reported)."""
        if self._pid is None:
            return
        gone = self._exited.is_set() if gone is None else gone
        await terminate_terminal_program(self._pid, grace_ms, has_exited=gone, agent_marker=self._agent_marker)
        await self.exit_reported()

    @property
    def agent_marker(self) -> str | None:
        return self._agent_marker

    async def exit_reported(self) -> None:
        """Wait, a bounded time, for the exit of a program being ended to be reported."""
        try:
            await asyncio.wait_for(self._exited.wait(), EXIT_REPORT_TIMEOUT_S)
        except TimeoutError:
            _log.warning("terminal %s: the exit of pid %s was not reported", self._session_id, self._pid)


class ProgramTerminal:
    """What every terminal adapter keeps alike: its session id, its program (pid and exit) and the subscribers
    of its output, exit and title, which are told on the core loop."""

    def __init__(self, session_id: SessionId, loop: asyncio.AbstractEventLoop) -> None:
        self._session_id = session_id
        self._loop = loop
        self._program = TerminalProgram(session_id, loop)
        self._output_subscribers: Subscribers[bytes] = Subscribers()
        self._title_subscribers: Subscribers[str] = Subscribers()

    @property
    def session_id(self) -> SessionId:
        return self._session_id

    def pid(self) -> int | None:
        """The pid of the program started, also after it exited."""
        return self._program.pid

    def exit_code(self) -> int | None:
        return self._program.exit_code()

    def has_exited(self) -> bool:
        return self._program.has_exited()

    def on_output(self, callback: Callable[[bytes], None]) -> Unsubscribe:
        return self._output_subscribers.add(callback)

    def on_exit(self, callback: Callable[[int | None], None]) -> Unsubscribe:
        """Called once with the exit code; a subscriber that comes after the exit is called soon after."""
        return self._program.on_exit(callback)

    def on_title(self, callback: Callable[[str], None]) -> Unsubscribe:
        return self._title_subscribers.add(callback)
