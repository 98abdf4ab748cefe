"""What the native cell's parts need of one another: the canvas and the mouse input work on the view through
`ViewSurface`, the mouse input repaints the canvas through `CanvasSurface`. The view implements the first, the
canvas the second; the parts depend on these protocols, not on each other."""

from __future__ import annotations

from typing import Any, Protocol

from idea.ui.terminal.font_zoom import FontZoom
from idea.ui.terminal.native.painter import CellMetrics
from idea.ui.terminal.native.screen import TerminalScreen
from idea.ui.terminal.native.selection import Selection


class ViewSurface(Protocol):
    """`NativeTerminalView` as its canvas and mouse input see it: the screen state and the actions."""

    screen: TerminalScreen
    selection: Selection
    zoom: FontZoom
    focused: Any  # the view's `focused` Qt signal

    def send(self, data: bytes) -> None: ...

    def type_in(self, data: bytes) -> None: ...

    def has_exited(self) -> bool: ...

    def display_resized(self) -> None: ...

    def selected_text(self) -> str: ...

    def copy(self) -> None: ...

    def paste(self) -> None: ...

    def paste_text(self, text: str) -> None: ...

    def toggle_find(self) -> None: ...


class CanvasSurface(Protocol):
    """`TerminalCanvas` as the mouse input sees it."""

    metrics: CellMetrics

    def update(self) -> None: ...
