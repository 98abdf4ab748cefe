"""The GUI entry point: builds the application through the composition root, restores the windows of the
last run, and offers the automation flags used for documentation and black-box tests."""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import sys
import time
from pathlib import Path

from PySide6.QtCore import QEvent, QEventLoop, QTimer
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication

from idea import __version__
from idea.bootstrap import SHUTDOWN_TIMEOUT_S, App, bootstrap
from idea.infrastructure.paths import user_data_dir
from idea.infrastructure.resources import resources_dir
from idea.ui.core_client import CoreClient
from idea.ui.crash import has_screen, keep_uncaught, report_start_failure
from idea.ui.event_relay import EventRelay
from idea.ui.gui_thread import GuiThread
from idea.ui.terminal.appearance import TerminalAppearance
from idea.ui.terminal.qtermwidget_terminal import QtTerminalFactory
from idea.ui.theme import apply_theme
from idea.ui.screenshots import Saved, save_windows, target_problem, windows_to_capture
from idea.ui.widgets.messages import error_text, show_error
from idea.ui.windows.window_manager import WindowManager


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="idea", description="IdeA: manage a team of AI coding agents.")
    parser.add_argument("paths", nargs="*", help="project folders to open")
    parser.add_argument("--version", action="version", version=f"IdeA {__version__}")
    parser.add_argument(
        "--screenshot", metavar="FILE.png",
        help="save every window and dialog as PNG (FILE.png, FILE-2.png, ...; the folder must exist), then quit",
    )
    parser.add_argument("--quit-after", metavar="MS", type=int, help="quit after MS milliseconds")
    return parser.parse_args(argv)


class GuiSession:
    """Everything the running GUI holds, so tests can start and stop it like the real program."""

    def __init__(self, qt_app: QApplication, data_dir: Path | None = None) -> None:
        self.qt_app = qt_app
        self.gui = GuiThread()
        built: list[QtTerminalFactory] = []

        def qt_terminals(loop: asyncio.AbstractEventLoop) -> QtTerminalFactory:
            built.append(QtTerminalFactory(self.gui, loop, TerminalAppearance()))
            return built[0]

        self.app: App = bootstrap(terminals=qt_terminals, data_dir=data_dir)
        try:
            self.terminals = built[0]
            self.relay = EventRelay(self.app.events)
            self.client = CoreClient(self.app.core, self.gui, self._report_error)
            self.windows = WindowManager(self.app, self.client, self.terminals, self.relay, self.apply_theme)
            self.apply_theme()
        except BaseException:
            self.app.shutdown()  # the core thread started: nothing may keep running behind a failed start
            raise

    def apply_theme(self) -> None:
        settings = self.app.preferences.settings
        apply_theme(self.qt_app, settings.color_scheme)
        self.terminals.set_appearance(TerminalAppearance.from_settings(settings))

    def _report_error(self, error: BaseException) -> None:
        """A use case failed and nobody asked to handle it: said in the status bar and a box that does not
        block (the core may be waiting on the GUI thread; automation must never wait for a click)."""
        message = error_text(error)
        window = self.windows.active_window() if self.windows.windows else None
        if window is not None:
            window.show_message(message)
            show_error(window, "IdeA", message)

    def screenshot(self, target: str) -> Saved:
        """Every window and dialog on screen as PNG: FILE.png, FILE-2.png, ..."""
        return save_windows(target, windows_to_capture(self.windows.windows))

    def shutdown(self) -> None:
        self.relay.close()

        def keep_gui_alive(closing: concurrent.futures.Future[None]) -> None:
            deadline = time.monotonic() + SHUTDOWN_TIMEOUT_S
            while not closing.done() and time.monotonic() < deadline:
                self.qt_app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)

        self.app.shutdown(keep_gui_alive)
        self.terminals.close()
        self.qt_app.sendPostedEvents(None, QEvent.Type.DeferredDelete.value)


def run_gui(argv: list[str]) -> int:
    args = parse_args(argv)
    if args.screenshot and (problem := target_problem(args.screenshot)) is not None:
        print(f"idea: cannot save screenshots as {args.screenshot}: {problem}", file=sys.stderr)
        return 2
    qt_app = QApplication.instance() or QApplication([sys.argv[0], *[a for a in sys.argv[1:] if a.startswith("-platform")]])
    qt_app.setApplicationName("IdeA")
    qt_app.setApplicationDisplayName("IdeA")
    qt_app.setApplicationVersion(__version__)
    qt_app.setDesktopFileName("idea")
    qt_app.setWindowIcon(QIcon(str(resources_dir() / "icons" / "idea.svg")))
    automation = args.screenshot is not None or args.quit_after is not None
    logs = user_data_dir() / "logs"
    try:
        session = GuiSession(qt_app)
    except Exception as error:  # noqa: BLE001 - every way a start fails is told the same way
        return report_start_failure(error, logs, interactive=has_screen(automation))
    sys.excepthook = keep_uncaught(logs)
    finish = AutomatedFinish(session, args.screenshot)
    if automation:  # armed before anything is restored: nothing during start-up can keep it from firing
        QTimer.singleShot(args.quit_after if args.quit_after is not None else 3000, finish)
    try:
        session.windows.restore([str(Path(p).expanduser()) for p in args.paths])
    except Exception as error:  # noqa: BLE001
        session.windows.quit_without_asking()
        session.shutdown()
        return report_start_failure(error, logs, interactive=has_screen(automation))
    code = qt_app.exec()
    session.shutdown()
    return code or finish.exit_code


class AutomatedFinish:
    """`--quit-after` / `--screenshot`: capture, then quit whatever happens; a failed capture is said on
    stderr and makes the exit status 1."""

    def __init__(self, session: GuiSession, screenshot: str | None) -> None:
        self._session = session
        self._screenshot = screenshot
        self.exit_code = 0

    def __call__(self) -> None:
        try:
            if self._screenshot:
                saved = self._session.screenshot(self._screenshot)
                for path in saved.paths:
                    print(path, flush=True)
                for failure in saved.failures:
                    print(f"idea: screenshot not saved: {failure}", file=sys.stderr, flush=True)
                if saved.failures:
                    self.exit_code = 1
        except Exception as error:  # noqa: BLE001 - the capture must never keep IdeA from quitting
            print(f"idea: screenshot not saved: {error}", file=sys.stderr, flush=True)
            self.exit_code = 1
        finally:
            self._session.windows.quit_without_asking()
