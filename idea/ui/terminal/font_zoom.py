"""Zooming a terminal's font (Ctrl+Shift+= / - / 0): a point larger or smaller than the setting, or back to it;
and the Ctrl+Shift keys every terminal cell answers."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont

from idea.ui.terminal.appearance import MIN_POINT_SIZE, TerminalAppearance


class FontZoom:
    def __init__(self, appearance: Callable[[], TerminalAppearance], apply: Callable[[QFont], None]) -> None:
        self._appearance = appearance
        self._apply = apply
        self.steps = 0

    def font(self) -> QFont:
        return self._appearance().font(self.steps)

    def zoom_in(self) -> None:
        self._set(self.steps + 1)

    def zoom_out(self) -> None:
        self._set(self.steps - 1)

    def zoom_reset(self) -> None:
        self._set(0)

    def _set(self, steps: int) -> None:
        if self._appearance().point_size + steps < MIN_POINT_SIZE or steps == self.steps:
            return
        self.steps = steps
        self._apply(self.font())


# What the keys of `cell_shortcuts` do, as Help ▸ Keyboard shortcuts lists them.
TERMINAL_SHORTCUTS: tuple[tuple[str, str], ...] = (
    ("Ctrl+Shift+C", "Copy the selection"),
    ("Ctrl+Shift+V", "Paste"),
    ("Ctrl+Shift+F", "Find in the scrollback"),
    ("Ctrl+Shift+=", "Font bigger"),
    ("Ctrl+Shift+-", "Font smaller"),
    ("Ctrl+Shift+0", "Font size as set"),
)


def cell_shortcuts(
    copy: Callable[[], None], paste: Callable[[], None], toggle_find: Callable[[], None], zoom: FontZoom
) -> dict[int, Callable[[], None]]:
    """Ctrl+Shift+key → action, by key (copy, paste, find, font bigger / smaller / reset)."""
    return {
        Qt.Key.Key_C.value: copy,
        Qt.Key.Key_V.value: paste,
        Qt.Key.Key_F.value: toggle_find,
        Qt.Key.Key_Equal.value: zoom.zoom_in,
        Qt.Key.Key_Plus.value: zoom.zoom_in,
        Qt.Key.Key_Minus.value: zoom.zoom_out,
        Qt.Key.Key_Underscore.value: zoom.zoom_out,
        Qt.Key.Key_0.value: zoom.zoom_reset,
        Qt.Key.Key_ParenRight.value: zoom.zoom_reset,
    }
