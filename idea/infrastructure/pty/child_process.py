"""The program of a `ptyprocess` terminal as a child of this process: spawned in its pseudo-terminal with the
signals Python ignores restored, and its exit noticed (pidfd where the kernel has it, else polling) and
reaped, so its exit status is the terminal's.
"""

from __future__ import annotations

import asyncio
import functools
import os
import signal
from collections.abc import Callable

from ptyprocess import PtyProcess

from idea.infrastructure.terminal.start import start_refused

_EXIT_POLL_FIRST_S = 0.01
_EXIT_POLL_MAX_S = 0.25


class ChildExitWatch:
    """Calls `on_exit(code)` once, on `loop`, when the child `pid` has ended and was reaped."""

    def __init__(self, loop: asyncio.AbstractEventLoop, pid: int, on_exit: Callable[[int | None], None]) -> None:
        self._loop = loop
        self._pid = pid
        self._on_exit = on_exit
        self._pidfd: int | None = None
        self._poller: asyncio.Task[None] | None = None  # held here: the loop keeps tasks only weakly

    def start(self) -> None:
        pidfd_open = getattr(os, "pidfd_open", None)
        try:
            self._pidfd = pidfd_open(self._pid) if pidfd_open is not None else None
        except OSError:
            self._pidfd = None  # kernel older than 5.3
        if self._pidfd is not None:
            self._loop.add_reader(self._pidfd, self._on_pidfd_readable)
        else:
            self._poller = self._loop.create_task(self._poll())

    def _on_pidfd_readable(self) -> None:
        assert self._pidfd is not None
        exited, code = try_reap(self._pid)
        if not exited:
            return
        self._loop.remove_reader(self._pidfd)
        os.close(self._pidfd)
        self._pidfd = None
        self._on_exit(code)

    async def _poll(self) -> None:
        delay = _EXIT_POLL_FIRST_S
        while True:
            exited, code = try_reap(self._pid)
            if exited:
                self._on_exit(code)
                return
            await asyncio.sleep(delay)
            delay = min(delay * 2, _EXIT_POLL_MAX_S)


def spawn_in_pty(program: str, argv: list[str], cwd: str, env: dict[str, str], lines: int, columns: int) -> PtyProcess:
    spawned: list[PtyProcess] = []

    class _RecordedPtyProcess(PtyProcess):
        # ptyprocess raises an exec failure after creating its instance; recording the instance lets the
        # PTY and the child be released here instead of in a finalizer that sleeps.
        def __init__(self, pid: int, fd: int) -> None:
            super().__init__(pid, fd)
            spawned.append(self)

    try:
        return _RecordedPtyProcess.spawn(
            argv, env=env, dimensions=(lines, columns), preexec_fn=functools.partial(_prepare_child, cwd)
        )
    except BaseException as error:
        for process in spawned:
            _discard(process)
        if isinstance(error, Exception):
            raise start_refused(program, str(error) or type(error).__name__) from error
        raise


def _prepare_child(cwd: str) -> None:
    """Runs in the child between fork and exec."""
    # Here rather than through spawn(cwd=): ptyprocess does not catch a failing chdir there, and the forked
    # child would go on running IdeA's own code.
    os.chdir(cwd)
    # Python ignores these; ignored signals survive exec, and `yes | head` would then report broken pipes.
    for signum in (signal.SIGPIPE, signal.SIGXFSZ):
        signal.signal(signum, signal.SIG_DFL)


def _discard(process: PtyProcess) -> None:
    try:
        os.kill(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    process.fileobj.close()
    process.closed = True
    try:
        os.waitpid(process.pid, 0)
    except ChildProcessError:
        pass


def try_reap(pid: int) -> tuple[bool, int | None]:
    """(exited, exit code); the code is None when something else reaped the child first."""
    try:
        reaped, status = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True, None
    if reaped == 0:
        return False, None
    return True, os.waitstatus_to_exitcode(status)
