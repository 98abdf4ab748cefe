"""A terminal made of a `ptyprocess` pseudo-terminal and a `pyte` screen (spec 01 §12).

Used for headless tests, the compatibility harness and future remote hosts; it passes the same contract as
the widget backend. Everything runs on the event loop given at construction: the PTY is read with
`loop.add_reader`, writes never block, and every callback is invoked on that loop.

Exit codes follow `subprocess`: the program's exit status, or -N when signal N ended it.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections import deque
from dataclasses import dataclass

from ptyprocess import PtyProcess

from idea.domain.errors import AppError, ErrorCode
from idea.domain.ids import ProjectId, SessionId
from idea.domain.terminal import SpawnSpec
from idea.infrastructure.pty.child_process import ChildExitWatch, spawn_in_pty
from idea.infrastructure.pty.pyte_screen import (
    BACKGROUND,
    FOREGROUND,
    PALETTE,
    PrefixedCsiFilter,
    PyteScreen,
    TolerantStream,
    render_screen,
)
from idea.infrastructure.terminal.process_tree import AGENT_MARKER_VARIABLE
from idea.infrastructure.terminal.program import ProgramTerminal
from idea.infrastructure.terminal.start import executable_for
from idea.infrastructure.terminal.stream import BracketedPasteTracker, ColorQueryResponder, Utf8Decoder

_log = logging.getLogger(__name__)

# One read per loop iteration (Linux hands out at most 4 KiB anyway): pyte parses about 1 MB/s, and a
# flood of output must share the loop with everything else.
_READ_SIZE = 64 * 1024
# When the program exits while something it started still holds the terminal open, no end of output
# ever comes; its last output is given this long to arrive before the exit is reported.
_OUTPUT_GRACE_AFTER_EXIT_S = 0.2
_FINAL_DRAIN_LIMIT = 1024 * 1024


class PtyProcessTerminal(ProgramTerminal):
    """One program in a pseudo-terminal, with its screen kept by pyte (`pyte_screen.py`)."""

    def __init__(self, session_id: SessionId, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(session_id, loop)
        self._process: PtyProcess | None = None
        self._fd = -1
        self._screen: PyteScreen | None = None
        self._stream: TolerantStream | None = None
        self._decoder = Utf8Decoder()
        self._bracketed_paste = BracketedPasteTracker()
        self._color_queries = ColorQueryResponder(FOREGROUND, BACKGROUND, PALETTE)
        self._prefixed_csi = PrefixedCsiFilter()
        self._pending_input: deque[_PendingInput] = deque()
        self._waiting_to_write = False
        self._exit_watch: ChildExitWatch | None = None
        self._output_ended = False
        self._child_exited = False
        self._child_exit_code: int | None = None
        self._finish_timer: asyncio.TimerHandle | None = None

    async def start(self, spec: SpawnSpec) -> int:
        if self._process is not None:
            raise AppError(ErrorCode.PROCESS, f"terminal {self._session_id} has already started a program")
        env = dict(spec.env)
        program = spec.argv[0]
        executable = executable_for(program, spec.cwd, env.get("PATH", os.defpath))
        process = spawn_in_pty(program, [executable, *spec.argv[1:]], spec.cwd, env, spec.lines, spec.columns)

        self._process = process
        self._program.started(process.pid, env.get(AGENT_MARKER_VARIABLE))
        self._fd = process.fd
        self._screen = PyteScreen(spec.columns, spec.lines, self._send_reply)
        self._stream = TolerantStream(self._screen)
        os.set_blocking(self._fd, False)
        self._loop.add_reader(self._fd, self._on_readable)
        self._exit_watch = ChildExitWatch(self._loop, process.pid, self._on_child_exited)
        self._exit_watch.start()
        return process.pid

    async def write_text(self, text: str) -> None:
        data = text.encode("utf-8")
        if not self._is_running():
            raise AppError(ErrorCode.PROCESS, f"terminal {self._session_id} has no running program")
        if not data:
            return
        written: asyncio.Future[None] = self._loop.create_future()
        self._pending_input.append(_PendingInput(memoryview(data), written))
        self._flush_input()
        await written

    async def resize(self, columns: int, lines: int) -> None:
        if columns < 1 or lines < 1:
            raise AppError(ErrorCode.INVALID, f"a terminal cannot be {columns} columns by {lines} lines")
        if self._screen is None:
            return  # nothing started yet: the spawn size comes from the SpawnSpec
        # The screen first, so what the program redraws after SIGWINCH lands on the new size.
        self._screen.resize(lines, columns)
        if self._is_running() and self._process is not None:
            try:
                self._process.setwinsize(lines, columns)
            except OSError:
                _log.debug("terminal %s: window size not applied", self._session_id, exc_info=True)

    async def screen_text(self) -> str:
        return render_screen(self._screen) if self._screen is not None else ""

    def bracketed_paste_enabled(self) -> bool:
        return self._bracketed_paste.enabled

    def foreground_pid(self) -> int | None:
        if not self._is_running():
            return None
        try:
            return os.tcgetpgrp(self._fd)
        except OSError:
            return None

    async def terminate(self, grace_ms: int = 3000) -> None:
        """End the program and its descendants, and what the agent left behind (IDEA_AGENT_ID)."""
        await self._program.terminate(grace_ms, gone=self._child_exited)

    # Output

    def _on_readable(self) -> None:
        chunk = self._read_available()
        if chunk is None:
            return
        if not chunk:
            self._on_output_ended()
            return
        self._consume(chunk)

    def _read_available(self) -> bytes | None:
        """A chunk of output; b"" once the output has ended; None when nothing is waiting."""
        try:
            return os.read(self._fd, _READ_SIZE)
        except BlockingIOError:
            return None
        except OSError:
            return b""  # EIO (Linux): every handle on the program's side of the terminal is closed

    def _consume(self, chunk: bytes) -> None:
        assert self._screen is not None and self._stream is not None
        self._bracketed_paste.feed(chunk)
        self._send_reply(self._color_queries.feed(chunk))
        for_screen, replies = self._prefixed_csi.feed(chunk)
        self._send_reply(replies)
        self._feed_screen(for_screen)
        titles, self._screen.titles = self._screen.titles, []
        for title in titles:
            self._title_subscribers.notify(title)
        self._output_subscribers.notify(chunk)

    def _feed_screen(self, data: bytes) -> None:
        assert self._stream is not None
        text = self._decoder.decode(data)
        if not text:
            return
        try:
            self._stream.feed(text)
        except Exception:
            # TolerantStream already skips a failing sequence; this guards pyte's plain-text path, losing
            # at most the rest of this chunk rather than the session.
            _log.debug("terminal %s: pyte rejected output", self._session_id, exc_info=True)

    def _on_output_ended(self) -> None:
        self._output_ended = True
        self._loop.remove_reader(self._fd)
        if self._child_exited:
            self._finish()

    # Input

    def _send_reply(self, reply: bytes) -> None:
        """Answers to the program's queries go through the same queue as text, keeping the order."""
        if reply and self._is_running():
            self._pending_input.append(_PendingInput(memoryview(reply), None))
            self._flush_input()

    def _flush_input(self) -> None:
        while self._pending_input:
            pending = self._pending_input[0]
            try:
                count = os.write(self._fd, pending.data)
            except BlockingIOError:
                count = 0
            except OSError as error:
                self._fail_pending_input(f"terminal {self._session_id} no longer accepts input ({error})")
                return
            if count == 0:
                self._wait_until_writable()
                return
            pending.data = pending.data[count:]
            if not pending.data:
                self._pending_input.popleft()
                if pending.written is not None and not pending.written.done():
                    pending.written.set_result(None)
        if self._waiting_to_write:
            self._loop.remove_writer(self._fd)
            self._waiting_to_write = False

    def _wait_until_writable(self) -> None:
        if not self._waiting_to_write:
            self._loop.add_writer(self._fd, self._flush_input)
            self._waiting_to_write = True

    def _fail_pending_input(self, reason: str) -> None:
        while self._pending_input:
            written = self._pending_input.popleft().written
            if written is not None and not written.done():
                written.set_exception(AppError(ErrorCode.PROCESS, reason))
        if self._waiting_to_write:
            self._loop.remove_writer(self._fd)
            self._waiting_to_write = False

    # Exit

    def _on_child_exited(self, code: int | None) -> None:
        self._child_exited = True
        self._child_exit_code = code
        if self._output_ended:
            self._finish()
        else:
            self._finish_timer = self._loop.call_later(_OUTPUT_GRACE_AFTER_EXIT_S, self._finish)

    def _finish(self) -> None:
        """Read what is left, release the terminal, report the exit: once."""
        if self._program.has_exited():
            return
        if self._finish_timer is not None:
            self._finish_timer.cancel()
        if not self._output_ended:
            self._drain_output()
            self._loop.remove_reader(self._fd)
        self._feed_screen(self._prefixed_csi.flush())
        self._fail_pending_input(f"the program in terminal {self._session_id} exited before reading its input")
        assert self._process is not None
        # Closing through ptyprocess's file object, marked closed: its finalizer would close the fd number
        # again (by then maybe another file) and sleep.
        self._process.fileobj.close()
        self._process.closed = True
        self._fd = -1
        self._program.exited(self._child_exit_code)

    def _drain_output(self) -> None:
        drained = 0
        while drained < _FINAL_DRAIN_LIMIT:
            chunk = self._read_available()
            if not chunk:
                return
            drained += len(chunk)
            self._consume(chunk)

    def _is_running(self) -> bool:
        return self._process is not None and not self._program.has_exited()


class PtyProcessTerminalFactory:
    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop

    def create(self, session_id: SessionId, project_id: ProjectId) -> PtyProcessTerminal:
        return PtyProcessTerminal(session_id, self._loop)

    def release(self, session_id: SessionId) -> None:
        """Nothing is kept per session: a terminal frees its PTY itself when its program exits."""


@dataclass
class _PendingInput:
    data: memoryview
    written: asyncio.Future[None] | None  # None for replies nobody waits for
