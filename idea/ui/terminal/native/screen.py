"""The terminal state of a native cell: libghostty-vt (through `evp`) fed with the program's output.

The emulator answers the program's queries itself (cursor position, device attributes, OSC 10/11/4 colours
from the scheme given here); the answers go to `reply`. Everything here runs on the GUI thread.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import evp

from idea.ui.terminal.appearance import Rgb, SchemeColors

SCROLLBACK_BYTES_PER_LINE = 400  # libghostty bounds its scrollback in bytes: about a styled line of 120 cells
_CUBE_STEPS = (0, 95, 135, 175, 215, 255)


def xterm_palette(first_sixteen: tuple[Rgb, ...]) -> bytes:
    """The 256-colour palette: the scheme's 16 colours, xterm's 6×6×6 cube and its 24 greys, as 768 bytes."""
    colours = list(first_sixteen[:16])
    colours += [(r, g, b) for r in _CUBE_STEPS for g in _CUBE_STEPS for b in _CUBE_STEPS]
    colours += [(8 + 10 * step,) * 3 for step in range(24)]  # type: ignore[misc]
    return bytes(channel for colour in colours for channel in colour)


@dataclass(frozen=True)
class CellStyle:
    """How a run of cells is drawn, with the colours already resolved."""

    foreground: Rgb
    background: Rgb
    default_background: bool  # no need to paint the background
    bold: bool = False
    italic: bool = False
    underline: bool = False
    strikethrough: bool = False
    invisible: bool = False


class TerminalScreen:
    def __init__(
        self,
        columns: int,
        lines: int,
        colors: SchemeColors,
        history_lines: int,
        *,
        reply: Callable[[bytes], None],
        on_title: Callable[[str], None],
        on_bell: Callable[[], None],
    ) -> None:
        self._terminal = evp.Terminal(
            columns,
            lines,
            max_scrollback_bytes=max(1, history_lines) * SCROLLBACK_BYTES_PER_LINE,
            on_write_pty=reply,
            on_title_changed=on_title,
            on_bell=on_bell,
            on_color_scheme=self._color_scheme,
        )
        self._state = evp.RenderState(self._terminal)
        self._styles: list[evp.Style] = []
        self._resolved: dict[int, CellStyle] = {}
        self._colors = colors
        self._frame: evp.Frame | None = None
        self._dirty = True
        self.set_colors(colors)
        self.keys = evp.KeyEncoder(self._terminal)
        self.mouse = evp.MouseEncoder(self._terminal, track_last_cell=True)

    # Output and size

    def feed(self, data: bytes) -> None:
        self._terminal.feed(data)
        self._dirty = True

    def resize(self, columns: int, lines: int) -> None:
        if (columns, lines) != self._terminal.size():
            self._terminal.resize(columns, lines)
            self._dirty = True

    def size(self) -> tuple[int, int]:
        return self._terminal.size()

    def mode(self, number: int) -> bool:
        return self._terminal.mode(number)

    def title(self) -> str:
        return self._terminal.title()

    # Colours

    def set_colors(self, colors: SchemeColors) -> None:
        self._colors = colors
        self._terminal.set_default_colors(colors.foreground, colors.background)
        self._terminal.set_default_palette(xterm_palette(colors.palette))
        self._resolved.clear()
        self._dirty = True

    def _color_scheme(self) -> evp.ColorScheme:
        light = sum(self._colors.background) > 3 * 128
        return evp.ColorScheme.LIGHT if light else evp.ColorScheme.DARK

    # Reading

    def frame(self) -> evp.Frame:
        """What the terminal shows now (cached until the next output)."""
        if self._dirty or self._frame is None:
            frame = self._state.frame()
            if frame.new_styles:
                self._styles.extend(frame.new_styles)
            if self._frame is None or (frame.palette, frame.foreground, frame.background) != (
                self._frame.palette,
                self._frame.foreground,
                self._frame.background,
            ):
                self._resolved.clear()
            self._frame = frame
            self._dirty = False
        return self._frame

    def style(self, index: int) -> CellStyle:
        resolved = self._resolved.get(index)
        if resolved is None:
            resolved = self._resolved[index] = self._resolve(self._styles[index])
        return resolved

    def text_rows(self) -> list[str]:
        """The visible rows as text, a wide character once, trailing spaces trimmed."""
        return [row_text(row) for row in self.frame().rows]

    def history_rows(self) -> list[str]:
        """Every row of the scrollback, oldest first, as text."""
        history = self._state.history()
        self._styles.extend(history.new_styles)
        return [row_text(row) for row in history.rows]

    def scroll_viewport(self, delta: int) -> None:
        self._terminal.scroll_viewport(delta)
        self._dirty = True

    def scroll_to_bottom(self) -> None:
        self._terminal.scroll_viewport_to_bottom()
        self._dirty = True

    def _resolve(self, style: evp.Style) -> CellStyle:
        frame = self.frame()
        foreground = self._colour(style.foreground, frame.foreground, frame.palette)
        background = self._colour(style.background, frame.background, frame.palette)
        default_background = style.background is None
        if style.inverse:
            foreground, background = background, foreground
            default_background = False
        if style.faint:
            foreground = _blend(foreground, background)
        return CellStyle(
            foreground=foreground,
            background=background,
            default_background=default_background,
            bold=style.bold,
            italic=style.italic,
            underline=style.underline != 0,
            strikethrough=style.strikethrough,
            invisible=style.invisible,
        )

    @staticmethod
    def _colour(colour: int | tuple[int, int, int] | None, default: Rgb, palette: bytes) -> Rgb:
        if colour is None:
            return default
        if isinstance(colour, int):
            return palette[colour * 3], palette[colour * 3 + 1], palette[colour * 3 + 2]
        return colour


def row_text(row: evp.Row) -> str:
    return "".join(g for g, width in zip(row.graphemes, row.widths, strict=True) if width != 0).rstrip(" ")


def _blend(foreground: Rgb, background: Rgb) -> Rgb:
    return (
        (foreground[0] + background[0]) // 2,
        (foreground[1] + background[1]) // 2,
        (foreground[2] + background[2]) // 2,
    )
