"""Small line icons drawn with QPainter: crisp at any scale, no image files to ship."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QIcon, QPainter, QPainterPath, QPen, QPixmap

SIZE = 16
Painter = Callable[[QPainter], None]


def _split_right(p: QPainter) -> None:
    p.drawRoundedRect(QRectF(2.5, 3.5, 11, 9), 1.5, 1.5)
    p.drawLine(QPointF(8, 3.5), QPointF(8, 12.5))


def _split_down(p: QPainter) -> None:
    p.drawRoundedRect(QRectF(2.5, 3.5, 11, 9), 1.5, 1.5)
    p.drawLine(QPointF(2.5, 8), QPointF(13.5, 8))


def _zoom(p: QPainter) -> None:
    for (x1, y1, x2, y2) in ((3, 6.5, 3, 3), (3, 3, 6.5, 3), (13, 9.5, 13, 13), (13, 13, 9.5, 13),
                             (9.5, 3, 13, 3), (13, 3, 13, 6.5), (3, 9.5, 3, 13), (3, 13, 6.5, 13)):
        p.drawLine(QPointF(x1, y1), QPointF(x2, y2))


def _close(p: QPainter) -> None:
    p.drawLine(QPointF(4.5, 4.5), QPointF(11.5, 11.5))
    p.drawLine(QPointF(11.5, 4.5), QPointF(4.5, 11.5))


def _restart(p: QPainter) -> None:
    path = QPainterPath()
    path.arcMoveTo(QRectF(3.5, 3.5, 9, 9), 60)
    path.arcTo(QRectF(3.5, 3.5, 9, 9), 60, 290)
    p.drawPath(path)
    p.drawLine(QPointF(10.4, 3.2), QPointF(10.6, 5.8))
    p.drawLine(QPointF(10.6, 5.8), QPointF(8.1, 6.2))


def _plus(p: QPainter) -> None:
    p.drawLine(QPointF(8, 3.5), QPointF(8, 12.5))
    p.drawLine(QPointF(3.5, 8), QPointF(12.5, 8))


def _grid(p: QPainter) -> None:
    p.drawRoundedRect(QRectF(2.5, 2.5, 11, 11), 1.5, 1.5)
    p.drawLine(QPointF(8, 2.5), QPointF(8, 13.5))
    p.drawLine(QPointF(2.5, 8), QPointF(13.5, 8))


_SHAPES: dict[str, Painter] = {
    "split-right": _split_right,
    "split-down": _split_down,
    "zoom": _zoom,
    "close": _close,
    "restart": _restart,
    "plus": _plus,
    "grid": _grid,
}


@cache
def icon(name: str, color: str = "#c8ccd4") -> QIcon:
    result = QIcon()
    for scale in (1, 2):
        pixmap = QPixmap(SIZE * scale, SIZE * scale)
        pixmap.setDevicePixelRatio(scale)
        pixmap.fill(Qt.GlobalColor.transparent)
        painter = QPainter(pixmap)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        pen = QPen(QColor(color), 1.3)
        pen.setCapStyle(Qt.PenCapStyle.RoundCap)
        painter.setPen(pen)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        _SHAPES[name](painter)
        painter.end()
        result.addPixmap(pixmap)
    return result
