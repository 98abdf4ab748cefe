"""What every widget-backed terminal factory does: keep the sessions' terminals, hand their views to cells and
take them back into a hidden parking lot, restyle them, and delete the views at shutdown."""

from __future__ import annotations

import asyncio
from typing import Any, Generic, Protocol, TypeVar

from PySide6.QtWidgets import QWidget

from idea.domain.ids import ProjectId, SessionId
from idea.ui.gui_thread import GuiThread
from idea.ui.terminal.appearance import TerminalAppearance


class ViewTerminal(Protocol):
    """The GUI side of a widget-backed terminal session, as the factory uses it."""

    portal: Any

    @property
    def view(self) -> Any: ...

    def release(self) -> None: ...

    def release_now(self) -> None: ...

    def set_appearance(self, appearance: TerminalAppearance) -> None: ...


T = TypeVar("T", bound=ViewTerminal)


class TerminalViewFactory(Generic[T]):
    """Construct it on the GUI thread; `create` is called from the core loop."""

    def __init__(self, gui: GuiThread, loop: asyncio.AbstractEventLoop, appearance: TerminalAppearance) -> None:
        self._gui = gui
        self._loop = loop
        self._appearance = appearance
        self._terminals: dict[SessionId, T] = {}
        # Never shown: the parent of every view that no cell shows, so its program keeps running.
        self.parking_lot = QWidget()
        self.parking_lot.setObjectName("TerminalParkingLot")

    def _make(self, session_id: SessionId, project_id: ProjectId) -> T:
        raise NotImplementedError

    def create(self, session_id: SessionId, project_id: ProjectId) -> T:
        terminal = self._make(session_id, project_id)
        self._terminals[session_id] = terminal
        return terminal

    def release(self, session_id: SessionId) -> None:
        terminal = self._terminals.pop(session_id, None)
        if terminal is not None:
            terminal.release()

    def portal_for(self, session_id: SessionId) -> Any:
        """PortalProvider: the input portal of a started session (any thread)."""
        terminal = self._terminals.get(session_id)
        return terminal.portal if terminal is not None else None

    def view_for(self, session_id: SessionId) -> Any:
        """GUI thread: the view of a started session, for a cell to show."""
        terminal = self._terminals.get(session_id)
        return terminal.view if terminal is not None else None

    def screen_texts(self) -> list[str]:
        """GUI thread: the visible screen of every started terminal, in start order (automation, tests)."""
        views = (terminal.view for terminal in self._terminals.values())
        return [view.screen_text() for view in views if view is not None]

    def park(self, view: QWidget) -> None:
        """GUI thread: take back a view no cell shows any more (reparenting hides it; it keeps running)."""
        view.setParent(self.parking_lot)

    def close(self) -> None:
        """GUI thread, after every program was stopped: delete the views now rather than whenever Python
        collects them (a widget torn down late, outside its event loop, can take the process down)."""
        for terminal in self._terminals.values():
            terminal.release_now()
        self._terminals.clear()
        self.parking_lot.deleteLater()

    def set_appearance(self, appearance: TerminalAppearance) -> None:
        """GUI thread: restyle every terminal, and the ones created from now on."""
        self._appearance = appearance
        for terminal in list(self._terminals.values()):
            terminal.set_appearance(appearance)
