"""The find bar of a native terminal: a field at the bottom; Enter scrolls to the previous match in the scrollback
and selects it, Esc closes."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QWidget

from idea.ui.terminal.native.screen import TerminalScreen
from idea.ui.terminal.native.selection import Selection
from idea.ui.widgets.labels import label_for


class FindBar(QWidget):
    closed = Signal()

    def __init__(self, terminal: QWidget, screen: TerminalScreen, selection: Selection) -> None:
        super().__init__(terminal)
        self._screen = screen
        self._selection = selection
        self.setObjectName("SearchBar")
        self.setAutoFillBackground(True)
        self._terminal = terminal
        self._last: tuple[str, int] | None = None  # the text searched and the line it was last found on
        layout = QHBoxLayout(self)
        layout.setContentsMargins(6, 3, 6, 3)
        self.field = QLineEdit()
        layout.addWidget(label_for("Find:", self.field))
        self.field.setObjectName("searchTextEdit")
        self.field.setPlaceholderText("text in the scrollback (Enter: previous match, Esc: close)")
        self.field.installEventFilter(self)
        layout.addWidget(self.field, 1)
        self.status = QLabel()
        layout.addWidget(self.status)
        self.hide()

    def toggle(self) -> None:
        if self.isHidden():
            self.place()
            self.show()
            self.raise_()
            self.field.setFocus()
            self.field.selectAll()
        else:
            self.hide()
            self.closed.emit()

    def place(self) -> None:
        height = self.sizeHint().height()
        self.setGeometry(0, self._terminal.height() - height, self._terminal.width(), height)

    def find_previous(self, text: str) -> None:
        """Scroll to the previous line holding `text` (case-insensitive) and select it."""
        screen = self._screen
        rows = screen.history_rows() + screen.text_rows()
        found = self.previous_match(rows, text)
        if found is None:
            return
        line, column = found
        history = len(rows) - screen.size()[1]
        screen.scroll_to_bottom()
        top = min(line, history)
        screen.scroll_viewport(top - history)
        self._selection.select_span(column, line - top, column + len(text) - 1)
        self._terminal.update()

    def previous_match(self, rows: list[str], text: str) -> tuple[int, int] | None:
        """(line, column) of the last row above the previous match that holds `text`, wrapping around."""
        if not text:
            return None
        needle = text.casefold()
        before = self._last[1] if self._last is not None and self._last[0] == needle else len(rows)
        for line in [*range(before - 1, -1, -1), *range(len(rows) - 1, before - 1, -1)]:
            column = rows[line].casefold().rfind(needle)
            if column >= 0:
                self._last = (needle, line)
                self.status.setText("")
                return line, column
        self._last = None
        self.status.setText("not found")
        return None

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.field and event.type() == QEvent.Type.KeyPress and isinstance(event, QKeyEvent):
            if event.key() in (Qt.Key.Key_Return.value, Qt.Key.Key_Enter.value):
                self.find_previous(self.field.text())
                return True
            if event.key() == Qt.Key.Key_Escape.value:
                self.toggle()
                return True
        return super().eventFilter(watched, event)
