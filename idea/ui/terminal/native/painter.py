"""Painting a terminal frame with QPainter: one pixmap per row, kept while the row is unchanged.

libghostty hands out the same row object for a row that did not change since the last frame, also when a
scroll moved it, so a frame of fast scrolling output paints only the rows that are new.
"""

from __future__ import annotations

import math

import evp
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPixmap

from idea.ui.terminal.appearance import TEXT_MARGIN
from idea.ui.terminal.native.screen import CellStyle, TerminalScreen
from idea.ui.theme import whole_pixel_font

MARGIN = TEXT_MARGIN  # pixels between the cell's edge and the text, as in the QTermWidget view


class CellMetrics:
    def __init__(self, font: QFont) -> None:
        metrics = QFontMetricsF(font)
        self.height = max(1, math.ceil(metrics.height()))
        self.ascent = metrics.ascent()
        # Whole-pixel cells: the spacing makes a run of text as wide as its cells.
        font, self.width = whole_pixel_font(font)
        self.font = font
        bold = QFont(font)
        bold.setBold(True)
        italic = QFont(font)
        italic.setItalic(True)
        bold_italic = QFont(bold)
        bold_italic.setItalic(True)
        self.fonts = {(False, False): font, (True, False): bold, (False, True): italic, (True, True): bold_italic}


class RowPainter:
    def __init__(self, metrics: CellMetrics, device_pixel_ratio: float) -> None:
        self.metrics = metrics
        self._ratio = device_pixel_ratio
        self._cache: dict[int, tuple[evp.Row, QPixmap]] = {}

    def reset(self, metrics: CellMetrics | None = None, device_pixel_ratio: float | None = None) -> None:
        """Forget every painted row (new font, new colours)."""
        if metrics is not None:
            self.metrics = metrics
        if device_pixel_ratio is not None:
            self._ratio = device_pixel_ratio
        self._cache.clear()

    def paint_rows(self, painter: QPainter, screen: TerminalScreen, background: QColor) -> None:
        frame = screen.frame()
        kept: dict[int, tuple[evp.Row, QPixmap]] = {}
        for y, row in enumerate(frame.rows):
            cached = self._cache.get(id(row))
            if cached is None or cached[0] is not row:
                cached = (row, self._paint_row(row, screen, background))
            kept[id(row)] = cached
            painter.drawPixmap(QPointF(0, y * self.metrics.height), cached[1])
        self._cache = kept

    def _paint_row(self, row: evp.Row, screen: TerminalScreen, background: QColor) -> QPixmap:
        metrics = self.metrics
        columns = len(row.widths)
        pixmap = QPixmap(int(columns * metrics.width * self._ratio), int(metrics.height * self._ratio))
        pixmap.setDevicePixelRatio(self._ratio)
        pixmap.fill(background)
        painter = QPainter(pixmap)
        graphemes, widths, styles = row.graphemes, row.widths, row.styles
        x = 0
        while x < columns:
            style_index = styles[x]
            start = x
            while x < columns and styles[x] == style_index:
                x += 1
            style = screen.style(style_index)
            if not style.default_background:
                painter.fillRect(
                    QRectF(start * metrics.width, 0, (x - start) * metrics.width, metrics.height),
                    QColor(*style.background),
                )
            text = "".join(graphemes[start:x])
            if style.invisible or not text.strip():
                continue
            painter.setFont(metrics.fonts[(style.bold, style.italic)])
            painter.setPen(QColor(*style.foreground))
            if text.isascii():
                painter.drawText(QPointF(start * metrics.width, metrics.ascent), text)
            else:
                self._draw_mixed(painter, graphemes, widths, start, x)
            self._decorate(painter, style, start, x)
        painter.end()
        return pixmap

    def _draw_mixed(self, painter: QPainter, graphemes: tuple[str, ...], widths: bytes, start: int, end: int) -> None:
        """ASCII stretches in one call each; anything else (its glyph may come from a fallback font, wider or
        narrower than the cell) at its own column."""
        column = start
        while column < end:
            if graphemes[column].isascii() and widths[column] == 1:
                first = column
                while column < end and graphemes[column].isascii() and widths[column] == 1:
                    column += 1
                painter.drawText(QPointF(first * self.metrics.width, self.metrics.ascent), "".join(graphemes[first:column]))
                continue
            if widths[column] and graphemes[column] != " ":
                self._draw_glyph(painter, graphemes[column], column, widths[column])
            column += 1

    def _draw_glyph(self, painter: QPainter, grapheme: str, column: int, width: int) -> None:
        metrics = self.metrics
        quadrants = _QUADRANTS.get(grapheme)
        if quadrants is not None:  # block elements as exact rectangles: no seam between neighbours
            half_width, half_height = metrics.width / 2, metrics.height / 2
            for quadrant in quadrants:
                left = column * metrics.width + (half_width if quadrant in "RS" else 0)
                top = half_height if quadrant in "LS" else 0
                painter.fillRect(QRectF(left, top, half_width, half_height), painter.pen().color())
            return
        if not _joins_neighbours(grapheme):
            painter.drawText(QPointF(column * metrics.width, metrics.ascent), grapheme)
            return
        # Box-drawing and block characters meet their neighbours: stretched to the cell, lines stay unbroken.
        font_metrics = QFontMetricsF(painter.font())
        advance = font_metrics.horizontalAdvance(grapheme)
        painter.save()
        painter.translate(column * metrics.width, 0)
        if advance > 0:
            painter.scale(metrics.width * width / advance, metrics.height / font_metrics.height())
        painter.drawText(QPointF(0, font_metrics.ascent()), grapheme)
        painter.restore()

    def _decorate(self, painter: QPainter, style: CellStyle, start: int, end: int) -> None:
        metrics = self.metrics
        left, right = start * metrics.width, end * metrics.width
        if style.underline:
            y = metrics.ascent + 1.5
            painter.drawLine(QPointF(left, y), QPointF(right, y))
        if style.strikethrough:
            y = metrics.ascent * 0.65
            painter.drawLine(QPointF(left, y), QPointF(right, y))


def paint_cursor(painter: QPainter, screen: TerminalScreen, metrics: CellMetrics, focused: bool) -> None:
    cursor = screen.frame().cursor
    if cursor is None:
        return
    x, y, at_wide_tail = cursor
    if at_wide_tail:
        x -= 1
    row = screen.frame().rows[y]
    width = metrics.width * max(1, row.widths[x] if x < len(row.widths) else 1)
    rect = QRectF(x * metrics.width, y * metrics.height, width, metrics.height)
    colour = QColor(*screen.frame().foreground)
    if focused:
        painter.fillRect(rect, colour)
        if x < len(row.graphemes) and row.graphemes[x].strip():
            painter.setFont(metrics.font)
            painter.setPen(QColor(*screen.frame().background))
            painter.drawText(QPointF(rect.x(), y * metrics.height + metrics.ascent), row.graphemes[x])
    else:
        painter.setPen(colour)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRect(rect.adjusted(0.5, 0.5, -0.5, -0.5))


# Quadrant blocks by the quarters they fill: T top left, R top right, L bottom left, S bottom right.
_QUADRANTS = {
    "█": "TRLS", "▀": "TR", "▄": "LS", "▌": "TL", "▐": "RS", "▘": "T", "▝": "R", "▖": "L", "▗": "S",
    "▙": "TLS", "▛": "TRL", "▜": "TRS", "▟": "RLS", "▚": "TS", "▞": "RL",
}  # fmt: skip


def _joins_neighbours(grapheme: str) -> bool:
    return len(grapheme) == 1 and 0x2500 <= ord(grapheme) <= 0x259F
