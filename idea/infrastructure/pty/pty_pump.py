"""A program in a pseudo-terminal that IdeA owns, read and written by threads of its own.

Used by the terminal cells that draw the screen themselves (the native view): the view only parses and paints,
the PTY lives here. `PtyChild` is the operating system's side (a POSIX PTY through `ptyprocess`, ConPTY
through `pywinpty`), with plain blocking calls; `PtyPump` runs them on three daemon threads so nobody else
ever blocks:

- the reader hands every chunk of output to `on_output`, in order;
- the waiter waits for the program's exit, gives its last output a moment to arrive, then calls `on_exit`
  once, after the last `on_output`;
- the writer writes queued input in order (text and the terminal's answers share the queue) and completes
  each write's future.

Callbacks run on the pump's threads: the caller marshals them where it needs them.
"""

from __future__ import annotations

import concurrent.futures
import logging
import queue
import threading
from collections.abc import Callable
from typing import Protocol

from idea.domain.errors import AppError, ErrorCode

_log = logging.getLogger(__name__)

# When the program exits while something it started still holds the terminal open, no end of output ever
# comes; its last output gets this long to arrive before the exit is reported.
OUTPUT_GRACE_AFTER_EXIT_S = 0.2
_JOIN_TIMEOUT_S = 2.0


class PtyChild(Protocol):
    """One program in a pseudo-terminal. Every call may block; `read` and `write` run on their own threads."""

    @property
    def pid(self) -> int: ...

    def read(self) -> bytes | None:
        """The next output; b"" once the output has ended; None once `interrupt` was called."""
        ...

    def write(self, data: bytes) -> int:
        """Write some of `data` (blocking while the program does not read); how many bytes were taken.
        OSError once the terminal no longer takes input."""
        ...

    def resize(self, columns: int, lines: int) -> None: ...

    def wait(self) -> int | None:
        """Block until the program exits: its exit code (-N for signal N), None when unknown."""
        ...

    def foreground_pid(self) -> int | None: ...

    def interrupt(self) -> None:
        """Make a blocked `read` return None (from another thread)."""
        ...

    def close(self) -> None:
        """Release the terminal; called once, after the reader has stopped."""
        ...

    async def end(self, grace_ms: int, *, has_exited: bool, agent_marker: str | None) -> None:
        """Stop the program and everything it started (and what the agent left behind)."""
        ...


class PtyPump:
    def __init__(
        self,
        child: PtyChild,
        on_output: Callable[[bytes], None],
        on_exit: Callable[[int | None], None],
        *,
        name: str = "pty",
    ) -> None:
        self._child = child
        self._on_output = on_output
        self._on_exit = on_exit
        self._output_ended = threading.Event()
        self._exited = threading.Event()
        self._closed = False
        self._lock = threading.Lock()
        self._input: queue.SimpleQueue[tuple[memoryview, concurrent.futures.Future[None] | None] | None] = (
            queue.SimpleQueue()
        )
        self._reader = threading.Thread(target=self._read_loop, name=f"{name}-reader", daemon=True)
        self._waiter = threading.Thread(target=self._wait_loop, name=f"{name}-waiter", daemon=True)
        self._writer = threading.Thread(target=self._write_loop, name=f"{name}-writer", daemon=True)

    @property
    def child(self) -> PtyChild:
        return self._child

    def start(self) -> None:
        self._writer.start()
        self._reader.start()
        self._waiter.start()  # last: it joins the other two

    def has_exited(self) -> bool:
        return self._exited.is_set()

    def write(self, data: bytes) -> concurrent.futures.Future[None]:
        """Queue `data` for the program; the future completes once all of it was written (or fails)."""
        written: concurrent.futures.Future[None] = concurrent.futures.Future()
        if not data:
            written.set_result(None)
            return written
        with self._lock:
            if self._closed:
                written.set_exception(AppError(ErrorCode.PROCESS, "the program has exited"))
                return written
            self._input.put((memoryview(data), written))
        return written

    def reply(self, data: bytes) -> None:
        """The terminal's answer to a query: queued like input, nobody waits for it."""
        if data:
            with self._lock:
                if not self._closed:
                    self._input.put((memoryview(data), None))

    def resize(self, columns: int, lines: int) -> None:
        if self._exited.is_set():
            return
        try:
            self._child.resize(columns, lines)
        except OSError:
            _log.debug("window size not applied", exc_info=True)

    # Threads

    def _read_loop(self) -> None:
        while True:
            try:
                chunk = self._child.read()
            except Exception:
                _log.exception("reading the terminal failed")
                chunk = b""
            if not chunk:  # b"": the output ended; None: interrupted after the exit
                self._output_ended.set()
                return
            try:
                self._on_output(chunk)
            except Exception:
                _log.exception("a terminal output handler failed")

    def _wait_loop(self) -> None:
        try:
            code = self._child.wait()
        except Exception:
            _log.exception("waiting for the program failed")
            code = None
        # Something it started may hold the terminal open: no end of output comes, stop reading anyway. The
        # interruption also wakes a write that waits for a reader that is gone.
        self._output_ended.wait(OUTPUT_GRACE_AFTER_EXIT_S)
        self._child.interrupt()
        self._reader.join(_JOIN_TIMEOUT_S)
        with self._lock:
            self._closed = True
            self._input.put(None)
        self._writer.join(_JOIN_TIMEOUT_S)
        try:
            self._child.close()
        except OSError:
            _log.debug("closing the terminal failed", exc_info=True)
        self._exited.set()
        self._on_exit(code)

    def _write_loop(self) -> None:
        while True:
            item = self._input.get()
            if item is None:
                break
            data, written = item
            try:
                while data:
                    data = data[self._child.write(bytes(data)) :]
            except OSError as error:
                self._fail(written, f"the program no longer accepts input ({error})")
                continue
            if written is not None and not written.done():
                written.set_result(None)
        # The program exited: whatever is still queued was never read.
        while True:
            try:
                item = self._input.get_nowait()
            except queue.Empty:
                return
            if item is not None:
                self._fail(item[1], "the program exited before reading its input")

    @staticmethod
    def _fail(written: concurrent.futures.Future[None] | None, reason: str) -> None:
        if written is not None and not written.done():
            written.set_exception(AppError(ErrorCode.PROCESS, reason))
