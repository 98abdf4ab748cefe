"""The command-line options for documentation, benchmarks and black-box tests of the real program:
`--screenshot`, `--dump-screens`, `--quit-after`, `--quit-at-first-paint`."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from PySide6.QtCore import QEvent, QObject, QTimer

from idea.ui.screenshots import Saved
from idea.ui.terminal.factory import TerminalViewFactory
from idea.ui.windows.window_manager import WindowManager

DEFAULT_QUIT_AFTER_MS = 3000


class GuiSession(Protocol):
    """What the options need of the running GUI (`idea.ui.app.GuiSession`)."""

    windows: WindowManager
    terminals: TerminalViewFactory[Any]
    first_paint_filter: QObject | None

    def screenshot(self, target: str) -> Saved: ...


def add_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--screenshot", metavar="FILE.png",
        help="save every window and dialog as PNG (FILE.png, FILE-2.png, ...; the folder must exist), then quit",
    )
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


def requested(args: argparse.Namespace) -> bool:
    """Whether IdeA runs unattended: it quits by itself, and must never wait for a click."""
    return args.screenshot is not None or args.quit_after is not None or args.quit_at_first_paint


class Finish:
    """`--quit-after` / `--screenshot` / `--dump-screens`: capture, then quit whatever happens; a capture
    that fails is said on stderr and makes the exit status 1."""

    def __init__(self, session: GuiSession, args: argparse.Namespace) -> None:
        self._session = session
        self._args = args
        self.exit_code = 0

    def __call__(self) -> None:
        try:
            if self._args.screenshot:
                self._capture("screenshot", self._screenshot)
            if self._args.dump_screens:
                self._capture("screen dump", self._dump_screens)
        finally:
            self._session.windows.quit_without_asking()

    def _screenshot(self) -> list[str]:
        saved = self._session.screenshot(self._args.screenshot)
        for path in saved.paths:
            print(path, flush=True)
        return saved.failures

    def _dump_screens(self) -> list[str]:
        screens = self._session.terminals.screen_texts()
        Path(self._args.dump_screens).write_text(
            "".join(f"--- terminal {n}\n{text}\n" for n, text in enumerate(screens, 1)), encoding="utf-8"
        )
        print(self._args.dump_screens, flush=True)
        return []

    def _capture(self, what: str, step: Callable[[], list[str]]) -> None:
        try:
            failures = step()
        except Exception as error:  # noqa: BLE001 - a capture must never keep IdeA from quitting
            failures = [str(error)]
        for failure in failures:
            print(f"idea: {what} not saved: {failure}", file=sys.stderr, flush=True)
        if failures:
            self.exit_code = 1


def arm_finish(session: GuiSession, args: argparse.Namespace) -> Finish:
    """Before anything is restored, so that nothing during start-up can keep it from firing."""
    finish = Finish(session, args)
    if args.quit_after is not None or args.screenshot:
        QTimer.singleShot(args.quit_after if args.quit_after is not None else DEFAULT_QUIT_AFTER_MS, finish)
    return finish


def arm_first_paint(session: GuiSession, args: argparse.Namespace) -> None:
    """After the windows are restored: quit once one of them is painted."""
    if args.quit_at_first_paint:
        session.first_paint_filter = _FirstPaint(session)
        for window in session.windows.windows:
            window.installEventFilter(session.first_paint_filter)
