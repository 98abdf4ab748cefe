"""The cells a person selected with the mouse, in screen coordinates, and the text they hold."""

from __future__ import annotations

import evp
from PySide6.QtCore import QRectF
from PySide6.QtGui import QColor, QPainter

from idea.ui.terminal.native.painter import CellMetrics

Cell = tuple[int, int]  # column, line
_WORD_SEPARATORS = set(" \t()[]{}<>'\"`,;|│")
_HIGHLIGHT = QColor(80, 140, 220, 110)


class Selection:
    def __init__(self) -> None:
        self._anchor: Cell | None = None
        self._end: Cell | None = None
        self.active = False  # a drag is going on

    def clear(self) -> None:
        self._anchor = self._end = None
        self.active = False

    def start(self, cell: Cell) -> None:
        self._anchor = self._end = cell
        self.active = True

    def extend(self, cell: Cell) -> None:
        self._end = cell

    def finish(self) -> None:
        self.active = False
        if self._anchor == self._end:
            self.clear()  # a click, not a selection

    def select_span(self, first_column: int, line: int, last_column: int) -> None:
        self._anchor, self._end = (first_column, line), (last_column, line)
        self.active = False

    def select_word(self, row: evp.Row, column: int, line: int) -> None:
        graphemes = row.graphemes
        if column >= len(graphemes) or graphemes[column] in _WORD_SEPARATORS:
            return
        first = column
        while first > 0 and graphemes[first - 1] not in _WORD_SEPARATORS:
            first -= 1
        last = column
        while last + 1 < len(graphemes) and graphemes[last + 1] not in _WORD_SEPARATORS:
            last += 1
        self.select_span(first, line, last)

    def _ordered(self) -> tuple[Cell, Cell] | None:
        if self._anchor is None or self._end is None:
            return None
        first, last = sorted((self._anchor, self._end), key=lambda cell: (cell[1], cell[0]))
        return first, last

    def text(self, rows: tuple[evp.Row, ...]) -> str:
        """The selected text, rows joined by newlines, trailing spaces of each row trimmed."""
        span = self._ordered()
        if span is None:
            return ""
        (first_column, first_line), (last_column, last_line) = span
        lines = []
        for line in range(first_line, min(last_line, len(rows) - 1) + 1):
            row = rows[line]
            start = first_column if line == first_line else 0
            end = last_column if line == last_line else len(row.graphemes) - 1
            cells = zip(row.graphemes[start : end + 1], row.widths[start : end + 1], strict=True)
            lines.append("".join(grapheme for grapheme, width in cells if width).rstrip(" "))
        return "\n".join(lines)

    def paint(self, painter: QPainter, metrics: CellMetrics, columns: int) -> None:
        span = self._ordered()
        if span is None:
            return
        (first_column, first_line), (last_column, last_line) = span
        for line in range(first_line, last_line + 1):
            start = first_column if line == first_line else 0
            end = last_column if line == last_line else columns - 1
            painter.fillRect(
                QRectF(start * metrics.width, line * metrics.height, (end - start + 1) * metrics.width, metrics.height),
                _HIGHLIGHT,
            )
