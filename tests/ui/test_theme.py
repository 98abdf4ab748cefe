"""Each theme reads: the dark theme draws no bright line (Fusion paints the tab bar's base line and frame bevels
with the palette's light roles, which Qt leaves white unless the theme sets them); the chrome's line icons take
the theme's text colour, again after a change of theme; check boxes, radio buttons, text fields, spin boxes and
multi-line fields show an edge a person can see."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QColor, QFontMetricsF, QIcon, QImage
from PySide6.QtWidgets import (
    QApplication,
    QCheckBox,
    QFrame,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QRadioButton,
    QSpinBox,
    QTabWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)
from pytestqt.qtbot import QtBot

from idea.domain.workspace import ColorScheme
from idea.ui.icons import icon, recolor_icons, set_icon
from idea.ui.git.diff_view import DiffView
from idea.ui.theme import DARK, LIGHT, apply_theme, colors, monospace_font, whole_pixel_font
from tests.ui.test_problem_banner import contrast


def test_the_dark_theme_draws_nothing_brighter_than_its_text(themed: QApplication, qtbot: QtBot) -> None:
    apply_theme(themed, ColorScheme.DARK)
    window = QWidget()
    qtbot.addWidget(window)
    column = QVBoxLayout(window)
    tabs = QTabWidget()
    tabs.setDocumentMode(True)  # as the project tabs
    tabs.addTab(QLabel("grid"), "project")
    column.addWidget(tabs)
    for shape in (QFrame.Shape.HLine, QFrame.Shape.Panel):
        frame = QFrame()
        frame.setFrameShape(shape)
        frame.setFrameShadow(QFrame.Shadow.Sunken)
        frame.setMinimumHeight(8)
        column.addWidget(frame)
    window.resize(500, 200)
    window.show()
    qtbot.waitExposed(window)

    shot = window.grab().toImage()
    brightest = max(
        (shot.pixelColor(x, y) for x in range(shot.width()) for y in range(shot.height())),
        key=QColor.lightness,
    )
    assert brightest.lightness() <= QColor(DARK.text).lightness(), brightest.name()


def ink(icon: QIcon) -> QColor:
    """The colour of an icon's most opaque pixel: the colour its lines are drawn in."""
    image = icon.pixmap(16, 16).toImage()
    pixels = [image.pixelColor(x, y) for x in range(image.width()) for y in range(image.height())]
    return max(pixels, key=QColor.alpha)


def test_the_chrome_icons_take_the_themes_text_colour_and_follow_a_change_of_theme(
    themed: QApplication, qtbot: QtBot
) -> None:
    apply_theme(themed, ColorScheme.LIGHT)
    button = QToolButton()
    qtbot.addWidget(button)
    set_icon(button, "close")
    assert ink(button.icon()).name() == LIGHT.text  # dark lines on the light theme's pale chrome
    assert ink(icon("split-right")).name() == LIGHT.text  # menus' icons, drawn when a menu opens

    apply_theme(themed, ColorScheme.DARK)
    recolor_icons()
    assert ink(button.icon()).name() == DARK.text


def shown(qtbot: QtBot, field: QWidget, focused: bool) -> QImage:
    """`field` as drawn in a window above a button, with the focus on it or on the button."""
    window = QWidget()
    qtbot.addWidget(window)
    column = QVBoxLayout(window)
    elsewhere = QPushButton("elsewhere")
    field.setMaximumHeight(60)
    column.addWidget(field)
    column.addWidget(elsewhere)
    window.resize(200, 120)
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    taker = field if focused else elsewhere
    taker.setFocus()  # not by the keyboard: Fusion shows its focus colour only then, on a box
    qtbot.waitUntil(taker.hasFocus)
    return field.grab().toImage()


@pytest.mark.parametrize("scheme", [ColorScheme.DARK, ColorScheme.LIGHT])
@pytest.mark.parametrize("control", [QCheckBox, QRadioButton, QLineEdit])
@pytest.mark.parametrize("focused", [False, True], ids=["focus elsewhere", "focus given by a click"])
def test_check_boxes_radio_buttons_and_text_fields_show_their_edge_at_3_to_1(
    themed: QApplication, qtbot: QtBot, scheme: ColorScheme, control: type[QWidget], focused: bool
) -> None:
    apply_theme(themed, scheme)
    shot = shown(qtbot, control(), focused)
    background = QColor(colors(scheme).window)
    edge = max(
        (shot.pixelColor(x, y) for x in range(shot.width()) for y in range(shot.height())),
        key=lambda pixel: contrast(pixel, background),
    )
    assert contrast(edge, background) >= 3, edge.name()  # WCAG 2.1, non-text contrast of a control's boundary


@pytest.mark.parametrize("scheme", [ColorScheme.DARK, ColorScheme.LIGHT])
@pytest.mark.parametrize("control", [QSpinBox, QPlainTextEdit])
def test_spin_boxes_and_multi_line_fields_show_their_edge_at_3_to_1(
    themed: QApplication, qtbot: QtBot, scheme: ColorScheme, control: type[QWidget]
) -> None:
    apply_theme(themed, scheme)
    shot = shown(qtbot, control(), focused=False)
    background = QColor(colors(scheme).window)
    middle = shot.height() // 2  # the left edge, away from the arrows and any text
    edge = max((shot.pixelColor(x, middle) for x in range(3)), key=lambda pixel: contrast(pixel, background))
    assert contrast(edge, background) >= 3, edge.name()


def test_a_focused_multi_line_field_shows_the_focus_colour_on_its_edge(themed: QApplication, qtbot: QtBot) -> None:
    palette = apply_theme(themed, ColorScheme.DARK)
    shot = shown(qtbot, QPlainTextEdit(), focused=True)
    assert shot.pixelColor(0, shot.height() // 2) == QColor(palette.accent)


@pytest.mark.parametrize("point_size", [8, 9, 10, 11, 12, 13, 14, 16])
def test_a_whole_pixel_font_draws_a_run_as_wide_as_its_columns(qapp, point_size: int) -> None:  # noqa: ANN001
    # The system's fixed font often advances by a fraction of a pixel: 40 characters drawn in one call would
    # end past the 40th column, where the next run is drawn (the diff viewer's "…9641", overlapped its ",").
    font = monospace_font()
    font.setPointSize(point_size)
    spaced, width = whole_pixel_font(font)
    assert width == round(QFontMetricsF(font).horizontalAdvance("M"))
    for text in ("M" * 40, "a6ced819-b893-4213-b003-9e9dc79b9641\",", "    return x * 2 + y  # ok"):
        assert abs(QFontMetricsF(spaced).horizontalAdvance(text) - len(text) * width) < 1, text


def test_the_diff_viewer_draws_in_the_whole_pixel_font(qapp) -> None:  # noqa: ANN001
    view = DiffView()
    font = view._painted_font()
    assert font.letterSpacing() == whole_pixel_font(view.font())[0].letterSpacing()
    assert abs(QFontMetricsF(font).horizontalAdvance("x" * 50) - 50 * view._char_width()) < 1
