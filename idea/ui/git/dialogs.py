"""Small dialogs of the git screens, all opened without a nested event loop: the commit author, a one-line
answer (a branch name), and the confirmation that shows what removing a worktree would lose."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from idea.domain.errors import AppError
from idea.domain.git.model import Identity
from idea.ui.theme import monospace_font
from idea.ui.widgets.labels import HintLabel, label_for


class IdentityDialog(QDialog):
    """git has no author for commits yet: ask for one, for this repository or all of them."""

    def __init__(self, on_identity: Callable[[Identity, bool], None], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.setWindowTitle("Who is the author of this commit?")
        self._on_identity = on_identity
        intro = QLabel(
            "git needs a name and an email address for commits (user.name and user.email); none is configured."
        )
        intro.setWordWrap(True)
        self.name = QLineEdit()
        self.email = QLineEdit()
        self.email.setPlaceholderText("you@example.org")
        self.everywhere = QCheckBox("Use for all my repositories (global git config)")
        self.message = HintLabel("")
        form = QFormLayout()
        form.addRow("Name", self.name)
        form.addRow("Email", self.email)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Save and commit")
        self.buttons.accepted.connect(self._accept)
        self.buttons.rejected.connect(self.reject)
        column = QVBoxLayout(self)
        column.addWidget(intro)
        column.addLayout(form)
        column.addWidget(self.everywhere)
        column.addWidget(self.message)
        column.addWidget(self.buttons)

    def _accept(self) -> None:
        try:
            identity = Identity(self.name.text().strip(), self.email.text().strip())
        except AppError as exc:
            self.message.show_error(exc.message)
            return
        self.accept()
        self._on_identity(identity, self.everywhere.isChecked())


class LineDialog(QDialog):
    """One line of text: `on_text(text)` when accepted with something in it (or anything, if `allow_empty`)."""

    def __init__(
        self,
        title: str,
        label: str,
        on_text: Callable[[str], None],
        *,
        text: str = "",
        hint: str = "",
        accept_text: str = "OK",
        allow_empty: bool = False,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.setMinimumWidth(420)
        self._on_text = on_text
        self.field = QLineEdit(text)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        ok.setText(accept_text)
        if not allow_empty:
            self.field.textChanged.connect(lambda value: ok.setEnabled(bool(value.strip())))
            ok.setEnabled(bool(text.strip()))
        self.buttons.accepted.connect(self._accept)
        self.buttons.rejected.connect(self.reject)
        column = QVBoxLayout(self)
        column.addWidget(label_for(label, self.field))
        column.addWidget(self.field)
        if hint:
            column.addWidget(HintLabel(hint))
        column.addWidget(self.buttons)

    def _accept(self) -> None:
        self.accept()
        self._on_text(self.field.text().strip())


class LossDialog(QDialog):
    """What an action would lose, listed in full, with a destructive button and Cancel as the default."""

    def __init__(self, title: str, text: str, details: str, accept_text: str, on_accept: Callable[[], None],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.setMinimumSize(520, 320)
        intro = QLabel(text)
        intro.setWordWrap(True)
        self.details = QPlainTextEdit(details)
        self.details.setAccessibleName("Details")
        self.details.setReadOnly(True)
        self.details.setFont(monospace_font())
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.accept_button = self.buttons.addButton(accept_text, QDialogButtonBox.ButtonRole.DestructiveRole)
        cancel = self.buttons.button(QDialogButtonBox.StandardButton.Cancel)
        cancel.setDefault(True)
        self.accept_button.clicked.connect(self.accept)
        self.accept_button.clicked.connect(on_accept)
        self.buttons.rejected.connect(self.reject)
        column = QVBoxLayout(self)
        column.addWidget(intro)
        column.addWidget(self.details, 1)
        column.addWidget(self.buttons)
