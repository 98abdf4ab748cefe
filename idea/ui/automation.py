"""The command-line options for documentation, benchmarks and black-box tests of the real program:
`--screenshot`, `--dump-screens`, `--quit-after`, `--quit-at-first-paint`."""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any, Protocol

from PySide6.QtCore import QEvent, QObject, QTimer

from idea.ui.terminal.factory import TerminalViewFactory
from idea.ui.windows.window_manager import WindowManager

DEFAULT_QUIT_AFTER_MS = 3000


class GuiSession(Protocol):
    """What the options need of the running GUI (`idea.ui.app.GuiSession`)."""

    windows: WindowManager
    terminals: TerminalViewFactory[Any]
    first_paint_filter: QObject | None

    def screenshot(self, target: str) -> list[str]: ...


def add_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--screenshot", metavar="FILE.png", help="save each window as PNG, then quit")
    parser.add_argument("--quit-after", metavar="MS", type=int, help="quit after MS milliseconds")
    parser.add_argument("--dump-screens", metavar="FILE.txt", help="with --screenshot or --quit-after: save the "
                        "text on every terminal's screen before quitting")
    parser.add_argument("--quit-at-first-paint", action="store_true", help="print 'first-paint <epoch seconds>' "
                        "when a window is first painted, then quit (start-up benchmarks)")


class _FirstPaint(QObject):
    def __init__(self, session: GuiSession) -> None:
        super().__init__()
        self._session = session
        self._seen = False

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's name
        if event.type() == QEvent.Type.Paint and not self._seen:
            self._seen = True
            print(f"first-paint {time.time():.6f}", flush=True)
            QTimer.singleShot(0, self._session.windows.quit_without_asking)
        return False


def arm(session: GuiSession, args: argparse.Namespace) -> None:
    """After the windows are restored: schedule what the options ask for."""
    if args.quit_at_first_paint:
        session.first_paint_filter = _FirstPaint(session)
        for window in session.windows.windows:
            window.installEventFilter(session.first_paint_filter)
    if args.quit_after is None and not args.screenshot:
        return

    def finish() -> None:
        if args.screenshot:
            for path in session.screenshot(args.screenshot):
                print(path)
        if args.dump_screens:
            screens = session.terminals.screen_texts()
            Path(args.dump_screens).write_text(
                "".join(f"--- terminal {n}\n{text}\n" for n, text in enumerate(screens, 1)), encoding="utf-8"
            )
            print(args.dump_screens)
        session.windows.quit_without_asking()

    QTimer.singleShot(args.quit_after if args.quit_after is not None else DEFAULT_QUIT_AFTER_MS, finish)
