"""Small line icons drawn with QPainter: crisp at any scale, no image files to ship. One registry of shapes
serves every screen: the cells, the tabs and the Agents panel."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QGuiApplication, QIcon, QPainter, QPainterPath, QPalette, QPen, QPixmap
from PySide6.QtWidgets import QAbstractButton, QApplication

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


# -- the Agents panel --


def _launch(p: QPainter) -> None:
    path = QPainterPath(QPointF(5, 3.5))
    path.lineTo(12.5, 8)
    path.lineTo(5, 12.5)
    path.closeSubpath()
    p.drawPath(path)


def _stop(p: QPainter) -> None:
    p.drawRoundedRect(QRectF(4, 4, 8, 8), 1, 1)


def _new_agent(p: QPainter) -> None:
    p.drawEllipse(QRectF(3.5, 2.5, 6, 6))
    p.drawArc(QRectF(1.5, 9.5, 10, 8), 0, 180 * 16)
    p.drawLine(QPointF(12.5, 5), QPointF(12.5, 10))
    p.drawLine(QPointF(10, 7.5), QPointF(15, 7.5))


def _more(p: QPainter) -> None:
    p.setBrush(p.pen().color())
    for x in (4, 8, 12):
        p.drawEllipse(QPointF(x, 8), 0.9, 0.9)


def _attach(p: QPainter) -> None:
    p.drawRoundedRect(QRectF(2.5, 3.5, 11, 9), 1.5, 1.5)
    p.drawLine(QPointF(8, 5.5), QPointF(8, 10.5))
    p.drawLine(QPointF(5.5, 8), QPointF(8, 10.5))
    p.drawLine(QPointF(10.5, 8), QPointF(8, 10.5))


def _background(p: QPainter) -> None:
    p.drawRoundedRect(QRectF(2.5, 3.5, 11, 9), 1.5, 1.5)
    p.drawLine(QPointF(8, 10.5), QPointF(8, 5.5))
    p.drawLine(QPointF(5.5, 8), QPointF(8, 5.5))
    p.drawLine(QPointF(10.5, 8), QPointF(8, 5.5))


def _persona(p: QPainter) -> None:
    p.drawLine(QPointF(3.5, 12.5), QPointF(11, 5))
    p.drawLine(QPointF(11, 5), QPointF(12.5, 6.5))
    p.drawLine(QPointF(12.5, 6.5), QPointF(5, 14))
    p.drawLine(QPointF(3.5, 12.5), QPointF(3, 14.5))
    p.drawLine(QPointF(3, 14.5), QPointF(5, 14))


def _focus(p: QPainter) -> None:
    p.drawEllipse(QRectF(4.5, 4.5, 7, 7))
    for (x1, y1, x2, y2) in ((8, 1.5, 8, 4), (8, 12, 8, 14.5), (1.5, 8, 4, 8), (12, 8, 14.5, 8)):
        p.drawLine(QPointF(x1, y1), QPointF(x2, y2))


def _send(p: QPainter) -> None:
    path = QPainterPath(QPointF(2, 7.5))
    path.lineTo(14, 2)
    path.lineTo(9.5, 14)
    path.lineTo(7.5, 9)
    path.closeSubpath()
    p.drawPath(path)
    p.drawLine(QPointF(7.5, 9), QPointF(14, 2))


def _interrupt(p: QPainter) -> None:
    # The Esc key's symbol (ISO 9995-7): a circle open at the top left, an arrow leaving through the gap.
    p.drawArc(QRectF(3.5, 3.5, 10, 10), 180 * 16, 270 * 16)
    p.drawLine(QPointF(8.5, 8.5), QPointF(3, 3))
    p.drawLine(QPointF(3, 3), QPointF(6.5, 3))
    p.drawLine(QPointF(3, 3), QPointF(3, 6.5))


_SHAPES: dict[str, Painter] = {
    "split-right": _split_right,
    "split-down": _split_down,
    "zoom": _zoom,
    "close": _close,
    "restart": _restart,
    "plus": _plus,
    "grid": _grid,
    "launch": _launch,
    "stop": _stop,
    "new-agent": _new_agent,
    "more": _more,
    "attach": _attach,
    "background": _background,
    "persona": _persona,
    "focus": _focus,
    "send": _send,
    "interrupt": _interrupt,
}


ICON_PROPERTY = "ideaIcon"  # the name of the icon a button shows, for `recolor_icons`


def icon(name: str, color: str | None = None, disabled_color: str | None = None) -> QIcon:
    """The icon in `color` (the application palette's button text when None); with `disabled_color`, drawn
    in it when its action cannot apply (the style's own greying is hardly visible on thin line icons)."""
    if color is None:
        color = QGuiApplication.palette().color(QPalette.ColorRole.ButtonText).name()
    return _icon(name, color, disabled_color)


def in_palette(name: str, palette: QPalette) -> QIcon:
    """The icon in the palette's button text, and a faded shade of it for when its action cannot apply."""
    disabled = palette.color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.ButtonText)
    disabled.setAlphaF(0.4)
    return _icon(name, palette.color(QPalette.ColorRole.ButtonText).name(), disabled.name(QColor.NameFormat.HexArgb))


def set_icon(button: QAbstractButton, name: str) -> None:
    """Shows the icon on `button` in its palette's colours, and again in the new ones when the theme changes."""
    button.setProperty(ICON_PROPERTY, name)
    button.setIcon(in_palette(name, button.palette()))


def recolor_icons() -> None:
    """Draws every icon placed by `set_icon` again in its button's palette (after a change of theme)."""
    for widget in QApplication.allWidgets():
        name = widget.property(ICON_PROPERTY)
        if isinstance(widget, QAbstractButton) and isinstance(name, str):
            widget.setIcon(in_palette(name, widget.palette()))


@cache
def _icon(name: str, color: str, disabled_color: str | None) -> QIcon:
    shades = [(QIcon.Mode.Normal, color)]
    if disabled_color is not None:
        shades.append((QIcon.Mode.Disabled, disabled_color))
    result = QIcon()
    for mode, pen_color in shades:
        for scale in (1, 2):
            result.addPixmap(_draw(name, pen_color, scale), mode)
    return result


def _draw(name: str, color: str, scale: int) -> QPixmap:
    pixmap = QPixmap(SIZE * scale, SIZE * scale)
    pixmap.setDevicePixelRatio(scale)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    pen = QPen(QColor(color), 1.3)
    pen.setCapStyle(Qt.PenCapStyle.RoundCap)
    pen.setJoinStyle(Qt.PenJoinStyle.RoundJoin)  # the corners of closed shapes (launch, send) stay soft
    painter.setPen(pen)
    painter.setBrush(Qt.BrushStyle.NoBrush)
    _SHAPES[name](painter)
    painter.end()
    return pixmap
