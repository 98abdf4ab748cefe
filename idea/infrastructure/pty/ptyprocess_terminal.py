"""A terminal made of a `ptyprocess` pseudo-terminal and a `pyte` screen (spec 01 §12).

Used for headless tests, the compatibility harness and future remote hosts; it passes the same contract as
the widget backend. Everything runs on the event loop given at construction: the PTY is read with
`loop.add_reader`, writes never block, and every callback is invoked on that loop.

Exit codes follow `subprocess`: the program's exit status, or -N when signal N ended it.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import re
import signal
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

import pyte
from ptyprocess import PtyProcess
from wcwidth import wcwidth

from idea.application.ports import Unsubscribe
from idea.domain.errors import AppError, ErrorCode
from idea.domain.ids import ProjectId, SessionId
from idea.domain.terminal import SpawnSpec
from idea.infrastructure.process_tree import AGENT_MARKER_VARIABLE, terminate_terminal_program
from idea.infrastructure.terminal_start import executable_for, start_refused
from idea.infrastructure.terminal_stream import BracketedPasteTracker, ColorQueryResponder, Utf8Decoder
from idea.infrastructure.terminal_subscribers import Subscribers

_log = logging.getLogger(__name__)

# One read per loop iteration (Linux hands out at most 4 KiB anyway): pyte parses about 1 MB/s, and a
# flood of output must share the loop with everything else.
_READ_SIZE = 64 * 1024
# When the program exits while something it started still holds the terminal open, no end of output
# ever comes; its last output is given this long to arrive before the exit is reported.
_OUTPUT_GRACE_AFTER_EXIT_S = 0.2
_FINAL_DRAIN_LIMIT = 1024 * 1024
_EXIT_POLL_FIRST_S = 0.01
_EXIT_POLL_MAX_S = 0.25
# Time for the exit to be reported once terminate_terminal_program has ended the process.
_EXIT_REPORT_TIMEOUT_S = 2.0

# Device identity, the same as the widget backend answers: VT100 with advanced video option, and the
# secondary attributes of the Konsole emulation inside QTermWidget.
_PRIMARY_DEVICE_ATTRIBUTES = "\x1b[?1;2c"
_SECONDARY_DEVICE_ATTRIBUTES = b"\x1b[>0;115;0c"

# A dark scheme: the Linux console colours.
_FOREGROUND = (0xB2, 0xB2, 0xB2)
_BACKGROUND = (0x00, 0x00, 0x00)
_PALETTE = [
    (0x00, 0x00, 0x00), (0xB2, 0x18, 0x18), (0x18, 0xB2, 0x18), (0xB2, 0x68, 0x18),
    (0x18, 0x18, 0xB2), (0xB2, 0x18, 0xB2), (0x18, 0xB2, 0xB2), (0xB2, 0xB2, 0xB2),
    (0x68, 0x68, 0x68), (0xFF, 0x54, 0x54), (0x54, 0xFF, 0x54), (0xFF, 0xFF, 0x54),
    (0x54, 0x54, 0xFF), (0xFF, 0x54, 0xFF), (0x54, 0xFF, 0xFF), (0xFF, 0xFF, 0xFF),
]  # fmt: skip


class PtyProcessTerminal:
    """One program in a pseudo-terminal, with its screen kept by pyte.

    pyte has no alternate screen: a full-screen program draws over the main screen, and leaving it does not
    restore what was there. Keyboard-protocol sequences (kitty, modifyOtherKeys) are accepted and ignored.
    """

    def __init__(self, session_id: SessionId, loop: asyncio.AbstractEventLoop) -> None:
        self._session_id = session_id
        self._loop = loop
        self._process: PtyProcess | None = None
        self._pid: int | None = None
        self._fd = -1
        self._agent_marker: str | None = None
        self._screen: _Screen | None = None
        self._stream: _TolerantStream | None = None
        self._decoder = Utf8Decoder()
        self._bracketed_paste = BracketedPasteTracker()
        self._color_queries = ColorQueryResponder(_FOREGROUND, _BACKGROUND, _PALETTE)
        self._prefixed_csi = _PrefixedCsiFilter()
        self._pending_input: deque[_PendingInput] = deque()
        self._waiting_to_write = False
        self._pidfd: int | None = None
        self._exit_poller: asyncio.Task[None] | None = None  # held here: the loop keeps tasks only weakly
        self._output_ended = False
        self._child_exited = False
        self._child_exit_code: int | None = None
        self._finish_timer: asyncio.TimerHandle | None = None
        self._exited = asyncio.Event()
        self._output_subscribers: Subscribers[bytes] = Subscribers()
        self._exit_subscribers: Subscribers[int | None] = Subscribers()
        self._title_subscribers: Subscribers[str] = Subscribers()

    @property
    def session_id(self) -> SessionId:
        return self._session_id

    async def start(self, spec: SpawnSpec) -> int:
        if self._process is not None:
            raise AppError(ErrorCode.PROCESS, f"terminal {self._session_id} has already started a program")
        env = dict(spec.env)
        program = spec.argv[0]
        executable = executable_for(program, spec.cwd, env.get("PATH", os.defpath))
        process = _spawn(program, [executable, *spec.argv[1:]], spec.cwd, env, spec.lines, spec.columns)

        self._process = process
        self._pid = process.pid
        self._fd = process.fd
        self._agent_marker = env.get(AGENT_MARKER_VARIABLE)
        self._screen = _Screen(spec.columns, spec.lines, self._send_reply)
        self._stream = _TolerantStream(self._screen)
        os.set_blocking(self._fd, False)
        self._loop.add_reader(self._fd, self._on_readable)
        self._watch_child_exit(process.pid)
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
        return _render(self._screen) if self._screen is not None else ""

    def bracketed_paste_enabled(self) -> bool:
        return self._bracketed_paste.enabled

    def pid(self) -> int | None:
        """The pid of the program started, also after it exited."""
        return self._pid

    def foreground_pid(self) -> int | None:
        if not self._is_running():
            return None
        try:
            return os.tcgetpgrp(self._fd)
        except OSError:
            return None

    def exit_code(self) -> int | None:
        return self._child_exit_code if self._exited.is_set() else None

    def has_exited(self) -> bool:
        return self._exited.is_set()

    async def terminate(self, grace_ms: int = 3000) -> None:
        """End the program and its descendants, and what the agent left behind (IDEA_AGENT_ID)."""
        if self._pid is None:
            return
        await terminate_terminal_program(
            self._pid, grace_ms, has_exited=self._child_exited, agent_marker=self._agent_marker
        )
        try:
            await asyncio.wait_for(self._exited.wait(), _EXIT_REPORT_TIMEOUT_S)
        except TimeoutError:
            _log.warning("terminal %s: pid %s did not exit after SIGKILL", self._session_id, self._pid)

    def on_output(self, callback: Callable[[bytes], None]) -> Unsubscribe:
        return self._output_subscribers.add(callback)

    def on_exit(self, callback: Callable[[int | None], None]) -> Unsubscribe:
        """Called once with the exit code; a subscriber that comes after the exit is called soon after."""
        if self._exited.is_set():
            return self._loop.call_soon(callback, self.exit_code()).cancel
        return self._exit_subscribers.add(callback)

    def on_title(self, callback: Callable[[str], None]) -> Unsubscribe:
        return self._title_subscribers.add(callback)

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
            # _TolerantStream already skips a failing sequence; this guards pyte's plain-text path, losing
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

    def _watch_child_exit(self, pid: int) -> None:
        pidfd_open = getattr(os, "pidfd_open", None)
        try:
            self._pidfd = pidfd_open(pid) if pidfd_open is not None else None
        except OSError:
            self._pidfd = None  # kernel older than 5.3
        if self._pidfd is not None:
            self._loop.add_reader(self._pidfd, self._on_pidfd_readable)
        else:
            self._exit_poller = self._loop.create_task(self._poll_child_exit(pid))

    def _on_pidfd_readable(self) -> None:
        assert self._pid is not None and self._pidfd is not None
        exited, code = _try_reap(self._pid)
        if not exited:
            return
        self._loop.remove_reader(self._pidfd)
        os.close(self._pidfd)
        self._pidfd = None
        self._on_child_exited(code)

    async def _poll_child_exit(self, pid: int) -> None:
        delay = _EXIT_POLL_FIRST_S
        while True:
            exited, code = _try_reap(pid)
            if exited:
                self._on_child_exited(code)
                return
            await asyncio.sleep(delay)
            delay = min(delay * 2, _EXIT_POLL_MAX_S)

    def _on_child_exited(self, code: int | None) -> None:
        self._child_exited = True
        self._child_exit_code = code
        if self._output_ended:
            self._finish()
        else:
            self._finish_timer = self._loop.call_later(_OUTPUT_GRACE_AFTER_EXIT_S, self._finish)

    def _finish(self) -> None:
        """Read what is left, release the terminal, report the exit: once."""
        if self._exited.is_set():
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
        self._exited.set()
        self._exit_subscribers.notify(self._child_exit_code)
        self._exit_subscribers.clear()

    def _drain_output(self) -> None:
        drained = 0
        while drained < _FINAL_DRAIN_LIMIT:
            chunk = self._read_available()
            if not chunk:
                return
            drained += len(chunk)
            self._consume(chunk)

    def _is_running(self) -> bool:
        return self._process is not None and not self._exited.is_set()


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


class _Screen(pyte.Screen):
    """A pyte screen that answers device reports and collects title changes for the terminal."""

    def __init__(self, columns: int, lines: int, send_reply: Callable[[bytes], None]) -> None:
        self._send_reply = send_reply
        self.titles: list[str] = []
        super().__init__(columns, lines)

    def write_process_input(self, data: str) -> None:
        self._send_reply(data.encode("utf-8"))

    def report_device_attributes(self, mode: int = 0, **kwargs: bool) -> None:
        if mode == 0 and not kwargs.get("private"):
            self.write_process_input(_PRIMARY_DEVICE_ATTRIBUTES)

    def set_title(self, param: str) -> None:
        # pyte reads one digit of the OSC number: OSC 21 and 22 (not titles) arrive here as ";…".
        if param.startswith(";"):
            return
        super().set_title(param)
        self.titles.append(param)


class _TolerantStream(pyte.Stream):
    """A pyte stream that drops a sequence pyte fails on instead of the rest of the output chunk.

    pyte raises on some sequences modern CLIs send (`CSI ? 4 m` reaches select_graphic_rendition with an
    argument it does not take). It resets its parser before raising, after the whole sequence was read, so
    going on in the plain-text state skips exactly that sequence. Text is decoded by the terminal's own
    UTF-8 decoder rather than pyte.ByteStream, which switches to Latin-1 on `ESC % @`.
    """

    def _send_to_parser(self, data: str) -> bool | None:
        try:
            return super()._send_to_parser(data)
        except Exception:
            _log.debug("pyte rejected a control sequence", exc_info=True)
            return True


class _PrefixedCsiFilter:
    """Takes CSI sequences with a `<`, `=` or `>` prefix out of the output before pyte sees it.

    pyte ignores the prefix and runs the rest as the unprefixed sequence: `CSI > 4;2 m` (modifyOtherKeys)
    would switch on underline, `CSI < u` (kitty keyboard pop) would print "u", `CSI > c` (secondary device
    attributes) would get the primary answer. Secondary DA is answered here; the others set keyboard
    protocols that a screen does not model.
    """

    _SEQUENCE = re.compile(rb"\x1b\[[<=>][0-?]*[ -/]*[@-~]")
    _UNFINISHED_TAIL = re.compile(rb"\x1b(?:\[(?:[<=>][0-?]*[ -/]*)?)?\Z")
    _SECONDARY_DA_QUERIES = (b"\x1b[>c", b"\x1b[>0c")
    _MAX_CARRY = 64

    def __init__(self) -> None:
        self._carry = b""

    def feed(self, data: bytes) -> tuple[bytes, bytes]:
        """(the output for the screen, the replies for the program)."""
        buffer = self._carry + data
        self._carry = b""
        tail = self._UNFINISHED_TAIL.search(buffer)
        if tail is not None and len(buffer) - tail.start() <= self._MAX_CARRY:
            self._carry = buffer[tail.start() :]
            buffer = buffer[: tail.start()]
        replies: list[bytes] = []

        def remove(match: re.Match[bytes]) -> bytes:
            if match.group() in self._SECONDARY_DA_QUERIES:
                replies.append(_SECONDARY_DEVICE_ATTRIBUTES)
            return b""

        return self._SEQUENCE.sub(remove, buffer), b"".join(replies)

    def flush(self) -> bytes:
        """The held-back start of a sequence, once no more output will come."""
        carry, self._carry = self._carry, b""
        return carry


def _render(screen: pyte.Screen) -> str:
    """The visible lines, trailing spaces trimmed.

    Not pyte's Screen.display, which raises IndexError once a narrow character overwrote the left half of
    a wide one; such an orphaned right half shows as a space, as in xterm.
    """
    lines = []
    for y in range(screen.lines):
        row = screen.buffer[y]
        cells = []
        after_wide = False
        for x in range(screen.columns):
            data = row[x].data
            if not data:  # the right half of a wide character
                if not after_wide:
                    cells.append(" ")
                after_wide = False
                continue
            cells.append(data)
            after_wide = wcwidth(data[0]) == 2
        lines.append("".join(cells).rstrip(" "))
    return "\n".join(lines)


def _spawn(program: str, argv: list[str], cwd: str, env: dict[str, str], lines: int, columns: int) -> PtyProcess:
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


def _try_reap(pid: int) -> tuple[bool, int | None]:
    """(exited, exit code); the code is None when something else reaped the child first."""
    try:
        reaped, status = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True, None
    if reaped == 0:
        return False, None
    return True, os.waitstatus_to_exitcode(status)
