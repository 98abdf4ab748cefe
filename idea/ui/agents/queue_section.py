"""The queue section of the Agents panel, under the list: the selected agent's tickets in order (head first)
with who sent them, what they ask and where they stand, a Cancel button for each, "Deliver now" when a
delivery has long waited for the person's line, and the Send task and Interrupt actions.

It only shows; the panel reads the core and acts (`cancelRequested`, `deliverNowRequested`).
"""

from __future__ import annotations

import html

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QAction, QColor, QPainter, QPaintEvent, QPalette, QResizeEvent
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from idea.application.agents.agent_activity import NOTHING_KNOWN, AgentActivity
from idea.domain.ids import TicketId
from idea.domain.orchestration.events import QueuedTicketView
from idea.domain.orchestration.tickets import TicketPhase
from idea.ui.theme import palette_colors
from idea.ui.widgets.labels import ElidedLabel

LABELLED_BUTTONS_MIN_WIDTH = 330
TICKETS_START = 2  # in the scrolled column: the waiting banner, the empty-queue line, then the tickets
PHASE_TEXT = {
    TicketPhase.QUEUED: "queued",
    TicketPhase.DELIVERING: "delivering",
    TicketPhase.DELIVERED: "delivered",
    TicketPhase.AWAITING_REPLY: "awaiting reply",
}


