"""The terminal widget a native cell shows: libghostty's screen painted with QPainter, keys and mouse encoded
for the program, selection, copy and paste, scrollback and find.

It offers what the QTermWidget view offers the cell, the portal and the menus (the same signals and actions),
and owns no process: the session feeds it the program's output (`feed`) and gets the bytes to send through
`set_sender`. Resizes are debounced to one per pause, as in the QTermWidget view.
"""

from __future__ import annotations

from collections.abc import Callable

import evp
from PySide6.QtCore import QEvent, Qt, QTimer, Signal
from PySide6.QtGui import (
    QColor,
    QFocusEvent,
    QGuiApplication,
    QKeyEvent,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QResizeEvent,
    QShowEvent,
    QWheelEvent,
)
from PySide6.QtWidgets import QWidget

from idea.ui.terminal.appearance import MIN_POINT_SIZE, TerminalAppearance
from idea.ui.terminal.native.find_bar import FindBar
from idea.ui.terminal.native.keys import encode_key
from idea.ui.terminal.native.mouse import MouseInput
from idea.ui.terminal.native.painter import MARGIN, CellMetrics, RowPainter, paint_cursor
from idea.ui.terminal.native.screen import TerminalScreen
from idea.ui.terminal.native.selection import Selection

RESIZE_DEBOUNCE_MS = 150
PAINT_INTERVAL_MS = 40  # at most 25 repaints a second while output streams, as QTermWidget
SILENCE_MS = 2000
_CTRL_SHIFT = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
_FOCUS_REPORTING = 1004
_BRACKETED_PASTE = 2004


