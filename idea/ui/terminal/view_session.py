"""What both widget-backed terminal sessions share (`QTermWidgetTerminal`, `NativeTerminal`), beyond what every
terminal adapter keeps (`ProgramTerminal`): the subscribers of submitted lines, and the life of its view.

A view is kept while its session lives; once released, it goes as soon as its program has exited (at once if it
has). Every view call happens on the GUI thread; subscribers are told on the core loop.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from typing import Any, Generic, Protocol, TypeVar

from PySide6.QtWidgets import QWidget

from idea.application.ports import Unsubscribe
from idea.domain.errors import AppError, ErrorCode
from idea.domain.ids import ProjectId, SessionId
from idea.domain.terminal import SpawnSpec
from idea.infrastructure.terminal.program import ProgramTerminal
from idea.infrastructure.terminal.start import executable_for
from idea.infrastructure.terminal.subscribers import Subscribers
from idea.ui.gui_thread import GuiThread
from idea.ui.terminal.appearance import TerminalAppearance
from idea.ui.terminal.write_portal import PortalView, WritePortal


class SessionView(PortalView, Protocol):
    """The view of a session, as the session itself uses it (a `QWidget` of the GUI thread)."""

    titleChanged: Any  # Qt signal: the program set its title (one `str`)

    def set_grid_size(self, columns: int, lines: int) -> None: ...

    def set_appearance(self, appearance: TerminalAppearance) -> None: ...

    def screen_text(self) -> str: ...

    def deleteLater(self) -> None: ...


V = TypeVar("V", bound=SessionView)


class ViewTerminalSession(ProgramTerminal, Generic[V]):
    def __init__(
        self,
        session_id: SessionId,
        project_id: ProjectId,
        gui: GuiThread,
        loop: asyncio.AbstractEventLoop,
        appearance: TerminalAppearance,
        parking_lot: QWidget | None,
    ) -> None:
        super().__init__(session_id, loop)
        self.project_id = project_id
        self._gui = gui
        self._appearance = appearance
        self._parking_lot = parking_lot
        self._started = False
        self._line_subscribers: Subscribers[None] = Subscribers()  # the person pressed Enter
        # GUI-thread state: the view and when it may go.
        self._view: V | None = None
        self.portal: WritePortal | None = None  # set with the view; read from the core loop
        self._view_exited = False
        self._released = False

    @property
    def view(self) -> V | None:
        """The widget showing this session (GUI thread); None before start and after release."""
        return self._view

    async def resize(self, columns: int, lines: int) -> None:
        if columns < 1 or lines < 1:
            raise AppError(ErrorCode.INVALID, f"a terminal cannot be {columns} columns by {lines} lines")
        await self._gui.call(lambda: self._view.set_grid_size(columns, lines) if self._view is not None else None)

    async def screen_text(self) -> str:
        return await self._gui.call(self._read_screen)

    def on_line_submitted(self, callback: Callable[[None], None]) -> Unsubscribe:
        """On the core loop, each time the person presses Enter in this terminal (not while IdeA types)."""
        return self._line_subscribers.add(callback)

    def release(self) -> None:
        """The session is forgotten: its view goes once the program has exited (now, if it has)."""
        self._gui.post(self.release_now)

    def set_appearance(self, appearance: TerminalAppearance) -> None:
        """GUI thread: new font, scheme or scrollback."""
        self._appearance = appearance
        if self._view is not None:
            self._view.set_appearance(appearance)

    def release_now(self) -> None:
        """GUI thread: `release`, at once."""
        self._released = True
        if self._view_exited or self._view is None:
            self._discard_view()

    # Any thread

    def _claim_start(self, spec: SpawnSpec) -> tuple[str, list[str], str]:
        """The program, its arguments and the executable that runs it; a session starts one program, once."""
        if self._started:
            raise AppError(ErrorCode.PROCESS, f"terminal {self._session_id} has already started a program")
        self._started = True
        program, *arguments = spec.argv
        return program, arguments, executable_for(program, spec.cwd, spec.env.get("PATH", os.defpath))

    def _to_core(self, callback: Callable[..., Any], *args: Any) -> None:
        try:
            self._loop.call_soon_threadsafe(callback, *args)
        except RuntimeError:
            pass  # the core loop has stopped: nobody is left to tell

    # GUI thread

    def _show_in(self, view: V) -> None:
        """`view` shows this session from now on: its title and the lines a person submits in it are told."""
        view.titleChanged.connect(self._on_title)
        self._view = view
        self.portal = WritePortal(view, self._gui)
        self.portal.lineSubmitted.connect(lambda: self._to_core(self._line_subscribers.notify, None))

    def _on_title(self, title: str) -> None:
        self._to_core(self._title_subscribers.notify, title)

    def _read_screen(self) -> str:
        return self._view.screen_text() if self._view is not None else ""

    def _view_ended(self, code: int | None) -> None:
        """The program shown has ended with `code` and its last output is in the view: the core loop hears of
        the exit, and a released view goes."""
        self._to_core(self._program.exited, code)
        self._view_exited = True
        if self._released:
            self._discard_view()

    def _discard_view(self) -> None:
        view, self._view = self._view, None
        if view is not None:
            view.deleteLater()
