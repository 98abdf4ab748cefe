"""A strip above a window's or a tab's content that tells the person what went wrong with IdeA's files and
that nothing was lost. It never blocks: the person reads it when they like and dismisses it."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QToolButton, QWidget

from idea.ui.icons import icon


class ProblemBanner(QFrame):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("ProblemBanner")
        row = QHBoxLayout(self)
        row.setContentsMargins(8, 4, 4, 4)
        self.text = QLabel()
        self.text.setWordWrap(True)
        self.text.setStyleSheet("color: #1a1a1a;")
        # The messages name files and where their copies were kept: the person can select and copy them.
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        row.addWidget(self.text, 1)
        dismiss = QToolButton()
        dismiss.setIcon(icon("close", "#1a1a1a"))
        dismiss.setToolTip("Dismiss")
        dismiss.setAccessibleName("Dismiss")
        dismiss.clicked.connect(self.clear)
        row.addWidget(dismiss, 0, Qt.AlignmentFlag.AlignTop)
        self._messages: list[str] = []
        self.hide()

    @property
    def messages(self) -> list[str]:
        return list(self._messages)

    def add(self, message: str) -> None:
        if message not in self._messages:
            self._messages.append(message)
        self.text.setText("\n".join(self._messages))
        self.show()

    def clear(self) -> None:
        self._messages.clear()
        self.hide()
