"""The commit message and button, the author it will carry, and where push, fetch and pull requests are."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPlainTextEdit, QPushButton, QVBoxLayout, QWidget

from idea.domain.git.model import Identity
from idea.domain.git.notices import OUTGOING_NOTE
from idea.domain.wording import counted
from idea.ui.widgets.labels import HintLabel


class CommitBox(QWidget):
    commitRequested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.message = QPlainTextEdit()
        self.message.setAccessibleName("Commit message")
        self.message.setPlaceholderText("Commit message (Ctrl+Enter commits)")
        self.message.setMaximumHeight(90)
        self.message.textChanged.connect(self._update)
        self.message.installEventFilter(self)
        self.button = QPushButton("Commit")
        self.button.clicked.connect(self._commit)
        self.author = QLabel()
        self.author.setWordWrap(True)
        self.outgoing = HintLabel(OUTGOING_NOTE)
        self.outgoing.setObjectName("OutgoingNote")
        row = QHBoxLayout()
        row.addWidget(self.author, 1)
        row.addWidget(self.button)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.message)
        column.addLayout(row)
        column.addWidget(self.outgoing)
        self._staged = 0
        self._blocked: str | None = None
        self._busy = False
        self._update()

    def set_state(self, staged: int, identity: Identity | None, blocked: str | None, merging: bool) -> None:
        self._staged = staged if not merging else max(staged, 1)
        self._blocked = blocked
        who = identity.display() if identity is not None else "no author configured yet (asked on commit)"
        self.author.setText(f"Author: {who}")
        if merging and not self.message.toPlainText().strip():
            self.message.setPlaceholderText("Message of the merge commit that concludes the merge")
        self._update()

    def set_busy(self, busy: bool) -> None:
        self._busy = busy
        self.button.setText("Committing…" if busy else "Commit")
        self._update()

    def _update(self) -> None:
        has_text = bool(self.message.toPlainText().strip())
        self.button.setEnabled(not self._busy and has_text and self._staged > 0 and self._blocked is None)
        if self._blocked:
            self.button.setToolTip(self._blocked)
        elif not self._staged:
            self.button.setToolTip("Stage the changes to commit first.")
        else:
            self.button.setToolTip(f"Commit {counted(self._staged, 'staged file')}.")

    def _commit(self) -> None:
        if self.button.isEnabled():
            self.commitRequested.emit(self.message.toPlainText())

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if (
            watched is self.message
            and event.type() == QEvent.Type.KeyPress
            and isinstance(event, QKeyEvent)
            and event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter)
            and event.modifiers() & Qt.KeyboardModifier.ControlModifier
        ):
            self._commit()
            return True
        return super().eventFilter(watched, event)

    def committed(self) -> None:
        self.message.clear()
