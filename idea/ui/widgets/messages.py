"""Messages to the person that never block the GUI thread (the core may be waiting on it), and the text of
an error as the person reads it."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox, QWidget

from idea.domain.errors import AppError


def error_text(error: BaseException) -> str:
    """What the user reads: the AppError sentence, or the unexpected error itself."""
    if isinstance(error, AppError):
        return error.message
    return f"Unexpected error: {error}"


def show_error(parent: QWidget, title: str, error: BaseException | str) -> QMessageBox:
    """A warning box opened without a nested event loop (the core may be waiting on the GUI thread)."""
    box = QMessageBox(QMessageBox.Icon.Warning, title, error if isinstance(error, str) else error_text(error),
                      QMessageBox.StandardButton.Ok, parent)
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    box.open()
    return box


def ask(
    parent: QWidget,
    title: str,
    text: str,
    accept_text: str,
    on_accept: Callable[[], None],
    *,
    informative: str = "",
    destructive: bool = False,
) -> QMessageBox:
    """A question with one accepting button and Cancel (the default, so Enter never destroys anything)."""
    box = QMessageBox(parent)
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    box.setIcon(QMessageBox.Icon.Warning if destructive else QMessageBox.Icon.Question)
    box.setWindowTitle(title)
    box.setText(text)
    if informative:
        box.setInformativeText(informative)
    role = QMessageBox.ButtonRole.DestructiveRole if destructive else QMessageBox.ButtonRole.AcceptRole
    accept = box.addButton(accept_text, role)
    cancel = box.addButton(QMessageBox.StandardButton.Cancel)
    box.setDefaultButton(cancel if destructive else accept)
    box.setEscapeButton(cancel)
    accept.clicked.connect(on_accept)
    box.open()
    return box


def ask_to_save(
    parent: QWidget, title: str, text: str, on_save: Callable[[], None], on_discard: Callable[[], None]
) -> QMessageBox:
    """Save, Discard or Cancel (the default is Save, Escape cancels), without a nested event loop."""
    buttons = QMessageBox.StandardButton
    box = QMessageBox(QMessageBox.Icon.Question, title, text, buttons.Save | buttons.Discard | buttons.Cancel, parent)
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    box.setDefaultButton(buttons.Save)
    box.setEscapeButton(buttons.Cancel)
    box.button(buttons.Save).clicked.connect(on_save)
    box.button(buttons.Discard).clicked.connect(on_discard)
    box.open()
    return box