class TicketRow(QFrame):
    """One ticket: position, requester, state, preview of the task, and its Cancel button."""

    def __init__(self, ticket: QueuedTicketView, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ticket_id = ticket.ticket_id
        self.state_text = PHASE_TEXT.get(ticket.phase, str(ticket.phase))
        c = palette_colors(self)
        position = QLabel(str(ticket.position + 1))
        position.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        position.setFixedWidth(position.fontMetrics().horizontalAdvance("99"))
        self.requester = QLabel(f"from <b>{html.escape(ticket.requester_label)}</b>")
        self.requester.setTextFormat(Qt.TextFormat.RichText)
        self.state = QLabel(self.state_text)
        state_color = {
            TicketPhase.QUEUED: c.muted,
            TicketPhase.DELIVERING: c.warn,
            TicketPhase.DELIVERED: c.ok,
            TicketPhase.AWAITING_REPLY: c.accent,
        }.get(ticket.phase, c.muted)
        self.state.setStyleSheet(f"color: {state_color};")
        self.preview = ElidedLabel(ticket.task_preview)
        more = f"\n\n({ticket.task_len} characters in all)" if ticket.task_len > len(ticket.task_preview) else ""
        self.preview.setToolTip(ticket.task_preview + more)
        self.cancel_button = QToolButton()
        self.cancel_button.setText("Cancel")
        self.cancel_button.setAutoRaise(True)
        self.cancel_button.setToolTip(
            f"Stop waiting for this ticket; {ticket.requester_label} is told it was cancelled. "
            "The agent is not interrupted (use Interrupt for that)."
            if ticket.delivered
            else "Take this ticket out of the queue; it is never typed into the terminal."
        )
        grid = QGridLayout(self)
        grid.setContentsMargins(8, 4, 4, 4)
        grid.setHorizontalSpacing(6)
        grid.setVerticalSpacing(1)
        grid.addWidget(position, 0, 0)
        grid.addWidget(self.requester, 0, 1)
        grid.addWidget(self.state, 0, 2, Qt.AlignmentFlag.AlignRight)
        grid.addWidget(self.cancel_button, 0, 3, 2, 1, Qt.AlignmentFlag.AlignVCenter)
        grid.addWidget(self.preview, 1, 1, 1, 2)
        grid.setColumnStretch(1, 1)

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        painter = QPainter(self)
        painter.setPen(QColor(palette_colors(self).border))
        painter.drawLine(self.rect().bottomLeft(), self.rect().bottomRight())


class QueueSection(QWidget):
    """`cancelRequested(ticket_id)`, `deliverNowRequested(ticket_id)`: the person's gestures."""

    cancelRequested = Signal(str)
    deliverNowRequested = Signal(str)

    def __init__(self, send_action: QAction, interrupt_action: QAction, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._shown: tuple[QueuedTicketView, ...] | None = None
        self._rows: list[TicketRow] = []
        self._waiting_ticket: TicketId | None = None

        self.title = ElidedLabel()
        title_font = self.title.font()
        title_font.setBold(True)
        self.title.setFont(title_font)
        header = QHBoxLayout()
        header.setContentsMargins(8, 4, 4, 2)
        header.addWidget(self.title, 1)
        self._header_buttons: list[QToolButton] = []
        for action in (send_action, interrupt_action):
            button = QToolButton()
            button.setDefaultAction(action)
            button.setAutoRaise(True)
            header.addWidget(button)
            self._header_buttons.append(button)

        self.waiting_banner = QFrame()
        self.waiting_banner.setObjectName("WaitingBanner")
        self.waiting_text = QLabel()
        self.waiting_text.setWordWrap(True)
        self.deliver_now_button = QPushButton("Deliver now (clears your line)")
        self.deliver_now_button.setToolTip("Erase what is typed on the agent's input line and type the task now")
        self.deliver_now_button.clicked.connect(self._deliver_now)
        banner = QVBoxLayout(self.waiting_banner)
        banner.setContentsMargins(10, 6, 8, 6)
        banner.addWidget(self.waiting_text)
        banner.addWidget(self.deliver_now_button, 0, Qt.AlignmentFlag.AlignLeft)

        self.empty = QLabel()
        self.empty.setWordWrap(True)
        self.empty.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.empty.setContentsMargins(8, 6, 8, 6)
        self._tickets = QWidget()
        self._ticket_column = QVBoxLayout(self._tickets)
        self._ticket_column.setContentsMargins(0, 0, 0, 0)
        self._ticket_column.setSpacing(0)
        self._ticket_column.addWidget(self.waiting_banner)  # scrolled with the tickets: never squeezed
        self._ticket_column.addWidget(self.empty)
        self._ticket_column.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setWidget(self._tickets)

        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(2)
        column.addLayout(header)
        column.addWidget(scroll, 1)
        self._apply_colors()
        self.show_agent(None, None, running=False)

    def show_agent(self, name: str | None, activity: AgentActivity | None, *, running: bool) -> None:
        """The selected agent's queue (None: no agent selected)."""
        activity = activity or NOTHING_KNOWN
        self.title.set_full_text(f"Queue of {name}" if name else "Queue")
        waiting = activity.waiting
        self._waiting_ticket = waiting.ticket if waiting is not None else None
        self.waiting_banner.setVisible(waiting is not None)
        if waiting is not None:
            self.waiting_text.setText(
                f"A task from {waiting.requester_label} is waiting — send or clear your line in {name}'s terminal."
            )
        if name is None:
            self.empty.setText("Select an agent to see its queue.")
        elif running:
            self.empty.setText("No tickets. Tasks from you and from other agents wait here, first in first out.")
        else:
            self.empty.setText(f"{name} is not running. A task sent to it starts it.")
        self.empty.setVisible(not activity.tickets)
        if activity.tickets != self._shown:
            self._show_tickets(activity.tickets)

    def ticket_rows(self) -> list[TicketRow]:
        return list(self._rows)

    def _show_tickets(self, tickets: tuple[QueuedTicketView, ...]) -> None:
        self._shown = tickets
        for row in self._rows:
            self._ticket_column.removeWidget(row)
            row.deleteLater()
        self._rows = []
        for index, ticket in enumerate(tickets):
            row = TicketRow(ticket)
            row.cancel_button.clicked.connect(lambda _checked=False, t=ticket.ticket_id: self.cancelRequested.emit(t))
            self._ticket_column.insertWidget(TICKETS_START + index, row)
            self._rows.append(row)

    def _deliver_now(self) -> None:
        if self._waiting_ticket is not None:
            self.deliverNowRequested.emit(self._waiting_ticket)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        # A narrow dock keeps the agent's name readable: the buttons lose their text, not their tooltips.
        style = (
            Qt.ToolButtonStyle.ToolButtonTextBesideIcon
            if event.size().width() >= LABELLED_BUTTONS_MIN_WIDTH
            else Qt.ToolButtonStyle.ToolButtonIconOnly
        )
        for button in self._header_buttons:
            button.setToolButtonStyle(style)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and self._shown is not None:
            # The theme changed: the banner and the ticket states are drawn in its colours.
            self._apply_colors()
            self._show_tickets(self._shown)

    def _apply_colors(self) -> None:
        c = palette_colors(self)
        sheet = f"#WaitingBanner {{ background: {c.header_active}; border-left: 3px solid {c.warn}; }}"
        if sheet != self.waiting_banner.styleSheet():
            self.waiting_banner.setStyleSheet(sheet)
