"""A window's first size: what it would like, within the screen it opens on."""

from __future__ import annotations

from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QWidget

SCREEN_SHARE = 0.9  # of the screen's available area: the window's frame and edges stay on the screen


def size_within_screen(window: QWidget, width: int, height: int) -> None:
    """Resize `window` to `width` × `height`, or less on a screen too small for it (a 1366 × 768 laptop): a
    dialog taller than the screen hides its buttons. The screen is its parent's, or the primary one."""
    parent = window.parentWidget()
    screen = (parent.screen() if parent is not None else None) or QGuiApplication.primaryScreen()
    if screen is None:
        window.resize(width, height)
        return
    available = screen.availableGeometry()
    window.resize(min(width, int(available.width() * SCREEN_SHARE)), min(height, int(available.height() * SCREEN_SHARE)))
