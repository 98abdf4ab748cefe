"""What the knowledge views share: how they reach the core, the theme colours, times, and a message line."""

from __future__ import annotations

import concurrent.futures
import datetime
from collections.abc import Callable, Coroutine
from typing import Any, Protocol, TypeVar

import shiboken6
from PySide6.QtCore import Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QLabel,
    QLayout,
    QListWidget,
    QMessageBox,
    QPushButton,
    QSplitter,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from idea.domain.errors import AppError
from idea.domain.events import OrchestrationNews
from idea.domain.workspace import ColorScheme
from idea.ui.theme import Colors, colors

T = TypeVar("T")


class Caller(Protocol):
    """`CoreClient`: run a coroutine on the core loop, get its result (or error) back on the GUI thread."""

    def call(
        self,
        coro: Coroutine[Any, Any, T],
        on_done: Callable[[T], None] | None = None,
        on_error: Callable[[BaseException], None] | None = None,
    ) -> concurrent.futures.Future[T]: ...


def call_for(
    widget: QWidget,
    caller: Caller,
    coro: Coroutine[Any, Any, T],
    on_done: Callable[[T], object],
    on_error: Callable[[BaseException], object],
) -> None:
    """`caller.call` whose callbacks are dropped when `widget` was destroyed meanwhile (a closed tab).

    The widget and the callbacks (bound methods of widgets) are handed over in a box emptied on the GUI
    thread: the core thread, which holds the completion callback for a while, never holds the last reference
    to a widget, so a widget is never destroyed on it (Qt would keep its timers and crash later)."""
    box: list[tuple[QWidget, Callable[[T], object], Callable[[BaseException], object]]] = [(widget, on_done, on_error)]

    def done(value: T) -> None:
        if box:
            alive, succeeded, _failed = box.pop()
            if shiboken6.isValid(alive):
                succeeded(value)

    def failed(error: BaseException) -> None:
        if box:
            alive, _succeeded, reported = box.pop()
            if shiboken6.isValid(alive):
                reported(error)

    caller.call(coro, done, failed)


def theme_of(widget: QWidget) -> Colors:
    dark = widget.palette().color(QPalette.ColorRole.Window).lightness() < 128
    return colors(ColorScheme.DARK if dark else ColorScheme.LIGHT)


def message_of(error: BaseException) -> str:
    return error.message if isinstance(error, AppError) else f"Unexpected error: {error}"


def clock_time(at_ms: int, now_ms: int | None = None) -> str:
    """`14:03` today, `12 Jun 14:03` on another day (local time)."""
    moment = datetime.datetime.fromtimestamp(at_ms / 1000)
    today = datetime.datetime.fromtimestamp(now_ms / 1000) if now_ms is not None else datetime.datetime.now()
    return moment.strftime("%H:%M") if moment.date() == today.date() else moment.strftime("%d %b %H:%M")


def unwrapped(event: object) -> object:
    """The orchestration core's events travel inside OrchestrationNews."""
    return event.event if isinstance(event, OrchestrationNews) else event


class StatusLine(QLabel):
    """One line under a view: what just happened, or what went wrong (in the theme's error colour)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWordWrap(True)
        self.setContentsMargins(8, 2, 8, 4)
        self.hide()

    def say(self, text: str) -> None:
        self.setStyleSheet(f"color: {theme_of(self).muted};")
        self._show(text)

    def fail(self, error: BaseException | str) -> None:
        self.setStyleSheet(f"color: {theme_of(self).error};")
        self._show(error if isinstance(error, str) else message_of(error))

    def _show(self, text: str) -> None:
        self.setText(text)
        self.setVisible(bool(text))


def tool_button(text: str, tip: str, slot: Callable[[], object]) -> QToolButton:
    button = QToolButton()
    button.setText(text)
    button.setToolTip(tip)
    button.setAutoRaise(True)
    button.clicked.connect(slot)
    return button


def column(*parts: QWidget | QLayout | tuple[QWidget, int]) -> QWidget:
    """A widget stacking `parts` (a widget, a layout, or a widget with its stretch), without margins."""
    box = QWidget()
    layout = QVBoxLayout(box)
    layout.setContentsMargins(0, 0, 0, 0)
    for part in parts:
        if isinstance(part, tuple):
            layout.addWidget(part[0], part[1])
        elif isinstance(part, QLayout):
            layout.addLayout(part)
        else:
            layout.addWidget(part)
    return box


def list_and_editor(owner: QWidget, heading: str, items: QListWidget, new_button: QPushButton, editor: QWidget) -> StatusLine:
    """The layout of the Memory and Skills views: a heading, the list (with its "New" button) beside the
    editor, a status line under both; returns the status line."""
    items.setWordWrap(True)
    items.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    split = QSplitter()
    split.addWidget(column((items, 1), new_button))
    split.addWidget(editor)
    split.setStretchFactor(1, 3)
    status = StatusLine()
    layout = QVBoxLayout(owner)
    layout.setContentsMargins(6, 6, 6, 6)
    layout.addWidget(QLabel(heading))
    layout.addWidget(split, 1)
    layout.addWidget(status)
    return status


def confirm(parent: QWidget, title: str, text: str, action: str, on_accept: Callable[[], object]) -> QMessageBox:
    """A question opened without a nested event loop (the core may be waiting on the GUI thread)."""
    box = QMessageBox(QMessageBox.Icon.Question, title, text, QMessageBox.StandardButton.Cancel, parent)
    box.addButton(action, QMessageBox.ButtonRole.DestructiveRole).clicked.connect(on_accept)
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    box.open()
    return box
