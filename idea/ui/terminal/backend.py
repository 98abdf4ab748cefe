"""Which terminal cells the GUI uses: QTermWidget on Linux and macOS, the native view on Windows (QTermWidget
does not exist there), or the native view anywhere when IDEA_TERMINAL=native asks for it."""

from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import Mapping
from typing import Any

from idea.domain.errors import AppError, ErrorCode
from idea.ui.gui_thread import GuiThread
from idea.ui.terminal.appearance import TerminalAppearance
from idea.ui.terminal.factory import TerminalViewFactory

_log = logging.getLogger(__name__)

BACKEND_VARIABLE = "IDEA_TERMINAL"
NATIVE = "native"
QTERMWIDGET = "qtermwidget"


def chosen_backend(environ: Mapping[str, str], platform: str = sys.platform) -> str:
    """`native` or `qtermwidget`; AppError(INVALID) for a value of IDEA_TERMINAL it does not know."""
    requested = environ.get(BACKEND_VARIABLE, "").strip().lower()
    if requested not in ("", NATIVE, QTERMWIDGET):
        raise AppError(
            ErrorCode.INVALID, f"{BACKEND_VARIABLE}={requested!r} is not a terminal backend (use {NATIVE} or {QTERMWIDGET})"
        )
    if platform == "win32":
        return NATIVE  # QTermWidget is POSIX-only
    return requested or QTERMWIDGET


def backend_or_default(environ: Mapping[str, str], platform: str = sys.platform) -> str:
    """The chosen backend; for an unknown IDEA_TERMINAL value, the platform's default and a warning."""
    try:
        return chosen_backend(environ, platform)
    except AppError as error:
        print(f"IdeA: {error.message}; using the default terminal", file=sys.stderr)
        _log.warning("%s; using the default terminal", error.message)
        return chosen_backend({}, platform)


def make_terminal_factory(
    backend: str, gui: GuiThread, loop: asyncio.AbstractEventLoop, appearance: TerminalAppearance
) -> TerminalViewFactory[Any]:
    if backend == NATIVE:
        from idea.ui.terminal.native.session import NativeTerminalFactory

        return NativeTerminalFactory(gui, loop, appearance)
    from idea.ui.terminal.qtermwidget_terminal import QtTerminalFactory

    return QtTerminalFactory(gui, loop, appearance)
