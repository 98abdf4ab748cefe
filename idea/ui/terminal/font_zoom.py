"""Zooming a terminal's font (Ctrl+Shift+= / - / 0): a point larger or smaller than the setting, or back to it."""

from __future__ import annotations

from collections.abc import Callable

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
