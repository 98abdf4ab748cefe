"""A cell's header: what runs (state dot, title, detail), the marks that call for a look, and the quick
actions (split, zoom, close); clicking it activates the cell, dragging it swaps the cell with another."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt, Signal
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QApplication, QFrame, QHBoxLayout, QLabel, QSizePolicy, QToolButton, QWidget

from idea.domain.session import SessionInfo, SessionState
from idea.ui.icons import set_icon


class CellHeader(QFrame):
    """Title, what runs, activity marks and the quick actions. Dragging it onto another cell swaps them.

    Marks (a bell, new output, a delivered task) are shown while the cell is not the active one; a call for
    the person's attention until the cell becomes active."""

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
        self.attention = QLabel("Needs you")  # a badge the eye finds across a grid, not one more grey mark
        self.attention.setObjectName("AttentionBadge")
        self.attention.hide()
        row.addWidget(self.state_dot)
        row.addWidget(self.title)
        row.addWidget(self.detail, 1)
        row.addWidget(self.marks)
        row.addWidget(self.attention)
        self.buttons: dict[str, QToolButton] = {}
        for name, text, keys in (
            ("split-right", "Split right", "Ctrl+Shift+E"),
            ("split-down", "Split down", "Ctrl+Shift+O"),
            ("zoom", "Zoom this cell", "Ctrl+Shift+X"),
            ("close", "Close cell", "Ctrl+Shift+W"),
        ):
            button = QToolButton()
            set_icon(button, name)
            button.setToolTip(f"{text} ({keys})")
            button.setAccessibleName(text)
            button.setAutoRaise(True)
            button.setCursor(Qt.CursorShape.ArrowCursor)
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            row.addWidget(button)
            self.buttons[name] = button
        self._press: QPoint | None = None
        self._session: SessionInfo | None = None
        self._active = False
        self._marks: set[str] = set()
        self._attention: str | None = None
        self._agent_status: str | None = None  # "working on a task from Main · 1 queued"
        self._agent_state: str | None = None  # "limited until 15:00 · resumes in 12 min", "no sign of work…"
        self._foreground: str | None = None

    def set_flag(self, name: str, value: bool) -> None:
        if self.property(name) != value:
            self.setProperty(name, value)
            self.style().unpolish(self)
            self.style().polish(self)

    # -- what the header says --

    def show_session(self, session: SessionInfo | None) -> None:
        if (session.id if session else None) != (self._session.id if self._session else None):
            # those were about what the cell showed before
            self._agent_status = self._attention = self._agent_state = None
        self._session = session
        self.refresh()

    def set_active(self, active: bool) -> None:
        self._active = active
        if active:
            self._marks.clear()
            self._attention = None
        self.set_flag("active", active)
        self.refresh()

    def mark(self, name: str) -> None:
        """"bell", "activity" or "delivered", while the cell is not the active one."""
        if not self._active and name not in self._marks:
            self._marks.add(name)
            self.refresh()

    def set_agent_status(self, status: str | None) -> None:
        if status != self._agent_status:
            self._agent_status = status
            self.refresh()

    def needs_attention(self, message: str | None) -> None:
        """A call for the person (None: answered); shown until the cell becomes active or it is answered."""
        self._attention = message
        self.refresh()

    def set_agent_state(self, text: str | None) -> None:
        """What the agent's limit or liveness says ("limited until 15:00 · resumes in 12 min")."""
        if text != self._agent_state:
            self._agent_state = text
            self.refresh()

    def set_foreground(self, program: str | None) -> None:
        self._foreground = program
        self.refresh()

    def refresh(self) -> None:
        session = self._session
        if session is None:
            self.state_dot.setText("○")
            self.state_dot.setToolTip("Empty cell")
            self.title.setText("Empty")
            self.detail.setText("")
        else:
            dot, tip, tone = {
                SessionState.STARTING: ("◌", "Starting", "starting"),
                SessionState.RUNNING: ("●", "Running", "running"),
                SessionState.EXITED: ("○", session.describe_end(), "ended"),
                SessionState.FAILED: ("✕", session.describe_end(), "failed"),
            }[session.state]
            self.state_dot.setText(dot)
            self.state_dot.setProperty("tone", tone)
            self.state_dot.style().unpolish(self.state_dot)
            self.state_dot.style().polish(self.state_dot)
            self.state_dot.setToolTip(tip)
            self.title.setText(session.label)
            self.detail.setText(self._detail_text(session))
            self.detail.setToolTip(session.title or session.cwd)
        marks, tips = [], []
        for name, mark, tip in (
            ("delivered", "✉", "A task was delivered to this agent"),
            ("bell", "🔔", "Bell rang"),
            ("activity", "•", "New output"),
        ):
            if name in self._marks:
                marks.append(mark)
                tips.append(tip)
        self.marks.setText(" ".join(marks))
        self.marks.setToolTip("\n".join(tips))
        self.attention.setVisible(self._attention is not None)
        self.attention.setToolTip(f"Needs you: {self._attention}" if self._attention else "")

    def _detail_text(self, session: SessionInfo) -> str:
        parts = []
        if self._agent_state:
            parts.append(self._agent_state)
        if self._agent_status:
            parts.append(self._agent_status)
        if self._foreground and self._foreground != session.label and not session.agent_id:
            parts.append(self._foreground)
        if session.title:
            parts.append(session.title)
        return " — ".join(parts)  # how a program ended, or why it never started, the cell body says once

    # -- clicks and drags --

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            self._press = event.position().toPoint()
            extend = Qt.KeyboardModifier.ShiftModifier | Qt.KeyboardModifier.ControlModifier
            self.clicked.emit(bool(event.modifiers() & extend))
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
