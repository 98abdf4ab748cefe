"""The human net's toasts (spec 05 §10): non-modal cards in the bottom-right corner of the window, over the
grid, one per agent IdeA cannot resume by itself. Each says why, offers a time to resume at (pre-filled) and
the net's answers — "Resume at this time", "Not a limit — dismiss" (or "Keep waiting" for a stall),
"Interrupt agent" — plus "Show" and a close button. Closing a toast leaves the net open under Needs you
(Agents panel) and in the work panel. Which toasts show is `NetToasts`' rule; this only draws them."""

from __future__ import annotations

from PySide6.QtCore import QDateTime, QEvent, QObject, Qt, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QDateTimeEdit,
    QFrame,
    QGraphicsDropShadowEffect,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from idea.application.agents.net_toasts import INTERRUPT, NetToast, ShownToasts
from idea.domain.ids import AgentId

TOAST_WIDTH = 400
FRAME_STYLE = "border: 1px solid palette(highlight); border-radius: 6px;"
MARGIN = 16


class NetToastCard(QFrame):
    def __init__(self, toast: NetToast, overlay: NetToastOverlay) -> None:
        super().__init__(overlay)
        self.toast = toast
        self.setObjectName("NetToast")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAutoFillBackground(True)
        self.setBackgroundRole(QPalette.ColorRole.Window)
        self.setFixedWidth(TOAST_WIDTH)
        self.setStyleSheet(f"#NetToast {{ {FRAME_STYLE} }}")
        shadow = QGraphicsDropShadowEffect(self)
        shadow.setBlurRadius(18)
        shadow.setOffset(0, 3)
        self.setGraphicsEffect(shadow)
        column = QVBoxLayout(self)
        column.setContentsMargins(12, 8, 8, 10)
        column.setSpacing(6)
        head = QHBoxLayout()
        where = " · in the background" if toast.in_background else ""
        self.title = QLabel(f"<b>{toast.name} needs you</b>{where}")
        head.addWidget(self.title, 1)
        agent = toast.agent_id
        show = QToolButton()
        show.setText("Show")
        show.setAutoRaise(True)
        show.setToolTip("Go to its cell (a background agent is shown in a cell)")
        show.clicked.connect(lambda: overlay.showRequested.emit(agent))
        head.addWidget(show, 0, Qt.AlignmentFlag.AlignTop)
        self.close_button = QToolButton()
        self.close_button.setText("✕")
        self.close_button.setAutoRaise(True)
        self.close_button.setToolTip("Hide this notice (the agent stays under Needs you in the Agents panel)")
        self.close_button.setAccessibleName("Hide this notice")
        self.close_button.clicked.connect(lambda: overlay.closeRequested.emit(toast))
        head.addWidget(self.close_button, 0, Qt.AlignmentFlag.AlignTop)
        column.addLayout(head)
        self.label = QLabel(toast.text)
        self.label.setWordWrap(True)
        column.addWidget(self.label)
        when = QHBoxLayout()
        self.time_edit = QDateTimeEdit(QDateTime.fromMSecsSinceEpoch(toast.prefill_ms))
        self.time_edit.setCalendarPopup(True)
        self.time_edit.setDisplayFormat("yyyy-MM-dd HH:mm")
        self.time_edit.setToolTip("When IdeA resumes it")
        when.addWidget(self.time_edit, 1)
        resume = self._button(when, "Resume at this time")
        resume.clicked.connect(
            lambda: overlay.resumeAtRequested.emit(agent, self.time_edit.dateTime().toMSecsSinceEpoch())
        )
        column.addLayout(when)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        for answer in toast.answers:
            signal = overlay.interruptRequested if answer == INTERRUPT else overlay.dismissRequested
            self._button(buttons, answer).clicked.connect(lambda _checked=False, s=signal: s.emit(agent))
        column.addLayout(buttons)

    @staticmethod
    def _button(row: QHBoxLayout, text: str) -> QPushButton:
        button = QPushButton(text)
        button.setAutoDefault(False)
        row.addWidget(button)
        return button


