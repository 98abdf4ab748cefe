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
from PySide6.QtWidgets import QApplication, QMessageBox

from idea import __version__
from idea.bootstrap import SHUTDOWN_TIMEOUT_S, App, bootstrap
from idea.infrastructure.resources import resources_dir
from idea.ui.core_client import CoreClient
from idea.ui.event_relay import EventRelay
from idea.ui.gui_thread import GuiThread
from idea.ui.quit_signals import QuitOnSignals
from idea.ui.terminal.appearance import TerminalAppearance
from idea.ui.terminal.qtermwidget_terminal import QtTerminalFactory
from idea.ui.theme import apply_theme
from idea.ui.windows.window_manager import WindowManager


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="idea", description="IdeA: manage a team of AI coding agents.")
    parser.add_argument("paths", nargs="*", help="project folders to open")
    parser.add_argument("--version", action="version", version=f"IdeA {__version__}")
    parser.add_argument("--screenshot", metavar="FILE.png", help="save each window as PNG, then quit")
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
        self.terminals = built[0]
        self.relay = EventRelay(self.app.events)
        self.client = CoreClient(self.app.core, self.gui, self._report_error)
        self.windows = WindowManager(self.app, self.client, self.terminals, self.relay, self.apply_theme)
        self.apply_theme()

    def apply_theme(self) -> None:
        settings = self.app.preferences.settings
        apply_theme(self.qt_app, settings.color_scheme)
        self.terminals.set_appearance(TerminalAppearance.from_settings(settings))

    def _report_error(self, error: BaseException) -> None:
        message = getattr(error, "message", None) or f"Unexpected error: {error}"
        window = self.windows.active_window() if self.windows.windows else None
        if window is not None:
            window.show_message(message)
            QMessageBox.warning(window, "IdeA", message)

    def screenshot(self, target: str) -> list[str]:
        """One PNG per top-level window: FILE.png, FILE-2.png, ..."""
        base = Path(target)
        saved = []
        for number, window in enumerate(self.windows.windows, start=1):
            path = base if number == 1 else base.with_name(f"{base.stem}-{number}{base.suffix}")
            path.parent.mkdir(parents=True, exist_ok=True)
            window.grab().save(str(path), "PNG")
            saved.append(str(path))
        return saved

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
    qt_app = QApplication.instance() or QApplication([sys.argv[0], *[a for a in sys.argv[1:] if a.startswith("-platform")]])
    qt_app.setApplicationName("IdeA")
    qt_app.setApplicationDisplayName("IdeA")
    qt_app.setApplicationVersion(__version__)
    qt_app.setDesktopFileName("idea")
    qt_app.setWindowIcon(QIcon(str(resources_dir() / "icons" / "idea.svg")))
    session = GuiSession(qt_app)
    session.windows.restore([str(Path(p).expanduser()) for p in args.paths])
    if args.quit_after is not None or args.screenshot:
        delay = args.quit_after if args.quit_after is not None else 3000

        def finish() -> None:
            if args.screenshot:
                for path in session.screenshot(args.screenshot):
                    print(path)
            session.windows.quit_without_asking()

        QTimer.singleShot(delay, finish)
    signals = QuitOnSignals(session.windows.quit_without_asking)
    code = qt_app.exec()
    signals.close()
    session.shutdown()
    return code

