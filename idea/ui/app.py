"""The GUI entry point: builds the application through the composition root, restores the windows of the
last run, and offers the automation flags used for documentation and black-box tests."""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import os
import sys
import time
from pathlib import Path
from typing import Any

from PySide6.QtCore import QEvent, QEventLoop, QObject
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication

from idea import __version__
from idea.bootstrap import SHUTDOWN_TIMEOUT_S, App, bootstrap
from idea.infrastructure.paths import user_data_dir
from idea.infrastructure.resources import DESKTOP_ID, SCALABLE_ICON, resources_dir
from idea.ui import automation
from idea.ui.core_client import CoreClient
from idea.ui.crash import has_screen, keep_uncaught, report_start_failure
from idea.ui.desktop_alerts import GuiDesktopAlerts
from idea.ui.event_relay import EventRelay
from idea.ui.gui_thread import GuiThread
from idea.ui.icons import recolor_icons
from idea.ui.qt_messages import drop_known_noise
from idea.ui.quit_signals import QuitOnSignals
from idea.ui.terminal.appearance import TerminalAppearance
from idea.ui.terminal.backend import backend_or_default, make_terminal_factory
from idea.ui.terminal.factory import TerminalViewFactory
from idea.ui.theme import apply_theme
from idea.ui.screenshots import Saved, save_windows, target_problem, windows_to_capture
from idea.ui.widgets.messages import error_text, show_error
from idea.ui.windows.desktop_menu import refresh_at_start
from idea.ui.windows.window_manager import WindowManager


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="idea",
        description="IdeA: manage a team of AI coding agents.",
        epilog="commands:\n  idea doctor           check what IdeA needs on this machine; say what is missing",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("paths", nargs="*", help="project folders to open")
    parser.add_argument("--version", action="version", version=f"IdeA {__version__}")
    automation.add_options(parser)
    return parser.parse_args(argv)


class GuiSession:
    """Everything the running GUI holds, so tests can start and stop it like the real program."""

    def __init__(self, qt_app: QApplication, data_dir: Path | None = None) -> None:
        self.qt_app = qt_app
        self.gui = GuiThread()
        built: list[TerminalViewFactory[Any]] = []
        backend = backend_or_default(os.environ)

        def qt_terminals(loop: asyncio.AbstractEventLoop) -> TerminalViewFactory[Any]:
            built.append(make_terminal_factory(backend, self.gui, loop, TerminalAppearance()))
            return built[0]

        self.app: App = bootstrap(terminals=qt_terminals, data_dir=data_dir)
        try:
            self.terminals = built[0]
            self.relay = EventRelay(self.app.events)
            self.client = CoreClient(self.app.core, self.gui, self._report_error)
            self.windows = WindowManager(self.app, self.client, self.terminals, self.relay, self.apply_theme)
            self.alerts = GuiDesktopAlerts(self.app, self.relay, self.gui, self.show_agent)
            self.windows.settings.settings_changed = self.alerts.settings_changed
            self.first_paint_filter: QObject | None = None  # --quit-at-first-paint
            self.apply_theme()
        except BaseException:
            self.app.shutdown()  # the core thread started: nothing may keep running behind a failed start
            raise

    def show_agent(self, project_id: str, agent_id: str) -> None:
        """What a click on a notification does: the project's window comes to the front on its tab, and the
        agent is shown — its cell focused, or, running in the background, shown in a cell."""
        window = self.windows.window_of(project_id)
        if window is None:
            return
        window.focus_tab(project_id)
        window.showNormal() if window.isMinimized() else window.show()
        window.raise_()
        window.activateWindow()
        window.agents_panel.run_gestures.activate(agent_id)

    def apply_theme(self) -> None:
        settings = self.app.preferences.settings
        apply_theme(self.qt_app, settings.color_scheme)
        recolor_icons()
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
        self.alerts.close()
        self.relay.close()

        def keep_gui_alive(closing: concurrent.futures.Future[None]) -> None:
            deadline = time.monotonic() + SHUTDOWN_TIMEOUT_S
            while not closing.done() and time.monotonic() < deadline:
                self.qt_app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)

        self.app.shutdown(keep_gui_alive)
        self.terminals.close()
        self.qt_app.sendPostedEvents(None, QEvent.Type.DeferredDelete.value)


def split_qt_arguments(argv: list[str]) -> tuple[list[str], list[str]]:
    """Qt's `-platform NAME` (or `-platform=NAME`) apart from IdeA's own arguments. On Windows under Wine it
    is the only way to choose a platform: Wine drops QT_* variables."""
    qt: list[str] = []
    rest: list[str] = []
    args = iter(argv)
    for arg in args:
        if arg == "-platform":
            qt += [arg, next(args, "")]
        elif arg.startswith("-platform="):
            qt += ["-platform", arg.split("=", 1)[1]]
        else:
            rest.append(arg)
    return qt, rest


def run_gui(argv: list[str]) -> int:
    qt_arguments, argv = split_qt_arguments(argv)
    args = parse_args(argv)
    if args.screenshot and (problem := target_problem(args.screenshot)) is not None:
        print(f"idea: cannot save screenshots as {args.screenshot}: {problem}", file=sys.stderr)
        return 2
    drop_known_noise()
    qt_app = QApplication.instance() or QApplication([sys.argv[0], *qt_arguments])
    qt_app.setApplicationName("IdeA")
    qt_app.setApplicationDisplayName("IdeA")
    qt_app.setApplicationVersion(__version__)
    qt_app.setDesktopFileName(DESKTOP_ID)
    qt_app.setWindowIcon(QIcon(str(resources_dir() / SCALABLE_ICON)))
    automated = automation.requested(args)
    logs = user_data_dir() / "logs"
    try:
        session = GuiSession(qt_app)
    except Exception as error:  # noqa: BLE001 - every way a start fails is told the same way
        return report_start_failure(error, logs, interactive=has_screen(automated))
    sys.excepthook = keep_uncaught(logs)
    finish = automation.arm_finish(session, args)  # before the restore: nothing in it can keep it from firing
    # Before the restore too: a project's socket may appear (and a signal come) before the restore returns.
    signals = QuitOnSignals(session.windows.quit_without_asking)
    try:
        refresh_at_start(session.app.diagnostics)
        session.windows.restore([str(Path(p).expanduser().absolute()) for p in args.paths])
    except Exception as error:  # noqa: BLE001
        signals.close()
        session.windows.quit_without_asking()
        session.shutdown()
        return report_start_failure(error, logs, interactive=has_screen(automated))
    automation.arm_first_paint(session, args)
    code = qt_app.exec()
    signals.close()
    session.shutdown()
    return code or finish.exit_code

