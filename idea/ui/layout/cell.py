"""A cell of the grid: a slim header, then what runs in it (a terminal, or a placeholder when empty).

A cell is a view. It borrows the terminal of the session its leaf names and gives it back to the parking
lot when it shows something else or goes away; the process never notices.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QMimeData
from PySide6.QtGui import QContextMenuEvent, QDrag
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QMenu,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from idea.domain.layout import Direction, Leaf
from idea.domain.session import SessionInfo, SessionState
from idea.ui.icons import set_icon
from idea.ui.layout.cell_header import CellHeader
from idea.ui.layout.cell_placeholder import CellPlaceholder

if TYPE_CHECKING:
    from idea.ui.terminal.terminal_view import TerminalView

CELL_MIME = "application/x-idea-cell"


class CellController(Protocol):
    """What a cell asks of the project tab that hosts it."""

    def split(self, leaf_id: str, direction: Direction, position: str) -> None: ...
    def close_cell(self, leaf_id: str) -> None: ...
    def toggle_zoom(self, leaf_id: str) -> None: ...
    def start_shell(self, leaf_id: str) -> None: ...
    def restart(self, leaf_id: str) -> None: ...
    def cell_activated(self, leaf_id: str, extend_selection: bool) -> None: ...
    def fill_context_menu(self, leaf_id: str, menu: QMenu) -> None: ...
    def fill_attach_menu(self, leaf_id: str, menu: QMenu) -> None: ...
    def fill_launch_menu(self, leaf_id: str, menu: QMenu) -> None: ...
    def deliver_now(self, ticket_id: str) -> None: ...
    def start_cell_drag(self, leaf_id: str) -> None: ...
    def park(self, view: TerminalView) -> None: ...


class CellWidget(QFrame):
    def __init__(self, leaf_id: str, controller: CellController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.leaf_id = leaf_id
        self._controller = controller
        self._view: TerminalView | None = None
        self._session: SessionInfo | None = None
        self._leaf: Leaf | None = None
        self._view_connections: list[tuple[object, object]] = []
        self._waiting_ticket: str | None = None
        self.setMinimumSize(120, 60)

        self.header = CellHeader(self)
        self.header.buttons["split-right"].clicked.connect(
            lambda: controller.split(self.leaf_id, Direction.ROW, "after")
        )
        self.header.buttons["split-down"].clicked.connect(
            lambda: controller.split(self.leaf_id, Direction.COLUMN, "after")
        )
        self.header.buttons["zoom"].clicked.connect(lambda: controller.toggle_zoom(self.leaf_id))
        self.header.buttons["close"].clicked.connect(lambda: controller.close_cell(self.leaf_id))
        self.header.dragStarted.connect(lambda: controller.start_cell_drag(self.leaf_id))
        self.header.clicked.connect(lambda extend: self._activated(extend))

        self._body = QVBoxLayout()
        self._body.setContentsMargins(0, 0, 0, 0)
        self._body.setSpacing(0)
        self._placeholder = CellPlaceholder(
            lambda menu: controller.fill_launch_menu(self.leaf_id, menu),
            lambda: controller.start_shell(self.leaf_id),
            lambda menu: controller.fill_attach_menu(self.leaf_id, menu),
            lambda: controller.restart(self.leaf_id),
        )
        self._banner = self._build_banner()
        self._waiting_banner = self._build_waiting_banner()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.header)
        layout.addWidget(self._waiting_banner)
        layout.addLayout(self._body, 1)
        layout.addWidget(self._banner)
        self._body.addWidget(self._placeholder)

    # -- what the cell shows --

    @property
    def view(self) -> TerminalView | None:
        return self._view

    @property
    def session(self) -> SessionInfo | None:
        return self._session

    def show_content(self, leaf: Leaf, session: SessionInfo | None, view: TerminalView | None) -> None:
        """Show the leaf's session (borrowing its terminal view) or the empty-cell placeholder."""
        self._leaf = leaf
        if (session.id if session else None) != (self._session.id if self._session else None):
            self.delivery_done()
        self._session = session
        if view is not self._view:
            self._give_back_view()
            if view is not None:
                self._borrow(view)
        self._placeholder.setVisible(self._view is None)
        self._placeholder.show_session(session)
        self.header.show_session(session)
        if self._view is not None and session is not None:
            # What a screen reader says as the terminal takes the keys: what runs in this cell.
            self._view.display.setAccessibleName(f"Terminal: {session.label}")
        self._refresh_banner()

    def release(self) -> None:
        """The cell goes away: hand the terminal back before the widget is deleted."""
        self._give_back_view()

    def _borrow(self, view: TerminalView) -> None:
        self._view = view
        view.setParent(self)
        self._body.insertWidget(0, view, 1)
        view.show()
        # Only this cell's own connections are undone when it gives the view back: the terminal
        # adapter listens to the same signals.
        self._view_connections = [
            (view.bell, self._on_bell),
            (view.activity, self._on_activity),
            (view.titleChanged, self._on_title),
            (view.focused, self._on_focused),
            (view.destroyed, self._view_destroyed),
        ]
        for signal, slot in self._view_connections:
            signal.connect(slot)

    def _on_title(self, _title: str) -> None:
        self.header.refresh()

    def _on_focused(self) -> None:
        self._activated(False)

    def _view_destroyed(self) -> None:
        # The session was released while shown here (its program had ended): forget the widget.
        self._view = None
        self._view_connections = []
        self._placeholder.setVisible(True)

    def _give_back_view(self) -> None:
        view, self._view = self._view, None
        if view is None:
            return
        for signal, slot in self._view_connections:
            signal.disconnect(slot)
        self._view_connections = []
        self._body.removeWidget(view)
        self._controller.park(view)

    # -- header --

    def set_active(self, active: bool) -> None:
        self.header.set_active(active)

    # -- what the orchestration core says about the agent shown here --

    def set_agent_status(self, status: str | None) -> None:
        self.header.set_agent_status(status)

    def task_delivered(self) -> None:
        self.header.mark("delivered")

    def needs_attention(self, message: str | None) -> None:
        self.header.needs_attention(message)

    def set_agent_state(self, text: str | None) -> None:
        self.header.set_agent_state(text)

    def delivery_waiting(self, ticket_id: str, requester: str) -> None:
        """A task waits for the person's half-typed line (spec 03 §8.2 step 1)."""
        self._waiting_ticket = ticket_id
        self._waiting_text.setText(f"A task from {requester} is waiting — send or clear your line.")
        self._waiting_banner.show()

    @property
    def waiting_ticket(self) -> str | None:
        return self._waiting_ticket

    def delivery_done(self, ticket_id: str | None = None) -> None:
        if ticket_id is None or ticket_id == self._waiting_ticket:
            self._waiting_ticket = None
            self._waiting_banner.hide()

    def set_selected(self, selected: bool) -> None:
        self.header.set_flag("selected", selected)

    def set_foreground(self, program: str | None) -> None:
        self.header.set_foreground(program)

    def focus_terminal(self) -> None:
        if self._view is not None:
            self._view.focus_terminal()

    def _activated(self, extend: bool) -> None:
        self._controller.cell_activated(self.leaf_id, extend)

    def _on_bell(self) -> None:
        self.header.mark("bell")

    def _on_activity(self) -> None:
        self.header.mark("activity")

    # -- banners --

    def _build_banner(self) -> QWidget:
        restart = QPushButton("Restart")
        set_icon(restart, "restart")
        banner, self._banner_text = _banner(
            (restart, lambda: self._controller.restart(self.leaf_id)),
            (QPushButton("Close cell"), lambda: self._controller.close_cell(self.leaf_id)),
        )
        return banner

    def _build_waiting_banner(self) -> QWidget:
        banner, self._waiting_text = _banner(
            (QPushButton("Deliver now (clears your line)"), self._deliver_now),
            (QPushButton("Keep waiting"), lambda: banner.hide()),
        )
        return banner

    def _deliver_now(self) -> None:
        if self._waiting_ticket is not None:
            self._controller.deliver_now(self._waiting_ticket)
        self._waiting_banner.hide()

    def _refresh_banner(self) -> None:
        # Under the program's last screen; a start that failed is told (once) by the placeholder instead.
        session = self._session
        ended = session is not None and session.state is SessionState.EXITED
        self._banner.setVisible(ended)
        if ended and session is not None:
            self._banner_text.setText(session.describe_end())

    # -- menus and drops --

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:
        menu = QMenu(self)
        self._controller.fill_context_menu(self.leaf_id, menu)
        menu.exec(event.globalPos())


def _banner(*buttons: tuple[QPushButton, Callable[[], object]]) -> tuple[QFrame, QLabel]:
    """A strip across the cell: a sentence and its actions (hidden until needed)."""
    banner = QFrame()
    banner.setObjectName("CellBanner")
    row = QHBoxLayout(banner)
    row.setContentsMargins(8, 3, 4, 3)
    text = QLabel()
    row.addWidget(text, 1)
    for button, action in buttons:
        button.clicked.connect(lambda _checked=False, act=action: act())
        row.addWidget(button)
    banner.hide()
    return banner, text


def cell_drag(source: QWidget, leaf_id: str) -> QDrag:
    drag = QDrag(source)
    mime = QMimeData()
    mime.setData(CELL_MIME, leaf_id.encode())
    drag.setMimeData(mime)
    return drag
