"""The application's look: Fusion style with a dark or light palette matching the terminal schemes."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontDatabase, QFontMetricsF, QPainter, QPalette, QPen
from PySide6.QtWidgets import (
    QApplication,
    QPlainTextEdit,
    QProxyStyle,
    QStyle,
    QStyleFactory,
    QStyleOption,
    QStyleOptionComplex,
    QTextEdit,
    QWidget,
)

from idea.domain.workspace import ColorScheme


@dataclass(frozen=True)
class Colors:
    window: str
    base: str
    text: str
    muted: str
    header: str
    header_active: str
    border: str
    accent: str
    ok: str
    warn: str
    error: str
    notice: str  # the problem banner's background, under near-black text
    control_edge: str  # the edge of a check box, radio button or text field: 3:1 against the window at least


DARK = Colors(
    window="#1e2127", base="#16181d", text="#d7dae0", muted="#8b919c", header="#262a31",
    header_active="#2f3540", border="#353b45", accent="#5aa2f0", ok="#6cc070", warn="#e5b94e",
    error="#e86671", notice="#e5b94e", control_edge="#737a87",
)
LIGHT = Colors(
    window="#f3f3f4", base="#ffffff", text="#1f2328", muted="#6a737d", header="#e8e9eb",
    header_active="#dbe6f5", border="#c9ccd1", accent="#1f6feb", ok="#2f8f46", warn="#a36b00",
    error="#cf222e", notice="#f5d67b", control_edge="#828892",
)


def colors(scheme: ColorScheme) -> Colors:
    return DARK if scheme is ColorScheme.DARK else LIGHT


def apply_theme(app: QApplication, scheme: ColorScheme) -> Colors:
    palette_colors = colors(scheme)
    app.setStyle(EdgedStyle(palette_colors.control_edge))
    palette = QPalette()
    role = QPalette.ColorRole
    palette.setColor(role.Window, QColor(palette_colors.window))
    palette.setColor(role.WindowText, QColor(palette_colors.text))
    palette.setColor(role.Base, QColor(palette_colors.base))
    palette.setColor(role.AlternateBase, QColor(palette_colors.header))
    palette.setColor(role.Text, QColor(palette_colors.text))
    palette.setColor(role.Button, QColor(palette_colors.header))
    palette.setColor(role.ButtonText, QColor(palette_colors.text))
    palette.setColor(role.ToolTipBase, QColor(palette_colors.header_active))
    palette.setColor(role.ToolTipText, QColor(palette_colors.text))
    palette.setColor(role.Highlight, QColor(palette_colors.accent))
    palette.setColor(role.HighlightedText, QColor("#ffffff"))
    palette.setColor(role.PlaceholderText, QColor(palette_colors.muted))
    palette.setColor(role.Link, QColor(palette_colors.accent))
    palette.setColor(role.LinkVisited, QColor(palette_colors.accent))
    palette.setColor(role.Mid, QColor(palette_colors.border))
    palette.setColor(role.Dark, QColor(palette_colors.border))
    # Fusion draws bevels and the tab bar's base line with these; Qt's defaults are white, a bright line in the
    # dark theme.
    bevel = palette_colors.border if scheme is ColorScheme.DARK else palette_colors.base
    palette.setColor(role.Light, QColor(bevel))
    palette.setColor(role.Midlight, QColor(bevel))
    for disabled in (role.WindowText, role.Text, role.ButtonText):
        palette.setColor(QPalette.ColorGroup.Disabled, disabled, QColor(palette_colors.muted))
    # A field or button that cannot be used sinks into the window instead of keeping the fill of one that can.
    for sunk in (role.Base, role.Button):
        palette.setColor(QPalette.ColorGroup.Disabled, sunk, QColor(palette_colors.window))
    app.setPalette(palette)
    app.setStyleSheet(_stylesheet(palette_colors))
    return palette_colors


class EdgedStyle(QProxyStyle):
    """Fusion, with an edge a person can see around check boxes, radio buttons, text fields, spin boxes and
    editable multi-line fields: Fusion draws theirs in a shade of the window colour, 1.1:1 against it in the
    dark theme and 1.7 to 2.1:1 in the light one (WCAG asks 3:1 of a control's boundary)."""

    _EDGED = (
        QStyle.PrimitiveElement.PE_IndicatorCheckBox,
        QStyle.PrimitiveElement.PE_IndicatorRadioButton,
        QStyle.PrimitiveElement.PE_FrameLineEdit,
    )

    def __init__(self, edge: str) -> None:
        super().__init__(QStyleFactory.create("Fusion"))
        self._edge = QColor(edge)

    def drawPrimitive(
        self, element: QStyle.PrimitiveElement, option: QStyleOption, painter: QPainter, widget: QWidget | None = None
    ) -> None:
        super().drawPrimitive(element, option, painter, widget)
        # Fusion's own focus colour stays: a text field's whenever it has the focus, a box's when the keyboard
        # moved the focus to it.
        flags = QStyle.StateFlag
        focused = option.state & flags.State_HasFocus and (
            element == QStyle.PrimitiveElement.PE_FrameLineEdit or option.state & flags.State_KeyboardFocusChange
        )
        if element == QStyle.PrimitiveElement.PE_Frame and _editable_text(widget):
            # Fusion shows no focus on a multi-line field's frame: the edge takes the focus colour instead.
            self._draw_edge(option, painter, option.palette.highlight().color() if _has_focus(widget) else None)
        elif element in self._EDGED and not focused:
            self._draw_edge(option, painter, None, ellipse=element == QStyle.PrimitiveElement.PE_IndicatorRadioButton)

    def drawComplexControl(
        self, control: QStyle.ComplexControl, option: QStyleOptionComplex, painter: QPainter,
        widget: QWidget | None = None,
    ) -> None:
        super().drawComplexControl(control, option, painter, widget)
        framed = control == QStyle.ComplexControl.CC_SpinBox and getattr(option, "frame", False)
        if framed and not option.state & QStyle.StateFlag.State_HasFocus:  # Fusion's focus colour stays
            self._draw_edge(option, painter, None)

    def _draw_edge(self, option: QStyleOption, painter: QPainter, color: QColor | None, ellipse: bool = False) -> None:
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        edge = QColor(color or self._edge)
        if not option.state & QStyle.StateFlag.State_Enabled:
            edge.setAlphaF(0.45)  # a control that cannot be used reads as such
        painter.setPen(QPen(edge, 1))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        box = QRectF(option.rect).adjusted(0.5, 0.5, -0.5, -0.5)
        if ellipse:
            painter.drawEllipse(box)
        else:
            painter.drawRoundedRect(box, 2, 2)
        painter.restore()


def _editable_text(widget: QWidget | None) -> bool:
    return isinstance(widget, QPlainTextEdit | QTextEdit) and not widget.isReadOnly()


def _has_focus(widget: QWidget | None) -> bool:
    return widget is not None and widget.hasFocus()


def _stylesheet(c: Colors) -> str:
    return f"""
    QMainWindow::separator {{ background: {c.border}; width: 1px; height: 1px; }}
    QTabWidget::pane {{ border: none; }}
    QTabBar::tab {{ background: {c.window}; color: {c.muted}; padding: 5px 12px; border: none;
                    border-right: 1px solid {c.border}; }}
    QTabBar::tab:selected {{ background: {c.base}; color: {c.text}; border-bottom: 2px solid {c.accent}; }}
    QTabBar::tab:hover {{ color: {c.text}; }}
    QSplitter::handle {{ background: {c.border}; }}
    QSplitter::handle:hover {{ background: {c.accent}; }}
    #CellHeader {{ background: {c.header}; border-bottom: 1px solid {c.border}; }}
    #CellHeader[active="true"] {{ background: {c.header_active}; }}
    #CellHeader[selected="true"] {{ border-bottom: 2px solid {c.accent}; }}
    #CellHeader QLabel {{ color: {c.muted}; }}
    #CellHeader QLabel#CellTitle {{ color: {c.text}; font-weight: 600; }}
    #CellHeader QToolButton {{ border: none; padding: 1px; border-radius: 3px; }}
    #CellHeader QToolButton:hover {{ background: {c.border}; }}
    #CellHeader QLabel#AttentionBadge {{ background: {c.notice}; color: #1a1a1a; border: 1px solid {c.warn};
                                        border-radius: 3px; padding: 0px 6px; margin: 3px 0px; font-weight: 600; }}
    #CellHeader QLabel#StateDot[tone="running"] {{ color: {c.ok}; }}
    #CellHeader QLabel#StateDot[tone="starting"] {{ color: {c.warn}; }}
    #CellHeader QLabel#StateDot[tone="failed"] {{ color: {c.error}; }}
    #CellBanner {{ background: {c.header}; border-top: 1px solid {c.border}; }}
    #CellBanner QLabel {{ color: {c.text}; }}
    #Placeholder {{ background: {c.base}; }}
    #Placeholder QLabel {{ color: {c.muted}; }}
    #ProblemBanner {{ background: {c.notice}; color: #1a1a1a; padding: 6px 10px; }}
    #ProblemBanner QToolButton {{ border: none; background: transparent; padding: 2px; border-radius: 3px; }}
    #ProblemBanner QToolButton:hover {{ background: rgba(0, 0, 0, 40); }}
    #GridHandle {{ background: {c.border}; }}
    #GridHandle:hover {{ background: {c.accent}; }}
    #LayoutBar {{ background: {c.window}; border-bottom: 1px solid {c.border}; }}
    #AgentTypingOverlay {{ background: rgba(10, 12, 16, 150); color: #ffffff; font-size: 13pt;
                           font-weight: 600; }}
    #DropOverlay {{ background: transparent; }}
    #DropOverlay[target="true"] {{ background: rgba(90, 162, 240, 60); border: 2px solid {c.accent}; }}
    """


def palette_colors(widget: QWidget) -> Colors:
    """The theme colours matching the widget's palette (dark or light)."""
    dark = widget.palette().color(QPalette.ColorRole.Window).lightness() < 128
    return colors(ColorScheme.DARK if dark else ColorScheme.LIGHT)


def monospace_font() -> QFont:
    return QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)


def whole_pixel_font(font: QFont) -> tuple[QFont, int]:
    """A fixed-width `font` whose characters advance by a whole number of pixels, and that number. Text drawn
    at column × width then lines up with a run drawn in one call: the font's own advance is often fractional
    (8.4 px), and 40 characters drawn together would end 16 px past the 40th column."""
    advance = QFontMetricsF(font).horizontalAdvance("M")
    width = max(1, round(advance))
    spaced = QFont(font)
    spaced.setLetterSpacing(QFont.SpacingType.AbsoluteSpacing, width - advance)
    return spaced, width
