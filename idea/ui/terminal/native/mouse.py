"""The mouse on a native terminal: reported to the program when it asked for it (modes 9, 1000, 1002, 1003; Shift
overrides), otherwise selecting text, pasting the selection with the middle button, and the wheel scrolling the
scrollback (or, on the alternate screen with mode 1007, sending arrow keys)."""

from __future__ import annotations


import evp
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QGuiApplication, QMouseEvent, QWheelEvent

from idea.ui.terminal.native.keys import modifiers_of
from idea.ui.terminal.native.painter import MARGIN
from idea.ui.terminal.native.selection import Selection
from idea.ui.terminal.native.surfaces import CanvasSurface, ViewSurface


WHEEL_LINES = 3
_MOUSE_REPORTING = (9, 1000, 1002, 1003)
_ALTERNATE_SCREENS = (1049, 1047, 47)
_ALTERNATE_SCROLL = 1007
_BUTTONS = {
    Qt.MouseButton.LeftButton: evp.MouseButton.LEFT,
    Qt.MouseButton.MiddleButton: evp.MouseButton.MIDDLE,
    Qt.MouseButton.RightButton: evp.MouseButton.RIGHT,
}


class MouseInput:
    def __init__(self, view: ViewSurface, canvas: CanvasSurface, selection: Selection) -> None:
        self._view = view
        self._canvas = canvas
        self._selection = selection
        self._pressed: evp.MouseButton | None = None

    def press(self, event: QMouseEvent) -> None:
        button = _BUTTONS.get(event.button())
        if self._reports(event) and button is not None:
            self._pressed = button
            self._report(evp.MouseAction.PRESS, event, button)
            return
        if event.button() == Qt.MouseButton.LeftButton:
            self._selection.start(self.cell_at(event.position().toPoint()))
            self._canvas.update()
        elif event.button() == Qt.MouseButton.MiddleButton:
            clipboard = QGuiApplication.clipboard()
            mode = clipboard.Mode.Selection if clipboard.supportsSelection() else clipboard.Mode.Clipboard
            self._view.paste_text(clipboard.text(mode))

    def move(self, event: QMouseEvent) -> None:
        if self._reports(event):
            self._report(evp.MouseAction.MOTION, event, self._pressed)
            return
        if event.buttons() & Qt.MouseButton.LeftButton and self._selection.active:
            self._selection.extend(self.cell_at(event.position().toPoint()))
            self._canvas.update()

    def release(self, event: QMouseEvent) -> None:
        button = _BUTTONS.get(event.button())
        if self._pressed is not None and button is not None and self._reports(event):
            self._pressed = None
            self._report(evp.MouseAction.RELEASE, event, button)
            return
        if event.button() == Qt.MouseButton.LeftButton and self._selection.active:
            self._selection.finish()
            text = self._view.selected_text()
            clipboard = QGuiApplication.clipboard()
            if text and clipboard.supportsSelection():
                clipboard.setText(text, clipboard.Mode.Selection)

    def double_click(self, event: QMouseEvent) -> None:
        if self._reports(event):
            self.press(event)
            return
        column, line = self.cell_at(event.position().toPoint())
        self._selection.select_word(self._view.screen.frame().rows[line], column, line)
        self._canvas.update()

    def wheel(self, event: QWheelEvent) -> None:
        delta = event.angleDelta().y()
        if not delta:
            return
        steps = delta // 120 or (1 if delta > 0 else -1)
        screen = self._view.screen
        if self._reports(event):
            button = evp.MouseButton.FOUR if steps > 0 else evp.MouseButton.FIVE
            column, line = self.cell_at(event.position().toPoint())
            for _ in range(abs(steps)):
                self._view.send(screen.mouse.encode(evp.MouseAction.PRESS, column, line, button=button))
        elif any(screen.mode(mode) for mode in _ALTERNATE_SCREENS):
            if screen.mode(_ALTERNATE_SCROLL):
                key = evp.Key.ARROW_UP if steps > 0 else evp.Key.ARROW_DOWN
                self._view.send(screen.keys.encode(key) * (abs(steps) * WHEEL_LINES))
        else:
            screen.scroll_viewport(-steps * WHEEL_LINES)
            self._selection.clear()
            self._canvas.update()

    def cell_at(self, point: QPoint) -> tuple[int, int]:
        metrics = self._canvas.metrics
        columns, lines = self._view.screen.size()
        column = min(max((point.x() - MARGIN) // metrics.width, 0), columns - 1)
        line = min(max((point.y() - MARGIN) // metrics.height, 0), lines - 1)
        return column, line

    def _reports(self, event: QMouseEvent | QWheelEvent) -> bool:
        if event.modifiers() & Qt.KeyboardModifier.ShiftModifier or self._view.has_exited():
            return False  # Shift: select even so
        return any(self._view.screen.mode(mode) for mode in _MOUSE_REPORTING)

    def _report(self, action: evp.MouseAction, event: QMouseEvent, button: evp.MouseButton | None) -> None:
        column, line = self.cell_at(event.position().toPoint())
        self._view.send(
            self._view.screen.mouse.encode(
                action,
                column,
                line,
                button=button,
                mods=modifiers_of(event.modifiers()),
                any_button_pressed=bool(event.buttons()),
            )
        )
