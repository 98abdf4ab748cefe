"""The problem banner reads in both themes: near-black text on its background at a contrast of at least
4.5:1 (WCAG AA), and its dismiss button flat on the banner, its cross as dark as the text."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QApplication, QToolButton
from pytestqt.qtbot import QtBot

from idea.domain.workspace import ColorScheme
from idea.ui.theme import apply_theme
from idea.ui.widgets.problem_banner import ProblemBanner


def luminance(color: QColor) -> float:
    def linear(channel: int) -> float:
        value = channel / 255
        return value / 12.92 if value <= 0.04045 else ((value + 0.055) / 1.055) ** 2.4

    return 0.2126 * linear(color.red()) + 0.7152 * linear(color.green()) + 0.0722 * linear(color.blue())


def contrast(a: QColor, b: QColor) -> float:
    light, dark = sorted((luminance(a), luminance(b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


@pytest.mark.parametrize("scheme", [ColorScheme.DARK, ColorScheme.LIGHT])
def test_the_banner_reads_and_its_dismiss_button_sits_flat_on_it(
    themed: QApplication, qtbot: QtBot, scheme: ColorScheme
) -> None:
    apply_theme(themed, scheme)
    banner = ProblemBanner()
    qtbot.addWidget(banner)
    banner.add("layouts.json could not be read: it was set aside as layouts.json.corrupt-1 and nothing was lost")
    banner.resize(600, 60)
    banner.show()
    qtbot.waitExposed(banner)
    shot = banner.grab().toImage()
    background = shot.pixelColor(2, 2)

    assert contrast(background, QColor("#1a1a1a")) >= 4.5, background.name()
    dismiss = banner.findChild(QToolButton)
    corner = dismiss.mapTo(banner, dismiss.rect().topLeft())
    assert shot.pixelColor(corner.x() + 1, corner.y() + 1) == background
    ink = [
        shot.pixelColor(corner.x() + x, corner.y() + y)
        for x in range(dismiss.width())
        for y in range(dismiss.height())
    ]
    assert min(contrast(pixel, background) for pixel in ink) <= 1.01  # the button's face is the banner's
    assert max(contrast(pixel, background) for pixel in ink) >= 4.5  # and its cross reads on it
