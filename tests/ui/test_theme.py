"""The dark theme draws no bright line: Fusion paints the tab bar's base line and frame bevels with the palette's
light roles, which Qt leaves white unless the theme sets them."""

from __future__ import annotations

from PySide6.QtGui import QColor
from PySide6.QtWidgets import QApplication, QFrame, QLabel, QTabWidget, QVBoxLayout, QWidget
from pytestqt.qtbot import QtBot

from idea.domain.workspace import ColorScheme
from idea.ui.theme import DARK, apply_theme


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
