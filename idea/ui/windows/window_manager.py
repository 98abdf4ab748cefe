"""The windows of the application and the project tabs they hold.

Tabs are views over project runtimes owned by the application; moving a tab to another window
reparents its widgets and never touches a process. The arrangement is saved in workspace.json.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QPoint
from PySide6.QtWidgets import QApplication, QFileDialog, QMessageBox, QWidget

from idea.application.projects import ProjectRuntime
from idea.bootstrap import App
from idea.domain.events import ProjectProblem
from idea.domain.project import ProjectRecord
from idea.ui.agents.resume_dialog import offer_resume
from idea.ui.core_client import CoreClient
from idea.ui.event_relay import EventRelay
from idea.ui.knowledge.knowledge_screens import KnowledgeScreens
from idea.ui.terminal.factory import TerminalViewFactory
from idea.ui.widgets.messages import error_text, show_error
from idea.ui.doctor import about_rows
from idea.ui.windows.agent_screens import AgentScreens
from idea.ui.windows.diagnostics_window import DiagnosticsScreen, DiagnosticsSources
from idea.ui.windows.main_window import MainWindow
from idea.ui.windows.project_tab import ProjectTab
from idea.ui.windows.settings_dialog import SettingsControl
from idea.ui.windows.tab_bar import ProjectTabBar
from idea.ui.windows.workspace_saver import WorkspaceSaver, restore_window_state


class WindowManager:
    def __init__(
        self,
        app: App,
        client: CoreClient,
        terminals: TerminalViewFactory[Any],
        relay: EventRelay,
        theme_changed: Callable[[], None],
    ) -> None:
        self._app = app
        self._client = client
        self._terminals = terminals
        self.windows: list[MainWindow] = []
        self._screens = AgentScreens(
            client, app.profiles, app.templates, app.permissions, app.projects.open_runtimes,
            self.profiles_changed,
        )
        self.knowledge = KnowledgeScreens(client)
        self.tabs: dict[str, ProjectTab] = {}
        self.settings = SettingsControl(app.preferences, theme_changed)
        self.diagnostics = DiagnosticsScreen(DiagnosticsSources(
            app.diagnostics, app.data_dir, self.settings, client, self.recent_projects, about_rows
        ))
        self._quitting = False
        self._workspace = WorkspaceSaver(app.preferences, lambda: self.windows, lambda: self._quitting)
        self._unseen_notices: list[str] = []  # told before any window existed
        relay.published.connect(self._route)

    @property
    def app(self) -> App:
        return self._app

    @property
    def client(self) -> CoreClient:
        return self._client

    def profiles_changed(self) -> None:
        for window in self.windows:
            window.agents_panel.refresh()

    # -- windows --

    def new_window(self, window_id: str | None = None) -> MainWindow:
        window = MainWindow(self, self._screens, self.knowledge, window_id or str(uuid.uuid4()))
        window.closing.connect(self._window_closed)
        self.windows.append(window)
        for message in self._unseen_notices:
            window.show_notice(message)
        self._unseen_notices.clear()
        self.workspace_changed()
        return window

    def open_new_window(self) -> None:
        self.new_window().show()

    def move_targets(self, window: MainWindow) -> list[tuple[str, ProjectTabBar]]:
        return [(other.windowTitle(), other.tab_bar) for other in self.windows if other is not window]

    def active_window(self) -> MainWindow:
        active = QApplication.activeWindow()
        for window in self.windows:
            if window is active:
                return window
        return self.windows[-1] if self.windows else self.new_window()

    def window_of(self, project_id: str) -> MainWindow | None:
        return next((w for w in self.windows if project_id in w.project_ids()), None)

    def notify(self, message: str) -> None:
        """Tell the person something that stays on screen until dismissed, without a modal box: start-up and
        automation (`--quit-after`) must never wait for a click."""
        if not self.windows:
            if message not in self._unseen_notices:
                self._unseen_notices.append(message)
            return
        self.active_window().show_notice(message)

    # -- projects --

    def recent_projects(self) -> list[ProjectRecord]:
        return self._app.projects.recent_projects()

    def diagnostics_path(self) -> str:
        return str(self._app.diagnostics.path)

    def choose_and_open(self, window: MainWindow) -> None:
        folder = QFileDialog.getExistingDirectory(window, "Open project folder", os.path.expanduser("~"))
        if folder:
            self.open_project(folder, window)

    def open_project(
        self,
        path: str,
        window: MainWindow | None = None,
        *,
        activate: bool = True,
        asked: bool = True,
        restored_id: str | None = None,
    ) -> None:
        """Open a project in a tab of `window`. `asked`: the person chose it now (a failure also opens a
        non-modal box); restored and command-line projects report a failure in the notice area only.
        `restored_id`: the tab restored from the workspace, kept in it until the project has opened."""
        target = window or self.active_window()
        if restored_id is not None:
            self._workspace.opening(target.window_id, restored_id)
        target.welcome.opening(path, True)

        def settled() -> None:
            target.welcome.opening(path, False)
            if restored_id is not None:
                self._workspace.settled(target.window_id, restored_id)

        def opened(runtime: ProjectRuntime) -> None:
            settled()
            tab = self.tabs.get(runtime.id)
            if tab is None:
                tab = ProjectTab(runtime, self._client, self._terminals)
                self.tabs[runtime.id] = tab
                target.add_project_tab(tab, activate=activate)
                self.workspace_changed()
                offer_resume(self._client, runtime, target, leaving=lambda: self._quitting)
            elif activate:
                owner = self.window_of(runtime.id)
                if owner is not None:
                    owner.focus_tab(runtime.id)

        def failed(error: BaseException) -> None:
            settled()
            message = error_text(error)
            target.show_notice(message)
            if asked:
                show_error(target, "Cannot open project", message)

        self._client.call(self._app.projects.open(path), on_done=opened, on_error=failed)

    def close_project(self, project_id: str, *, confirm: bool = True) -> None:
        tab = self.tabs.get(project_id)
        if tab is None:
            return
        owner = self.window_of(project_id)
        if confirm and owner is not None and not _confirm_stop(owner, [tab], "Close project"):
            return
        self._forget_tab(project_id)
        self._client.call(self._app.projects.close(project_id))

    def _forget_tab(self, project_id: str) -> None:
        tab = self.tabs.pop(project_id, None)
        owner = self.window_of(project_id)
        if owner is not None:
            owner.take_project_tab(project_id)
        if tab is not None:
            for cell in tab.grid.cells().values():
                cell.release()
            tab.deleteLater()
        self.workspace_changed()

    # -- moving tabs between windows --

    def move_tab(self, project_id: str, target: QWidget | None, index: int, at: QPoint | None) -> None:
        """Move a tab to the window owning the tab bar `target`, or to a new window (at `at`)."""
        source = self.window_of(project_id)
        tab = self.tabs.get(project_id)
        if source is None or tab is None:
            return
        destination = next((w for w in self.windows if w.tab_bar is target), None)
        if destination is source and isinstance(target, ProjectTabBar):
            current = source.project_ids().index(project_id)
            if index >= 0 and index != current:
                target.moveTab(current, min(index, target.count() - 1))
            return
        if destination is None:
            if source.tabs.count() == 1 and target is None and at is None:
                return  # already alone in its window
            destination = self.new_window()
            destination.resize(source.size())
            if at is not None:
                destination.move(at - QPoint(40, 20))
        source.take_project_tab(project_id)
        destination.add_project_tab(tab, index)
        destination.show()
        destination.focus_tab(project_id)
        if source.tabs.count() == 0 and source is not destination:
            source.close()  # nothing runs there any more: no confirmation
        self.workspace_changed()

    # -- closing and quitting --

    def window_may_close(self, window: MainWindow) -> bool:
        if self._quitting:
            return True
        tabs = window.project_tabs()
        last_window = len(self.windows) == 1
        if not _confirm_stop(window, tabs, "Quit IdeA" if last_window else "Close window"):
            return False
        if last_window:
            self.save_workspace()  # the next start restores this window
            self._quitting = True
        return True

    def _window_closed(self, window: MainWindow) -> None:
        if window not in self.windows:
            return
        if self._quitting:
            # Terminals go back to the parking lot before the window's widgets are deleted: the
            # shutdown stops their processes properly.
            for tab in window.project_tabs():
                for cell in tab.grid.cells().values():
                    cell.release()
        else:
            for project_id in window.project_ids():
                self._forget_tab(project_id)
                self._client.call(self._app.projects.close(project_id))
        self.windows.remove(window)
        window.deleteLater()
        if not self._quitting:
            self.workspace_changed()

    def quit(self) -> None:
        tabs = [tab for window in self.windows for tab in window.project_tabs()]
        if _confirm_stop(self.active_window(), tabs, "Quit IdeA"):
            self.quit_without_asking()

    def quit_without_asking(self) -> None:
        """Automation (--quit-after): keep the workspace for the next start and stop everything."""
        self.save_workspace()
        self._quitting = True
        for window in list(self.windows):
            window.close()
        QApplication.closeAllWindows()  # the dialogs too (QApplication.quit() would, but only in its loop)
        QApplication.quit()

    # -- events --

    def _route(self, event: object) -> None:
        project_id = getattr(event, "project_id", None)
        if project_id is not None:
            tab = self.tabs.get(project_id)
            if tab is not None:
                tab.on_event(event)
            for window in self.windows:
                window.agents_panel.on_event(event)
                window.git_panel.on_event(event)
                window.work_dock.on_event(event)
                window.elsewhere_nets.on_event(event)
            self.knowledge.on_event(event)
        elif isinstance(event, ProjectProblem):
            self.notify(event.message)

    # -- workspace persistence --

    def workspace_changed(self) -> None:
        self._workspace.changed()

    def save_workspace(self) -> None:
        self._workspace.save()

    def restore(self, extra_paths: list[str]) -> None:
        """Reopen the windows, tabs and projects of the last run, then the projects named on the command line."""
        workspace = self._app.preferences.load_workspace()
        missing: list[str] = []
        for state in workspace.windows:
            window = self.new_window(state.id)
            restore_window_state(window, state)
            for project_id in state.tabs:
                record = self._app.projects.known_project(project_id)
                if record is None or not Path(record.root).is_dir():
                    missing.append(record.root if record else project_id)
                    continue
                self.open_project(
                    record.root, window, activate=project_id == state.active_tab, asked=False, restored_id=project_id
                )
            window.show()
        if not self.windows:
            self.new_window().show()
        for problem in self._app.startup_problems():
            self.notify(problem)
        if self._app.profiles.needs_setup():
            self._screens.open_setup_wizard(self.windows[0])
        for path in extra_paths:
            self.open_project(path, self.windows[0], asked=False)
        if missing:
            self.windows[0].show_notice("Not reopened (folder missing): " + ", ".join(missing))


def _confirm_stop(window: QWidget, tabs: list[ProjectTab], title: str) -> bool:
    live = [session for tab in tabs for session in tab.busy_sessions()]
    if not live:
        return True
    count = len(live)
    answer = QMessageBox.question(
        window,
        title,
        f"{count} terminal{'s are' if count > 1 else ' is'} still running. Closing stops "
        f"{'them' if count > 1 else 'it'}.",
        QMessageBox.StandardButton.Close | QMessageBox.StandardButton.Cancel,
        QMessageBox.StandardButton.Cancel,
    )
    return answer == QMessageBox.StandardButton.Close
