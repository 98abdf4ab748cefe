"""The terminal port backed by QTermWidget (spec 01 §12, §13): the GUI backend on Linux and macOS.

Threads: application code awaits these coroutines on the core loop; the widgets live on the GUI thread, so
every widget call goes through `GuiThread.call`, and the widget's signals are turned into callbacks on the
core loop (`call_soon_threadsafe`). The GUI thread never waits for the core loop.

The widget owns the PTY: a session lives exactly as long as its view. Views not shown in a cell live in
the factory's hidden parking lot; a view is deleted only once its program has exited and the session was
released.
"""

from __future__ import annotations

import asyncio
import functools
import os
import shutil
from collections.abc import Mapping, Sequence

from PySide6.QtCore import QProcessEnvironment
from PySide6.QtWidgets import QWidget

from idea.application.ports import OUTPUT_TAIL_BYTES
from idea.domain.errors import AppError, ErrorCode
from idea.domain.ids import ProjectId, SessionId
from idea.domain.terminal import SpawnSpec
from idea.infrastructure.terminal.process_tree import AGENT_MARKER_VARIABLE
from idea.infrastructure.terminal.stream import ColorQueryResponder, OutputScanners
from idea.ui.gui_thread import GuiThread
from idea.ui.terminal.appearance import TerminalAppearance
from idea.ui.terminal.factory import TerminalViewFactory
from idea.ui.terminal.output_handover import OutputHandover, output_tail
from idea.ui.terminal.terminal_view import TerminalView
from idea.ui.terminal.view_session import ViewTerminalSession
from idea.ui.terminal.write_portal import WritePortal

# Set by the widget itself and not wanted: WINDOWID=0 names no window, LANGUAGE is set empty. (COLORFGBG,
# "15;0" on a dark scheme, is kept: it tells programs that do not ask by OSC 11 what they draw on.)
_ADDED_BY_WIDGET = frozenset({"WINDOWID", "LANGUAGE"})


