"""A cell of the grid: a slim header, then what runs in it (a terminal, or a placeholder when empty).

A cell is a view. It borrows the terminal of the session its leaf names and gives it back to the parking
lot when it shows something else or goes away; the process never notices.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QMimeData, QPoint, Qt, Signal
from PySide6.QtGui import QContextMenuEvent, QDrag, QMouseEvent
from PySide6.QtWidgets import (
    QApplication,
    QFrame,
    QHBoxLayout,
    QLabel,
    QMenu,
    QPushButton,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from idea.domain.layout import Direction, Leaf
from idea.domain.session import SessionInfo, SessionState
from idea.ui.icons import icon

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


class CellHeader(QFrame):
    """Title, what runs, activity marks and the quick actions. Dragging it onto another cell swaps them."""

    dragStarted = Signal()
    clicked = Signal(bool)  # extend selection (Shift or Ctrl held)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("CellHeader")
        self.setFixedHeight(24)
        self.setCursor(Qt.CursorShape.OpenHandCursor)
        row = QHBoxLayout(self)
        row.setContentsMargins(6, 0, 2, 0)
        row.setSpacing(4)
        self.state_dot = QLabel("●")
        self.state_dot.setObjectName("StateDot")
        self.title = QLabel()
        self.title.setObjectName("CellTitle")
        self.detail = QLabel()
        self.detail.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.marks = QLabel()
        row.addWidget(self.state_dot)
        row.addWidget(self.title)
        row.addWidget(self.detail, 1)
        row.addWidget(self.marks)
        self.buttons: dict[str, QToolButton] = {}
        for name, tip in (
            ("split-right", "Split right (Ctrl+Shift+E)"),
            ("split-down", "Split down (Ctrl+Shift+O)"),
            ("zoom", "Zoom this cell (Ctrl+Shift+X)"),
            ("close", "Close cell (Ctrl+Shift+W)"),
        ):
            button = QToolButton()
            button.setIcon(icon(name))
            button.setToolTip(tip)
            button.setAutoRaise(True)
            button.setCursor(Qt.CursorShape.ArrowCursor)
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            row.addWidget(button)
            self.buttons[name] = button
        self._press: QPoint | None = None

    def set_flag(self, name: str, value: bool) -> None:
        if self.property(name) != value:
            self.setProperty(name, value)
            self.style().unpolish(self)
            self.style().polish(self)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            self._press = event.position().toPoint()
            modifiers = event.modifiers()
            self.clicked.emit(bool(modifiers & (Qt.KeyboardModifier.ShiftModifier | Qt.KeyboardModifier.ControlModifier)))
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        if self._press is not None and (
            (event.position().toPoint() - self._press).manhattanLength() >= QApplication.startDragDistance()
        ):
            self._press = None
            self.dragStarted.emit()
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        self._press = None
        super().mouseReleaseEvent(event)


class CellWidget(QFrame):
    def __init__(self, leaf_id: str, controller: CellController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.leaf_id = leaf_id
        self._controller = controller
        self._view: TerminalView | None = None
        self._session: SessionInfo | None = None
        self._leaf: Leaf | None = None
        self._marks: set[str] = set()
        self._active = False
        self._foreground: str | None = None
        self._view_connections: list[tuple[object, object]] = []
        self._agent_status: str | None = None  # "working on a task from Main · 1 queued"
        self._attention: str | None = None
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
        self._placeholder = self._build_placeholder()
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
            self._agent_status = self._attention = None  # those were about what the cell showed before
            self.delivery_done()
        self._session = session
        if view is not self._view:
            self._give_back_view()
            if view is not None:
                self._borrow(view)
        self._placeholder.setVisible(self._view is None)
        self._refresh_placeholder()
        self._refresh_header()
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
        self._refresh_header()

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
        self._active = active
        if active:
            self._marks.clear()
            self._attention = None
        self.header.set_flag("active", active)
        self._refresh_header()

    # -- what the orchestration core says about the agent shown here --

    def set_agent_status(self, status: str | None) -> None:
        if status != self._agent_status:
            self._agent_status = status
            self._refresh_header()

    def task_delivered(self) -> None:
        if not self._active:
            self._marks.add("delivered")
            self._refresh_header()

    def needs_attention(self, message: str) -> None:
        self._attention = message
        self._refresh_header()

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
        self._foreground = program
        self._refresh_header()

    def focus_terminal(self) -> None:
        if self._view is not None:
            self._view.focus_terminal()

    def _activated(self, extend: bool) -> None:
        self._controller.cell_activated(self.leaf_id, extend)

    def _on_bell(self) -> None:
        if not self._active:
            self._marks.add("bell")
            self._refresh_header()

    def _on_activity(self) -> None:
        if not self._active and "activity" not in self._marks:
            self._marks.add("activity")
            self._refresh_header()

    def _refresh_header(self) -> None:
        session = self._session
        header = self.header
        if session is None:
            header.state_dot.setText("○")
            header.state_dot.setToolTip("Empty cell")
            header.title.setText("Empty")
            header.detail.setText("")
        else:
            dot, tip, tone = {
                SessionState.STARTING: ("◌", "Starting", "starting"),
                SessionState.RUNNING: ("●", "Running", "running"),
                SessionState.EXITED: ("○", session.describe_end(), "ended"),
                SessionState.FAILED: ("✕", session.describe_end(), "failed"),
            }[session.state]
            header.state_dot.setText(dot)
            header.state_dot.setProperty("tone", tone)
            header.state_dot.style().unpolish(header.state_dot)
            header.state_dot.style().polish(header.state_dot)
            header.state_dot.setToolTip(tip)
            header.title.setText(session.label)
            header.detail.setText(self._detail_text(session))
            header.detail.setToolTip(session.title or session.cwd)
        marks, tips = [], []
        for name, mark, tip in (
            ("attention", "⚠", f"Needs you: {self._attention}"),
            ("delivered", "✉", "A task was delivered to this agent"),
            ("bell", "🔔", "Bell rang"),
            ("activity", "•", "New output"),
        ):
            if name in self._marks or (name == "attention" and self._attention):
                marks.append(mark)
                tips.append(tip)
        header.marks.setText(" ".join(marks))
        header.marks.setToolTip("\n".join(tips))

    def _detail_text(self, session: SessionInfo) -> str:
        parts = []
        if self._agent_status:
            parts.append(self._agent_status)
        if self._foreground and self._foreground != session.label and not session.agent_id:
            parts.append(self._foreground)
        if session.title:
            parts.append(session.title)
        elif not session.is_live:
            parts.append(session.describe_end())
        return " — ".join(parts)

    # -- placeholder and banner --

    def _build_placeholder(self) -> QWidget:
        placeholder = QFrame()
        placeholder.setObjectName("Placeholder")
        column = QVBoxLayout(placeholder)
        column.addStretch(1)
        self._placeholder_text = QLabel("This cell is empty")
        self._placeholder_text.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._placeholder_text.setWordWrap(True)
        column.addWidget(self._placeholder_text)
        row = QHBoxLayout()
        row.addStretch(1)
        self._launch = QPushButton("Launch agent")
        self._launch_menu = QMenu(self._launch)
        self._launch_menu.aboutToShow.connect(self._fill_launch_menu)
        self._launch.setMenu(self._launch_menu)
        row.addWidget(self._launch)
        self._open_shell = QPushButton("Open shell")
        self._open_shell.clicked.connect(lambda: self._controller.start_shell(self.leaf_id))
        row.addWidget(self._open_shell)
        self._attach = QPushButton("Attach session")
        self._attach_menu = QMenu(self._attach)
        self._attach_menu.aboutToShow.connect(self._fill_attach_menu)
        self._attach.setMenu(self._attach_menu)
        row.addWidget(self._attach)
        row.addStretch(1)
        column.addLayout(row)
        column.addStretch(1)
        return placeholder

    def _fill_attach_menu(self) -> None:
        self._attach_menu.clear()
        self._controller.fill_attach_menu(self.leaf_id, self._attach_menu)

    def _fill_launch_menu(self) -> None:
        self._launch_menu.clear()
        self._controller.fill_launch_menu(self.leaf_id, self._launch_menu)

    def _refresh_placeholder(self) -> None:
        session = self._session
        if session is not None and session.state is SessionState.FAILED:
            self._placeholder_text.setText(session.describe_end())
        elif session is not None and session.state is SessionState.STARTING:
            self._placeholder_text.setText(f"Starting {session.label}…")
        else:
            self._placeholder_text.setText("This cell is empty")

    def _build_banner(self) -> QWidget:
        banner, self._banner_text = _banner(
            (QPushButton(icon("restart"), "Restart"), lambda: self._controller.restart(self.leaf_id)),
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
        session = self._session
        ended = session is not None and session.state in (SessionState.EXITED, SessionState.FAILED)
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
