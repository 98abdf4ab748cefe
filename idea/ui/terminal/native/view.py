"""The terminal widget a native cell shows: libghostty's screen painted by IdeA, with what the QTermWidget view
offers the cell, the portal and the menus (the same signals and actions).

It owns no process: the session feeds it the program's output (`feed`) and gets the bytes to send through
`set_sender`. The display inside (`TerminalCanvas`) paints and takes the keyboard and the mouse; resizes are
debounced to one per pause, as in the QTermWidget view.
"""

from __future__ import annotations

from collections.abc import Callable

import evp
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont, QGuiApplication, QKeyEvent, QResizeEvent
from PySide6.QtWidgets import QVBoxLayout, QWidget

from idea.ui.terminal.activity_mark import ActivityMark
from idea.ui.terminal.shift_enter import shift_enter_mapped
from idea.ui.terminal.appearance import TerminalAppearance
from idea.ui.terminal.font_zoom import FontZoom
from idea.ui.terminal.native.canvas import TerminalCanvas
from idea.ui.terminal.native.find_bar import FindBar
from idea.ui.terminal.native.painter import MARGIN, CellMetrics
from idea.ui.terminal.native.screen import TerminalScreen
from idea.ui.terminal.native.selection import Selection
from idea.ui.widgets.timers import single_shot_timer

__all__ = ["MARGIN", "NativeTerminalView"]

RESIZE_DEBOUNCE_MS = 150
PAINT_INTERVAL_MS = 40  # at most 25 repaints a second while output streams, as QTermWidget
SILENCE_MS = 2000
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
        self.zoom = FontZoom(lambda: self._appearance, self._apply_font)
        self._send: Callable[[bytes], None] = lambda _data: None
        self._paste_blocked = False
        self._has_exited = False
        self._title = ""
        self.shift_enter: str | None = None  # what Shift+Enter types (SpawnSpec.shift_enter)
        self.screen = TerminalScreen(
            columns,
            lines,
            appearance.colors(),
            appearance.history_lines,
            reply=lambda data: self._send(data),
            on_title=self._on_title,
            on_bell=self.bell.emit,
        )
        self.selection = Selection()
        self._canvas = TerminalCanvas(self, CellMetrics(self.zoom.font()))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self._canvas)
        self.setFocusProxy(self._canvas)
        self._find = FindBar(self, self.screen, self.selection)
        self._find.closed.connect(self.focus_terminal)
        self._paint_timer = single_shot_timer(self, PAINT_INTERVAL_MS, self._canvas.update)
        self._resize_timer = single_shot_timer(self, RESIZE_DEBOUNCE_MS, self._fit_grid)
        self._activity = ActivityMark(self, SILENCE_MS, self.activity.emit, self.silence.emit)

    @property
    def display(self) -> QWidget:
        """The widget that takes the keyboard and the mouse (the write portal watches it)."""
        return self._canvas

    @property
    def metrics(self) -> CellMetrics:
        return self._canvas.metrics

    # The program's side

    def set_sender(self, send: Callable[[bytes], None]) -> None:
        """Where the bytes for the program go: keys, mouse reports, pastes and the screen's answers."""
        self._send = send

    def feed(self, data: bytes) -> None:
        """Output of the program (GUI thread)."""
        self.screen.feed(data)
        self._activity.output()
        if self.isVisible() and not self._paint_timer.isActive():
            self._paint_timer.start()

    def type_in(self, data: bytes) -> None:
        """What a person typed or pasted: the view scrolls back to the program's screen."""
        if self._has_exited:
            return
        self.screen.scroll_to_bottom()
        self._send(data)
        self._canvas.update()

    def shift_enter_mapped(self, event: QKeyEvent) -> bool:
        return shift_enter_mapped(self.shift_enter, event)

    def send(self, data: bytes) -> None:
        """Bytes for the program that are no typing (mouse and focus reports): the view stays where it is."""
        if data and not self._has_exited:
            self._send(data)

    def mark_exited(self, code: int | None) -> None:
        self._has_exited = True
        self._canvas.update()
        self.exited.emit(code)

    def has_exited(self) -> bool:
        return self._has_exited

    def _on_title(self, title: str) -> None:
        if title != self._title:
            self._title = title
            self.titleChanged.emit(title)

    # Size

    def set_grid_size(self, columns: int, lines: int) -> None:
        """Give the program a window of `columns` × `lines` while no cell shows this view."""
        self._apply_grid(columns, lines)

    def grid_size(self) -> tuple[int, int]:
        return self.screen.size()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._find.place()

    def display_resized(self) -> None:
        self._resize_timer.start()

    def _fit_grid(self) -> None:
        if self._canvas.isVisible():
            self._apply_grid(*self._canvas.grid_for_size())

    def _apply_grid(self, columns: int, lines: int) -> None:
        if (columns, lines) == self.screen.size():
            return
        self.screen.resize(columns, lines)
        self.selection.clear()
        self.gridResized.emit(columns, lines)
        self._canvas.update()

    # Reading

    def screen_text(self) -> str:
        """The visible screen: one line per row, trailing spaces trimmed."""
        return "\n".join(self.screen.text_rows())

    def selected_text(self) -> str:
        return self.selection.text(self.screen.frame().rows)

    # Actions (also offered by the cell's menu)

    def focus_terminal(self) -> None:
        self._canvas.setFocus(Qt.FocusReason.OtherFocusReason)

    def copy(self) -> None:
        text = self.selected_text()
        if text:
            QGuiApplication.clipboard().setText(text)

    def paste(self) -> None:
        self.paste_text(QGuiApplication.clipboard().text())

    def paste_text(self, text: str) -> None:
        """Paste `text` as from the clipboard (a middle click pastes the selection this way)."""
        if self._paste_blocked or not text or self._has_exited:
            return
        self.pasting.emit(text)
        self.type_in(evp.encode_paste(text, bracketed=self.screen.mode(_BRACKETED_PASTE)))

    def set_paste_blocked(self, blocked: bool) -> None:
        """While an agent's task is being typed, a paste would mix with it."""
        self._paste_blocked = blocked

    def toggle_find(self) -> None:
        """Show or hide the find bar, which finds text in the scrollback (Enter: previous, Esc: close)."""
        self._find.toggle()

    def _apply_font(self, font: QFont) -> None:
        self._canvas.set_metrics(CellMetrics(font))
        self._resize_timer.start()

    # Appearance

    @property
    def appearance(self) -> TerminalAppearance:
        return self._appearance

    def set_appearance(self, appearance: TerminalAppearance) -> None:
        """New font or colours. (The scrollback size is fixed when the view is made.)"""
        previous, self._appearance = self._appearance, appearance
        if (previous.font_family, previous.point_size) != (appearance.font_family, appearance.point_size):
            self._apply_font(self.zoom.font())
        if previous.scheme != appearance.scheme:
            self.screen.set_colors(appearance.colors())
            self._canvas.repaint_all()