class QTermWidgetTerminal(ViewTerminalSession[TerminalView]):
    """One program in a QTermWidget. Exit codes follow `subprocess`: the status, or -N for signal N."""

    def __init__(
        self,
        session_id: SessionId,
        project_id: ProjectId,
        gui: GuiThread,
        loop: asyncio.AbstractEventLoop,
        appearance: TerminalAppearance,
        *,
        parking_lot: QWidget | None = None,
    ) -> None:
        super().__init__(session_id, project_id, gui, loop, appearance, parking_lot)
        colors = appearance.colors()
        self._scanners = OutputScanners(
            ColorQueryResponder(colors.foreground, colors.background, list(colors.palette))
        )
        self._handover = OutputHandover(loop, self._on_output)

    async def start(self, spec: SpawnSpec) -> int:
        _program, arguments, executable = self._claim_start(spec)
        return await self._gui.call(lambda: self._start_view(executable, arguments, spec))

    async def write_text(self, text: str) -> None:
        await self._gui.call(lambda: self._send_text(text))

    def bracketed_paste_enabled(self) -> bool:
        self._handover.catch_up()  # the end of a flood may still wait for its window: `ESC [ ? 2004 h` in it
        return self._scanners.bracketed_paste.enabled

    def foreground_pid(self) -> int | None:
        pid = self._program.pid
        if pid is None or self._program.has_exited():
            return None
        return _terminal_foreground_group(pid)

    async def terminate(self, grace_ms: int = 3000) -> None:
        """End the program and its descendants, and what the agent left behind (IDEA_AGENT_ID)."""
        await self._program.terminate(grace_ms)

    def set_appearance(self, appearance: TerminalAppearance) -> None:
        """GUI thread: new font, scheme or scrollback, and the colours reported to colour queries."""
        colors = appearance.colors()
        color_queries = self._scanners.color_queries
        color_queries.foreground = colors.foreground
        color_queries.background = colors.background
        color_queries.palette = list(colors.palette)
        super().set_appearance(appearance)

    # Core loop

    def _on_output(self, chunks: list[str]) -> None:
        # A batch of output, as the widget's chunks: the scanners search them where they lie, subscribers get
        # bytes of the batch's end (`TerminalSession.on_output`).
        replies = self._scanners.read(chunks)
        if replies:
            self._gui.post(functools.partial(self._answer, replies.decode("ascii")))
        if self._output_subscribers:
            self._output_subscribers.notify(output_tail(chunks, OUTPUT_TAIL_BYTES))

    # GUI thread

    def _start_view(self, executable: str, arguments: list[str], spec: SpawnSpec) -> int:
        command = _command_with_exact_environment(executable, arguments, spec.env)
        view = TerminalView(self._appearance, self._parking_lot)
        view.set_grid_size(spec.columns, spec.lines)
        view.shift_enter = spec.shift_enter
        self._handover.attach(view.terminal.receivedData, self._gui.post, view.output_flowing)
        view.exited.connect(self._on_exited)
        try:
            pid = view.start(command[0], command[1:], spec.cwd, spec.env)
        except AppError:
            self._handover.detach()
            view.deleteLater()
            raise
        self._program.started(pid, spec.env.get(AGENT_MARKER_VARIABLE))
        self._show_in(view)
        return pid

    def _send_text(self, text: str) -> None:
        if self._view is None or self._view_exited:
            raise AppError(ErrorCode.PROCESS, f"terminal {self._session_id} has no running program")
        if text:
            if self.portal is not None:
                self.portal.writing()
            self._view.terminal.sendText(text)

    def _answer(self, reply: str) -> None:
        if self._view is not None and not self._view_exited:
            self._view.terminal.sendText(reply)

    def _on_exited(self, code: int | None) -> None:
        self._handover.flush()  # subscribers hear the last output before the exit
        self._view_ended(code)

    def _discard_view(self) -> None:
        if self._view is not None:
            self._handover.detach()
        super()._discard_view()


class QtTerminalFactory(TerminalViewFactory[QTermWidgetTerminal]):
    """Creates widget-backed terminals and keeps their views. Construct it on the GUI thread."""

    def _make(self, session_id: SessionId, project_id: ProjectId) -> QTermWidgetTerminal:
        return QTermWidgetTerminal(
            session_id, project_id, self._gui, self._loop, self._appearance, parking_lot=self.parking_lot
        )

    def portal_for(self, session_id: SessionId) -> WritePortal | None:
        return super().portal_for(session_id)

    def view_for(self, session_id: SessionId) -> TerminalView | None:
        return super().view_for(session_id)


def _command_with_exact_environment(executable: str, arguments: Sequence[str], env: Mapping[str, str]) -> list[str]:
    """The command line that runs `executable` with exactly `env`.

    The widget adds the environment it is given to IdeA's own (the C-level environment, which can hold
    more than os.environ) and sets WINDOWID, so variables the spawn environment leaves out on purpose
    (TMUX, CLAUDECODE, PYTHONPATH, LINES, …) would come back. `env -u` removes them, then execs the
    program: same pid, no process in between, only names on the command line, never values. As in a
    shell, a script without a #! line runs with /bin/sh.
    """
    inherited = set(QProcessEnvironment.systemEnvironment().keys()) | _ADDED_BY_WIDGET
    removals = [part for name in sorted(inherited - set(env)) for part in ("-u", name)]
    return [_env_program(), *removals, "--", executable, *arguments]


@functools.cache
def _env_program() -> str:
    return shutil.which("env", path=os.defpath) or "/usr/bin/env"


def _terminal_foreground_group(pid: int) -> int | None:
    """The foreground process group of the terminal that `pid` controls (`tpgid` of /proc/<pid>/stat)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()
    except OSError:
        return None
    foreground = int(fields[5])
    return foreground if foreground > 0 else None