class NetToastOverlay(QWidget):
    """Lives on `host` (the window's central area) and keeps to its bottom-right corner."""

    showRequested = Signal(str)
    resumeAtRequested = Signal(str, object)  # agent id, epoch ms
    dismissRequested = Signal(str)
    interruptRequested = Signal(str)
    closeRequested = Signal(object)  # the NetToast whose close button was pressed
    goToTabRequested = Signal(str)  # a project id: one of its agents needs the person (`ElsewhereNets`)

    def __init__(self, host: QWidget) -> None:
        super().__init__(host)
        self.setObjectName("NetToasts")
        self._host = host
        self._column = QVBoxLayout(self)
        self._column.setContentsMargins(0, 0, 0, 0)
        self._column.setSpacing(8)
        self.more = QLabel()
        self.more.setObjectName("NetToastsMore")
        self.more.setAutoFillBackground(True)
        self.more.setContentsMargins(8, 4, 8, 4)
        self._column.addWidget(self.more, 0, Qt.AlignmentFlag.AlignRight)
        self._elsewhere: list[QFrame] = []
        self._cards: dict[tuple[AgentId, int], NetToastCard] = {}
        host.installEventFilter(self)
        self.hide()

    def cards(self) -> list[NetToastCard]:
        return [self._cards[key] for key in sorted(self._cards, key=lambda k: -k[1])]

    def show_toasts(self, shown: ShownToasts) -> None:
        wanted = {toast.key: toast for toast in shown.toasts}
        for key in [k for k in self._cards if k not in wanted]:
            card = self._cards.pop(key)
            card.hide()
            card.deleteLater()
        for index, toast in enumerate(shown.toasts):
            card = self._cards.get(toast.key)
            if card is None:
                card = NetToastCard(toast, self)
                self._cards[toast.key] = card
            self._column.insertWidget(index, card)  # the most recent on top
        self.more.setText(f"{shown.more} more under Needs you (Agents panel)" if shown.more else "")
        self.more.setVisible(bool(shown.more))
        self._update()

    def elsewhere_texts(self) -> list[str]:
        return [line.findChild(QLabel).text() for line in self._elsewhere]  # type: ignore[union-attr]

    def show_elsewhere(self, lines: list[tuple[str, str]]) -> None:
        """(project id, what to say) for agents of the window's other tabs that need the person."""
        for line in self._elsewhere:
            line.hide()
            line.deleteLater()
        self._elsewhere = []
        for project_id, text in lines:
            line = QFrame(self)
            line.setObjectName("NetToastElsewhere")
            line.setStyleSheet(f"#NetToastElsewhere {{ {FRAME_STYLE} }}")
            line.setFrameShape(QFrame.Shape.StyledPanel)
            line.setAutoFillBackground(True)
            row = QHBoxLayout(line)
            row.setContentsMargins(10, 4, 6, 4)
            label = QLabel(text)
            label.setWordWrap(True)
            row.addWidget(label, 1)
            go = QPushButton("Go to its tab")
            go.setAutoDefault(False)
            go.clicked.connect(lambda _checked=False, p=project_id: self.goToTabRequested.emit(p))
            row.addWidget(go)
            line.setFixedWidth(TOAST_WIDTH)
            self._column.addWidget(line)
            self._elsewhere.append(line)
        self._update()

    def _update(self) -> None:
        self.setVisible(bool(self._cards) or self.more.isVisibleTo(self) or bool(self._elsewhere))
        self._place()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self._host and event.type() in (QEvent.Type.Resize, QEvent.Type.Show):
            self._place()
        return False

    def _place(self) -> None:
        if not self.isVisible():
            return
        self.adjustSize()
        size = self.sizeHint()
        area = self._host.rect()
        self.setGeometry(
            max(0, area.right() - MARGIN - size.width()), max(0, area.bottom() - MARGIN - size.height()),
            size.width(), size.height(),
        )
        self.raise_()
