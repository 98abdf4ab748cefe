"""How terminals look: a monospace font, one of IdeA's two colour schemes, the scrollback length.

The schemes are `.colorscheme` files in `idea/resources/color-schemes/`; the same files give the colours IdeA
answers a program's OSC 10/11/4 colour queries with, so what a CLI asks for is what it is drawn on.
"""

from __future__ import annotations

import configparser
import functools
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtGui import QColor, QFont, QFontDatabase, QFontInfo

from idea.domain.workspace import ColorScheme, Settings
from idea.infrastructure.resources import resources_dir

DARK_SCHEME = "IdeA Dark"
LIGHT_SCHEME = "IdeA Light"
FALLBACK_FONT_FAMILY = "DejaVu Sans Mono"
MIN_POINT_SIZE = 5
TEXT_MARGIN = 6  # pixels between a terminal cell's edge and its text: text against the frame reads as cut off

Rgb = tuple[int, int, int]


@dataclass(frozen=True)
class TerminalAppearance:
    font_family: str | None = None  # None: the system's fixed-width font
    point_size: int = 11
    scheme: str = DARK_SCHEME
    history_lines: int = 10000

    @classmethod
    def from_settings(cls, settings: Settings) -> TerminalAppearance:
        return cls(
            font_family=settings.terminal_font.family,
            point_size=settings.terminal_font.point_size,
            scheme=DARK_SCHEME if settings.color_scheme is ColorScheme.DARK else LIGHT_SCHEME,
            history_lines=settings.scrollback_lines,
        )

    def font(self, zoom_steps: int = 0) -> QFont:
        """The terminal font, `zoom_steps` points larger (or smaller); always fixed-width."""
        font = QFont(monospace_family(self.font_family))
        font.setPointSize(max(MIN_POINT_SIZE, self.point_size + zoom_steps))
        font.setStyleHint(QFont.StyleHint.TypeWriter)
        font.setFixedPitch(True)
        font.setKerning(False)
        return font

    def colors(self) -> SchemeColors:
        return scheme_colors(self.scheme)


@dataclass(frozen=True)
class SchemeColors:
    foreground: Rgb
    background: Rgb
    palette: tuple[Rgb, ...]  # Color0..7, then their intense variants (ANSI 8..15)

    def background_color(self) -> QColor:
        return QColor(*self.background)


def monospace_family(requested: str | None) -> str:
    """`requested` if it resolves to a fixed-width font, else the system's fixed font, else DejaVu Sans Mono.

    A proportional font breaks every column layout (and the widget warns about it), so a family that the
    font system would replace by a proportional one is never used.
    """
    system_fixed = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont).family()
    for family in (requested, system_fixed):
        if family and QFontInfo(QFont(family)).fixedPitch():
            return family
    return FALLBACK_FONT_FAMILY


def color_schemes_dir() -> Path:
    return resources_dir() / "color-schemes"


@functools.cache
def register_color_schemes() -> None:
    """Make IdeA's schemes known to every terminal widget (once per process)."""
    from pyside6_qtermwidget import QTermWidget  # here: the package does not exist on Windows

    QTermWidget.addCustomColorSchemeDir(str(color_schemes_dir()))


@functools.cache
def scheme_colors(name: str) -> SchemeColors:
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    path = color_schemes_dir() / f"{name}.colorscheme"
    if not parser.read(path, encoding="utf-8"):
        raise FileNotFoundError(f"colour scheme {name!r} not found at {path}")

    def color(section: str) -> Rgb:
        red, green, blue = (int(part) for part in parser[section]["Color"].split(","))
        return red, green, blue

    return SchemeColors(
        foreground=color("Foreground"),
        background=color("Background"),
        palette=tuple(color(f"Color{index}") for index in range(8))
        + tuple(color(f"Color{index}Intense") for index in range(8)),
    )
