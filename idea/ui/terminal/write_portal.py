"""The single writer to a terminal a person can type in (spec 03 §8.2, §8.4).

It counts what the person has typed on the current line, so a delivery never lands in the middle of a
half-typed command, and while IdeA types a task it holds the person's keys and pastes back and says so.
"""

from __future__ import annotations

import time
from typing import Any, Protocol, cast

from PySide6.QtCore import QEvent, QObject, QRect, Qt, Signal
from PySide6.QtGui import QKeyEvent, QMouseEvent
from PySide6.QtWidgets import QLabel, QWidget

from idea.ui.gui_thread import GuiThread

_LINE_ENDS = {Qt.Key.Key_Return.value, Qt.Key.Key_Enter.value}
_CONTROL_CLEARS = {Qt.Key.Key_C.value, Qt.Key.Key_U.value}  # Ctrl+C and Ctrl+U abandon the line
_HELD_EVENTS = {
    QEvent.Type.KeyPress,
    QEvent.Type.KeyRelease,
    QEvent.Type.ShortcutOverride,
    QEvent.Type.InputMethod,
}


class PortalView(Protocol):
    """A terminal view a person types in (`TerminalView`, `NativeTerminalView`): a widget whose `display` takes
    the keys."""

    pasting: Any  # Qt signal: the person pastes

    @property
    def display(self) -> QWidget: ...

    def set_paste_blocked(self, blocked: bool) -> None: ...

    def shift_enter_mapped(self, event: QKeyEvent) -> bool: ...

    def isVisible(self) -> bool: ...

    def rect(self) -> QRect: ...


class WritePortal(QObject):
    """Lives on the GUI thread with its view; the InputPortal methods may be called from the core loop."""

    lineSubmitted = Signal()  # the person pressed Enter in the terminal (not while IdeA types)

    def __init__(self, view: PortalView, gui: GuiThread) -> None:
        super().__init__(cast(QWidget, view))
        self._view = view
        self._gui = gui
        self._pending = 0
        self._last_key_at: float | None = None
        self._suspended = False
        view.display.installEventFilter(self)
        view.pasting.connect(self._pasted)
        self._overlay = QLabel(cast(QWidget, view))
        self._overlay.setObjectName("AgentTypingOverlay")
        self._overlay.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._overlay.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents, False)
        self._overlay.hide()

    # -- InputPortal (any thread) --

    def pending_human_chars(self) -> int:
        return self._pending

    def ms_since_last_keystroke(self) -> int | None:
        if self._last_key_at is None:
            return None
        return int((time.monotonic() - self._last_key_at) * 1000)

    async def suspend(self, banner: str) -> None:
        await self._gui.call(lambda: self._hold(banner))

    async def release(self) -> None:
        await self._gui.call(self._let_go)

    # -- GUI thread --

    @property
    def suspended(self) -> bool:
        return self._suspended

    def _hold(self, banner: str) -> None:
        # The count stays: the delivery reads it to erase what the person typed ("Deliver now").
        self._suspended = True
        self._view.set_paste_blocked(True)
        self._overlay.setText(banner)
        self._overlay.setGeometry(self._view.rect())
        self._overlay.raise_()
        self._overlay.setVisible(self._view.isVisible())

    def writing(self) -> None:
        """IdeA writes to the terminal (GUI thread). While it holds the keys, its first write is the erase of
        what the person typed (or the task, when nothing was typed): from then on the line is IdeA's."""
        if self._suspended:
            self._pending = 0

    def _let_go(self) -> None:
        self._suspended = False
        self._view.set_paste_blocked(False)
        self._overlay.hide()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # installed on the view's display only
        if self._suspended:
            if event.type() in _HELD_EVENTS:
                return True
            if isinstance(event, QMouseEvent) and event.button() == Qt.MouseButton.MiddleButton:
                return True  # a middle-click paste would mix with the delivery
            return False
        if event.type() == QEvent.Type.KeyPress and isinstance(event, QKeyEvent):
            self._count(event)
        return False

    def _count(self, event: QKeyEvent) -> None:
        self._last_key_at = time.monotonic()
        key, modifiers, text = event.key(), event.modifiers(), event.text()
        control = bool(modifiers & (Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.MetaModifier))
        if key in _LINE_ENDS and self._view.shift_enter_mapped(event):
            self._pending += 1  # a new line inside the person's prompt, not the end of it
        elif key in _LINE_ENDS or (control and key in _CONTROL_CLEARS):
            self._pending = 0
            if key in _LINE_ENDS and not self._suspended:
                self.lineSubmitted.emit()
        elif key == Qt.Key.Key_Backspace.value:
            self._pending = max(0, self._pending - 1)
        elif text and not control and text.isprintable():
            self._pending += len(text)

    def _pasted(self, text: str) -> None:
        self._last_key_at = time.monotonic()
        self._pending += len(text)