class NativeTerminalView(QWidget):
    bell = Signal()
    activity = Signal()
    silence = Signal()
    titleChanged = Signal(str)
    exited = Signal(object)  # the exit code (-N when signal N ended it), or None when unknown
    focused = Signal()
    pasting = Signal(str)  # the clipboard text a person is about to paste
    gridResized = Signal(int, int)  # columns, lines: the program's window changed size

    def __init__(
        self, appearance: TerminalAppearance, columns: int, lines: int, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self._appearance = appearance
        self._zoom_steps = 0
        self._send: Callable[[bytes], None] = lambda _data: None
        self._paste_blocked = False
        self._has_exited = False
        self._silent = True
        self._title = ""
        self.screen = TerminalScreen(
            columns,
            lines,
            appearance.colors(),
            appearance.history_lines,
            reply=lambda data: self._send(data),
            on_title=self._on_title,
            on_bell=self.bell.emit,
        )
        self._metrics = CellMetrics(appearance.font())
        self._rows = RowPainter(self._metrics, self.devicePixelRatioF())
        self._selection = Selection()
        self._mouse = MouseInput(self, self._selection)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent)
        self.setAttribute(Qt.WidgetAttribute.WA_InputMethodEnabled)
        self.setMouseTracking(True)
        self.setCursor(Qt.CursorShape.IBeamCursor)
        self._find = FindBar(self, self.screen, self._selection)
        self._find.closed.connect(self.focus_terminal)

        self._paint_timer = self._timer(PAINT_INTERVAL_MS, self.update)
        self._resize_timer = self._timer(RESIZE_DEBOUNCE_MS, self._fit_grid)
        self._silence_timer = self._timer(SILENCE_MS, self._on_silence)
        self._shortcuts: dict[int, Callable[[], None]] = {
            Qt.Key.Key_C.value: self.copy,
            Qt.Key.Key_V.value: self.paste,
            Qt.Key.Key_F.value: self.toggle_find,
            Qt.Key.Key_Equal.value: self.zoom_in,
            Qt.Key.Key_Plus.value: self.zoom_in,
            Qt.Key.Key_Minus.value: self.zoom_out,
            Qt.Key.Key_Underscore.value: self.zoom_out,
            Qt.Key.Key_0.value: self.zoom_reset,
            Qt.Key.Key_ParenRight.value: self.zoom_reset,
        }

    def _timer(self, interval_ms: int, slot: Callable[[], None]) -> QTimer:
        timer = QTimer(self)
        timer.setSingleShot(True)
        timer.setInterval(interval_ms)
        timer.timeout.connect(slot)
        return timer

    @property
    def display(self) -> QWidget:
        """The widget that takes the keyboard (the write portal watches it)."""
        return self

    # The program's side

    def set_sender(self, send: Callable[[bytes], None]) -> None:
        """Where the bytes for the program go: keys, mouse reports, pastes and the screen's answers."""
        self._send = send

    def feed(self, data: bytes) -> None:
        """Output of the program (GUI thread)."""
        self.screen.feed(data)
        if self._silent:
            self._silent = False
            self.activity.emit()
        self._silence_timer.start()
        if self.isVisible() and not self._paint_timer.isActive():
            self._paint_timer.start()

    def mark_exited(self, code: int | None) -> None:
        self._has_exited = True
        self.update()
        self.exited.emit(code)

    def has_exited(self) -> bool:
        return self._has_exited

    def _on_title(self, title: str) -> None:
        if title != self._title:
            self._title = title
            self.titleChanged.emit(title)

    def _on_silence(self) -> None:
        self._silent = True
        self.silence.emit()

    # Size

    def set_grid_size(self, columns: int, lines: int) -> None:
        """Give the program a window of `columns` × `lines` while no cell shows this view."""
        self._apply_grid(columns, lines)

    def grid_size(self) -> tuple[int, int]:
        return self.screen.size()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._find.place()
        self._resize_timer.start()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._rows.reset(device_pixel_ratio=self.devicePixelRatioF())
        self._resize_timer.start()

    def _fit_grid(self) -> None:
        if not self.isVisible():
            return
        columns = max(1, (self.width() - 2 * MARGIN) // self._metrics.width)
        lines = max(1, (self.height() - 2 * MARGIN) // self._metrics.height)
        self._apply_grid(columns, lines)

    def _apply_grid(self, columns: int, lines: int) -> None:
        if (columns, lines) == self.screen.size():
            return
        self.screen.resize(columns, lines)
        self._selection.clear()
        self.gridResized.emit(columns, lines)
        self.update()

    # Painting

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        background = QColor(*self.screen.frame().background)
        painter.fillRect(self.rect(), background)
        painter.translate(MARGIN, MARGIN)
        self._rows.paint_rows(painter, self.screen, background)
        self._selection.paint(painter, self._metrics, self.screen.size()[0])
        if not self._has_exited:
            paint_cursor(painter, self.screen, self._metrics, self.hasFocus())
        painter.end()

    # Reading

    def screen_text(self) -> str:
        """The visible screen: one line per row, trailing spaces trimmed."""
        return "\n".join(self.screen.text_rows())

    def selected_text(self) -> str:
        return self._selection.text(self.screen.frame().rows)

    # Actions (also offered by the cell's menu)

    def focus_terminal(self) -> None:
        self.setFocus(Qt.FocusReason.OtherFocusReason)

    def copy(self) -> None:
        text = self.selected_text()
        if text:
            QGuiApplication.clipboard().setText(text)

    def paste(self) -> None:
        self._paste_text(QGuiApplication.clipboard().text())

    def _paste_text(self, text: str) -> None:
        if self._paste_blocked or not text or self._has_exited:
            return
        self.pasting.emit(text)
        self._send_input(evp.encode_paste(text, bracketed=self.screen.mode(_BRACKETED_PASTE)))

    def paste_text(self, text: str) -> None:
        """Paste `text` as the clipboard would (a middle click pastes the selection this way)."""
        self._paste_text(text)

    def send(self, data: bytes) -> None:
        """Bytes for the program that are no typing (mouse reports): the view stays where it is scrolled."""
        if data and not self._has_exited:
            self._send(data)

    @property
    def metrics(self) -> CellMetrics:
        return self._metrics

    def set_paste_blocked(self, blocked: bool) -> None:
        """While an agent's task is being typed, a paste would mix with it."""
        self._paste_blocked = blocked

    def toggle_find(self) -> None:
        """Show or hide the find bar, which finds text in the scrollback (Enter: previous, Esc: close)."""
        self._find.toggle()

    def zoom_in(self) -> None:
        self._set_zoom(self._zoom_steps + 1)

    def zoom_out(self) -> None:
        self._set_zoom(self._zoom_steps - 1)

    def zoom_reset(self) -> None:
        self._set_zoom(0)

    def _set_zoom(self, steps: int) -> None:
        if self._appearance.point_size + steps < MIN_POINT_SIZE or steps == self._zoom_steps:
            return
        self._zoom_steps = steps
        self._apply_font()

    def _apply_font(self) -> None:
        self._metrics = CellMetrics(self._appearance.font(self._zoom_steps))
        self._rows.reset(self._metrics)
        self._resize_timer.start()
        self.update()

    # Appearance

    @property
    def appearance(self) -> TerminalAppearance:
        return self._appearance

    def set_appearance(self, appearance: TerminalAppearance) -> None:
        """New font or colours. (The scrollback size is fixed when the view is made.)"""
        previous, self._appearance = self._appearance, appearance
        if (previous.font_family, previous.point_size) != (appearance.font_family, appearance.point_size):
            self._apply_font()
        if previous.scheme != appearance.scheme:
            self.screen.set_colors(appearance.colors())
            self._rows.reset()
            self.update()

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
        data = encode_key(self.screen.keys, event)
        if data and not self._has_exited:
            self._selection.clear()
            self._send_input(data)

    def _shortcut_for(self, event: QKeyEvent) -> Callable[[], None] | None:
        if event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier != _CTRL_SHIFT:
            return None
        return self._shortcuts.get(event.key())

    def _send_input(self, data: bytes) -> None:
        self.screen.scroll_to_bottom()
        self._send(data)
        self.update()

    def inputMethodEvent(self, event: QEvent) -> None:  # type: ignore[override]
        text = event.commitString()  # type: ignore[attr-defined]
        if text and not self._has_exited:
            self._send_input(text.encode("utf-8"))

    def focusInEvent(self, event: QFocusEvent) -> None:
        super().focusInEvent(event)
        self._report_focus(evp.FocusEvent.GAINED)
        self.focused.emit()
        self.update()

    def focusOutEvent(self, event: QFocusEvent) -> None:
        super().focusOutEvent(event)
        self._report_focus(evp.FocusEvent.LOST)
        self.update()

    def _report_focus(self, focus: evp.FocusEvent) -> None:
        if self.screen.mode(_FOCUS_REPORTING) and not self._has_exited:
            self._send(evp.encode_focus(focus))

    def focusNextPrevChild(self, next: bool) -> bool:  # noqa: A002 - Qt's name
        return False

    # Mouse (reported to the program when it asks, else selection, scrollback and paste)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        self.focus_terminal()
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
