"""A program in a POSIX pseudo-terminal (`ptyprocess`), as a `PtyChild` for the PTY pump (Linux, macOS)."""

from __future__ import annotations

import os
import select

from ptyprocess import PtyProcess

from idea.infrastructure.pty.child_process import spawn_in_pty
from idea.infrastructure.terminal.process_tree import terminate_terminal_program

_READ_SIZE = 64 * 1024


class PosixPtyChild:
    def __init__(self, process: PtyProcess) -> None:
        self._process = process
        self._fd = process.fd
        # A blocked read also watches this pipe, so the pump can stop reading a terminal that a leftover
        # background process keeps open.
        self._wake_read, self._wake_write = os.pipe()
        os.set_blocking(self._fd, False)

    @classmethod
    def spawn(cls, program: str, argv: list[str], cwd: str, env: dict[str, str], columns: int, lines: int) -> PosixPtyChild:
        """Start `argv` (argv[0] an absolute path); AppError(PROCESS) naming `program` when it cannot."""
        return cls(spawn_in_pty(program, argv, cwd, env, lines, columns))

    @property
    def pid(self) -> int:
        return self._process.pid

    def read(self) -> bytes | None:
        while True:
            try:
                ready, _, _ = select.select([self._fd, self._wake_read], [], [])
            except (OSError, ValueError):
                return b""
            if self._wake_read in ready:
                return None
            try:
                chunk = os.read(self._fd, _READ_SIZE)
            except BlockingIOError:
                continue
            except OSError:
                return b""  # EIO (Linux): every handle on the program's side of the terminal is closed
            return chunk

    def write(self, data: bytes) -> int:
        readable, _, _ = select.select([self._wake_read], [self._fd], [])
        if readable:
            raise OSError("the terminal was closed")
        try:
            return os.write(self._fd, data)
        except BlockingIOError:
            return 0

    def resize(self, columns: int, lines: int) -> None:
        self._process.setwinsize(lines, columns)

    def wait(self) -> int | None:
        try:
            _, status = os.waitpid(self._process.pid, 0)
        except ChildProcessError:
            return None  # something else reaped it first
        return os.waitstatus_to_exitcode(status)

    def foreground_pid(self) -> int | None:
        if self._fd < 0:
            return None
        try:
            return os.tcgetpgrp(self._fd)
        except OSError:
            return None

    def interrupt(self) -> None:
        try:
            os.write(self._wake_write, b"x")
        except OSError:
            pass

    def close(self) -> None:
        # Through ptyprocess's file object, marked closed: its finalizer would close the fd number again.
        self._process.fileobj.close()
        self._process.closed = True
        self._fd = -1  # the number may soon name another file
        os.close(self._wake_read)
        os.close(self._wake_write)

    async def end(self, grace_ms: int, *, has_exited: bool, agent_marker: str | None) -> None:
        await terminate_terminal_program(self.pid, grace_ms, has_exited=has_exited, agent_marker=agent_marker)
