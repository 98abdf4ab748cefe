"""Answers agents gave to the person's tasks (idea_reply on a human ticket), shown at the top of the Agents
panel until dismissed, newest first. A long answer is cut here; Copy takes it whole."""

from __future__ import annotations

import html

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from idea.ui.theme import palette_colors

NOTICES_KEPT = 3
REPLY_SHOWN_CHARS = 280


class ReplyNotice(QFrame):
    dismissed = Signal()

    def __init__(self, agent_name: str, reply: str, at_text: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("ReplyNotice")
        self.agent_name = agent_name
        self.reply = reply
        title = QLabel(f"<b>{html.escape(agent_name)}</b> replied · {html.escape(at_text)}")
        title.setTextFormat(Qt.TextFormat.RichText)
        shown = reply.strip()
        if len(shown) > REPLY_SHOWN_CHARS:
            shown = shown[:REPLY_SHOWN_CHARS].rstrip() + "…"
        self.body = QLabel(shown)
        self.body.setTextFormat(Qt.TextFormat.PlainText)
        self.body.setWordWrap(True)
        self.body.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        copy = QToolButton()
        copy.setText("Copy")
        copy.setAutoRaise(True)
        copy.setToolTip("Copy the whole reply")
        copy.clicked.connect(lambda: QGuiApplication.clipboard().setText(self.reply))
        self.dismiss_button = QToolButton()
        self.dismiss_button.setText("✕")
        self.dismiss_button.setAutoRaise(True)
        self.dismiss_button.setToolTip("Dismiss")
        self.dismiss_button.setAccessibleName("Dismiss")
        self.dismiss_button.clicked.connect(self.dismissed.emit)
        header = QHBoxLayout()
        header.setSpacing(2)
        header.addWidget(title, 1)
        header.addWidget(copy)
        header.addWidget(self.dismiss_button)
        column = QVBoxLayout(self)
        column.setContentsMargins(10, 4, 4, 6)
        column.setSpacing(2)
        column.addLayout(header)
        column.addWidget(self.body)
        self._apply_colors()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self._apply_colors()

    def _apply_colors(self) -> None:
        c = palette_colors(self)
        sheet = (
            f"#ReplyNotice {{ background: {c.header_active}; border-left: 3px solid {c.accent};"
            f" border-bottom: 1px solid {c.border}; }}"
        )
        if sheet != self.styleSheet():  # a new style sheet changes the palette again
            self.setStyleSheet(sheet)


class ReplyNotices(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._column = QVBoxLayout(self)
        self._column.setContentsMargins(0, 0, 0, 0)
        self._column.setSpacing(0)
        self.setVisible(False)

    def add(self, agent_name: str, reply: str, at_text: str) -> ReplyNotice:
        notice = ReplyNotice(agent_name, reply, at_text)
        notice.dismissed.connect(lambda: self._remove(notice))
        self._column.insertWidget(0, notice)
        for old in self.notices()[NOTICES_KEPT:]:
            self._remove(old)
        self.setVisible(True)
        return notice

    def notices(self) -> list[ReplyNotice]:
        """Newest first."""
        items = (self._column.itemAt(index) for index in range(self._column.count()))
        widgets = (item.widget() for item in items if item is not None)
        return [widget for widget in widgets if isinstance(widget, ReplyNotice)]

    def clear(self) -> None:
        for notice in self.notices():
            self._remove(notice)

    def _remove(self, notice: ReplyNotice) -> None:
        self._column.removeWidget(notice)
        notice.deleteLater()
        self.setVisible(bool(self.notices()))
