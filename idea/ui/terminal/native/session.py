"""The terminal port backed by a PTY IdeA owns and the native view: the GUI backend on Windows (ConPTY), and on
Linux when chosen (POSIX PTY).

Threads: the PTY pump reads and writes on threads of its own; output is handed to the view on the GUI thread
in batches (one queued call however many chunks arrived meanwhile) and to output subscribers on the core loop.
Coroutines are awaited on the core loop; every widget call goes through `GuiThread`.

Unlike the QTermWidget cell, the view does not own the program: a view is made at start and kept while the
session lives; released, it goes once the program has exited.
"""

from __future__ import annotations

import asyncio
import sys
import threading
from collections.abc import Callable

from PySide6.QtWidgets import QWidget

from idea.domain.errors import AppError, ErrorCode
from idea.domain.ids import ProjectId, SessionId
from idea.domain.terminal import SpawnSpec
from idea.infrastructure.pty.pty_pump import PtyChild, PtyPump
from idea.infrastructure.terminal.process_tree import AGENT_MARKER_VARIABLE
from idea.infrastructure.terminal.stream import BracketedPasteTracker
from idea.ui.gui_thread import GuiThread
from idea.ui.terminal.appearance import TerminalAppearance
from idea.ui.terminal.factory import TerminalViewFactory
from idea.ui.terminal.native.view import NativeTerminalView
from idea.ui.terminal.view_session import ViewTerminalSession

SpawnChild = Callable[[str, list[str], str, dict[str, str], int, int], PtyChild]


def platform_spawner() -> SpawnChild:
    """ConPTY on Windows, a POSIX PTY elsewhere."""
    if sys.platform == "win32":
        from idea.infrastructure.pty.conpty_child import ConPtyChild

        return ConPtyChild.spawn
    from idea.infrastructure.pty.posix_child import PosixPtyChild

    return PosixPtyChild.spawn


class NativeTerminal(ViewTerminalSession[NativeTerminalView]):
    """One program in a PTY, shown by a NativeTerminalView. Exit codes follow `subprocess`."""

    def __init__(
        self,
        session_id: SessionId,
        project_id: ProjectId,
        gui: GuiThread,
        loop: asyncio.AbstractEventLoop,
        appearance: TerminalAppearance,
        *,
        parking_lot: QWidget | None = None,
        spawn: SpawnChild | None = None,
    ) -> None:
        super().__init__(session_id, project_id, gui, loop, appearance, parking_lot)
        self._spawn = spawn or platform_spawner()
        self._pump: PtyPump | None = None
        self._bracketed_paste = BracketedPasteTracker()
        # Output waiting for the GUI thread (filled by the reader thread).
        self._inbox: list[bytes] = []
        self._inbox_lock = threading.Lock()
        self._inbox_posted = False

    async def start(self, spec: SpawnSpec) -> int:
        program, arguments, executable = self._claim_start(spec)
        await self._gui.call(lambda: self._make_view(spec))
        try:
            child = self._spawn(program, [executable, *arguments], spec.cwd, dict(spec.env), spec.columns, spec.lines)
        except BaseException:
            await self._gui.call(self._discard_view)
            raise
        self._program.started(child.pid, spec.env.get(AGENT_MARKER_VARIABLE))
        self._pump = PtyPump(child, self._on_output, self._on_pump_exit, name=f"pty-{self._session_id[:8]}")
        await self._gui.call(self._connect_view)
        self._pump.start()
        return child.pid

    async def write_text(self, text: str) -> None:
        if self._pump is None or self._program.has_exited():
            raise AppError(ErrorCode.PROCESS, f"terminal {self._session_id} has no running program")
        await asyncio.wrap_future(self._pump.write(text.encode("utf-8")))

    def bracketed_paste_enabled(self) -> bool:
        return self._bracketed_paste.enabled

    def foreground_pid(self) -> int | None:
        if self._pump is None or self._program.has_exited():
            return None
        return self._pump.child.foreground_pid()

    async def terminate(self, grace_ms: int = 3000) -> None:
        """End the program and its descendants, and what the agent left behind (IDEA_AGENT_ID)."""
        if self._pump is None:
            return
        # The PTY child ends itself (a process group on POSIX, the tree under ConPTY on Windows).
        marker = self._program.agent_marker
        await self._pump.child.end(grace_ms, has_exited=self._pump.has_exited(), agent_marker=marker)
        await self._program.exit_reported()

    # Pump threads

    def _on_output(self, chunk: bytes) -> None:
        self._bracketed_paste.feed(chunk)
        with self._inbox_lock:
            self._inbox.append(chunk)
            post = not self._inbox_posted
            self._inbox_posted = True
        if post:
            self._gui.post(self._deliver)
        if self._output_subscribers:
            self._to_core(self._output_subscribers.notify, chunk)

    def _on_pump_exit(self, code: int | None) -> None:
        self._gui.post(lambda: self._on_view_exit(code))

    # GUI thread

    def _make_view(self, spec: SpawnSpec) -> None:
        view = NativeTerminalView(self._appearance, spec.columns, spec.lines, self._parking_lot)
        view.shift_enter = spec.shift_enter
        self._show_in(view)

    def _connect_view(self) -> None:
        assert self._view is not None and self._pump is not None
        pump = self._pump
        self._view.set_sender(pump.reply)
        self._view.gridResized.connect(pump.resize)
        columns, lines = self._view.grid_size()
        pump.resize(columns, lines)  # a cell may have given the view its size already

    def _deliver(self) -> None:
        with self._inbox_lock:
            chunks, self._inbox = self._inbox, []
            self._inbox_posted = False
        if chunks and self._view is not None:
            self._view.feed(b"".join(chunks))

    def _read_screen(self) -> str:
        self._deliver()
        return super()._read_screen()

    def _on_view_exit(self, code: int | None) -> None:
        self._deliver()
        if self._view is not None:
            self._view.mark_exited(code)
        self._view_ended(code)


class NativeTerminalFactory(TerminalViewFactory[NativeTerminal]):
    """Creates terminals shown by the native view. Construct it on the GUI thread."""

    def __init__(
        self,
        gui: GuiThread,
        loop: asyncio.AbstractEventLoop,
        appearance: TerminalAppearance,
        *,
        spawn: SpawnChild | None = None,
    ) -> None:
        super().__init__(gui, loop, appearance)
        self._spawn = spawn

    def _make(self, session_id: SessionId, project_id: ProjectId) -> NativeTerminal:
        return NativeTerminal(
            session_id,
            project_id,
            self._gui,
            self._loop,
            self._appearance,
            parking_lot=self.parking_lot,
            spawn=self._spawn,
        )
