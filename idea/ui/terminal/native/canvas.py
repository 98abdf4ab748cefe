"""The display of a native terminal: paints the screen and turns the keyboard, the mouse and the focus into what
the program reads. It fills its view (`ViewSurface`), which holds the state and the actions."""

from __future__ import annotations

from collections.abc import Callable

import evp
from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QColor, QFocusEvent, QKeyEvent, QMouseEvent, QPainter, QPaintEvent, QResizeEvent, QShowEvent, QWheelEvent
from PySide6.QtWidgets import QWidget

from idea.ui.terminal.font_zoom import cell_shortcuts
from idea.ui.terminal.native.keys import encode_key
from idea.ui.terminal.native.mouse import MouseInput
from idea.ui.terminal.native.painter import MARGIN, CellMetrics, RowPainter, paint_cursor
from idea.ui.terminal.native.surfaces import ViewSurface

_CTRL_SHIFT = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
_FOCUS_REPORTING = 1004


class TerminalCanvas(QWidget):
    def __init__(self, view: ViewSurface, metrics: CellMetrics) -> None:
        super().__init__(view)
        self._view = view
        self.metrics = metrics
        self._rows = RowPainter(metrics, self.devicePixelRatioF())
        self._mouse = MouseInput(view, self, view.selection)
        self.setObjectName("TerminalDisplay")
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent)
        self.setAttribute(Qt.WidgetAttribute.WA_InputMethodEnabled)
        self.setMouseTracking(True)
        self.setCursor(Qt.CursorShape.IBeamCursor)
        self._shortcuts = cell_shortcuts(view.copy, view.paste, view.toggle_find, view.zoom)

    def set_metrics(self, metrics: CellMetrics) -> None:
        self.metrics = metrics
        self.repaint_all()

    def repaint_all(self) -> None:
        """Paint every row anew (new font or colours)."""
        self._rows.reset(self.metrics, self.devicePixelRatioF())
        self.update()

    def grid_for_size(self) -> tuple[int, int]:
        """The columns and lines that fit the display now."""
        columns = max(1, (self.width() - 2 * MARGIN) // self.metrics.width)
        lines = max(1, (self.height() - 2 * MARGIN) // self.metrics.height)
        return columns, lines

    # Qt

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._view.display_resized()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._rows.reset(device_pixel_ratio=self.devicePixelRatioF())
        self._view.display_resized()

    def paintEvent(self, event: QPaintEvent) -> None:
        screen = self._view.screen
        painter = QPainter(self)
        background = QColor(*screen.frame().background)
        painter.fillRect(self.rect(), background)
        painter.translate(MARGIN, MARGIN)
        self._rows.paint_rows(painter, screen, background)
        self._view.selection.paint(painter, self.metrics, screen.size()[0])
        if not self._view.has_exited():
            paint_cursor(painter, screen, self.metrics, self.hasFocus())
        painter.end()

    # Keys

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ShortcutOverride and isinstance(event, QKeyEvent):
            if self._shortcut_for(event) is not None:
                event.accept()  # IdeA's own application shortcuts do not take these keys first
                return True
        if event.type() == QEvent.Type.KeyPress and isinstance(event, QKeyEvent):
            if event.key() in (Qt.Key.Key_Tab.value, Qt.Key.Key_Backtab.value):
                self.keyPressEvent(event)  # the program wants Tab and Shift+Tab, not a focus change
                return True
        return super().event(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        action = self._shortcut_for(event)
        if action is not None:
            action()
            return
        if self._view.shift_enter_mapped(event) and self._view.shift_enter:
            self._view.selection.clear()
            self._view.type_in(self._view.shift_enter.encode("utf-8"))  # a new line in an agent CLI's prompt
            return
        data = encode_key(self._view.screen.keys, event)
        if data:
            self._view.selection.clear()
            self._view.type_in(data)

    def _shortcut_for(self, event: QKeyEvent) -> Callable[[], None] | None:
        if event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier != _CTRL_SHIFT:
            return None
        return self._shortcuts.get(event.key())

    def inputMethodEvent(self, event: QEvent) -> None:  # type: ignore[override]
        text = event.commitString()  # type: ignore[attr-defined]
        if text:
            self._view.type_in(text.encode("utf-8"))

    def focusInEvent(self, event: QFocusEvent) -> None:
        super().focusInEvent(event)
        self._report_focus(evp.FocusEvent.GAINED)
        self._view.focused.emit()
        self.update()

    def focusOutEvent(self, event: QFocusEvent) -> None:
        super().focusOutEvent(event)
        self._report_focus(evp.FocusEvent.LOST)
        self.update()

    def _report_focus(self, focus: evp.FocusEvent) -> None:
        if self._view.screen.mode(_FOCUS_REPORTING):
            self._view.send(evp.encode_focus(focus))

    def focusNextPrevChild(self, next: bool) -> bool:  # noqa: A002 - Qt's name
        return False

    # Mouse (reported to the program when it asks, else selection, scrollback and paste)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        self.setFocus(Qt.FocusReason.MouseFocusReason)
        self._mouse.press(event)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        self._mouse.move(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        self._mouse.release(event)

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:
        self._mouse.double_click(event)

    def wheelEvent(self, event: QWheelEvent) -> None:
        self._mouse.wheel(event)
        event.accept()
