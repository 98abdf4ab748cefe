"""The menus of an IdeA window: File, Cell, Layout, Agents, Knowledge, View and Help. Each item calls a
gesture of the window, its current tab, the window manager or a screen; none holds a rule."""

from __future__ import annotations

import html
import platform
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

import PySide6
from PySide6.QtCore import Qt, qVersion
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QDockWidget, QMenu, QMenuBar, QMessageBox, QWidget

from idea import __version__
from idea.domain.project import ProjectRecord
from idea.ui.knowledge.knowledge_screens import KnowledgeScreens
from idea.ui.windows.agent_screens import AgentScreens
from idea.ui.windows.desktop_menu import add_menu_entry_action
from idea.ui.windows.diagnostics_window import DiagnosticsScreen
from idea.ui.windows.layout_bar import LayoutBar
from idea.ui.windows.project_tab import ProjectTab
from idea.ui.windows.settings_dialog import (
    DESKTOP_NOTIFICATION_KINDS,
    TRUST_RUN_DIRS,
    TRUST_RUN_DIRS_TIP,
    SettingsControl,
)
from idea.ui.windows.shortcuts_dialog import ShortcutsDialog, shortcut_groups

# IdeA's own shortcuts use Ctrl+Shift and Ctrl+Alt so the keys agent CLIs need (Esc, Ctrl+C, Ctrl+R,
# Tab, Shift+Tab, arrows, Ctrl+O...) always reach the terminal.
CELL_SHORTCUTS = (
    ("split-right", "Split right", "Ctrl+Shift+E"),
    ("split-down", "Split down", "Ctrl+Shift+O"),
    ("close", "Close cell", "Ctrl+Shift+W"),
    ("zoom", "Zoom or restore cell", "Ctrl+Shift+X"),
    ("merge", "Merge selected cells", "Ctrl+Shift+M"),
    ("equalize", "Equalize all cells", "Ctrl+Alt+="),
)
FOCUS_SHORTCUTS = (
    ("left", "Focus cell on the left", "Ctrl+Alt+Left"),
    ("right", "Focus cell on the right", "Ctrl+Alt+Right"),
    ("up", "Focus cell above", "Ctrl+Alt+Up"),
    ("down", "Focus cell below", "Ctrl+Alt+Down"),
)


class MenuWindow(Protocol):
    """What the menus use of their window (`MainWindow`)."""

    agents_panel: Any
    agents_dock: QDockWidget
    git_dock: QDockWidget
    work_dock: QDockWidget

    def menuBar(self) -> QMenuBar: ...

    def addAction(self, action: QAction) -> None: ...

    def close(self) -> bool: ...

    def current_tab(self) -> ProjectTab | None: ...

    def on_current_tab(self, act: Callable[[ProjectTab], object]) -> None: ...


class MenuHost(Protocol):
    """What the menus use of the application's set of windows (the WindowManager implements it)."""

    def choose_and_open(self, window: QWidget) -> None:
        """Ask for a project folder and open it in `window`."""
        ...

    def open_project(self, path: str, window: QWidget | None = None) -> None: ...

    def recent_projects(self) -> list[ProjectRecord]: ...

    def close_project(self, project_id: str) -> None: ...

    def open_new_window(self) -> None: ...

    def quit(self) -> None: ...

    @property
    def settings(self) -> SettingsControl: ...

    def diagnostics_path(self) -> str: ...

    @property
    def diagnostics(self) -> DiagnosticsScreen: ...


class WindowMenus:
    def __init__(
        self, window: MenuWindow, manager: MenuHost, screens: AgentScreens, knowledge: KnowledgeScreens
    ) -> None:
        self._window = window
        self._manager = manager
        self._screens = screens
        self._knowledge = knowledge
        self._shortcuts_dialog: ShortcutsDialog | None = None

    def build(self) -> None:
        window = self._window
        self._build_file_menu(self._window.menuBar().addMenu("&File"))
        self._build_cell_menu(self._window.menuBar().addMenu("&Cell"))
        self._build_layout_menu(self._window.menuBar().addMenu("&Layout"))
        self._build_agents_menu(self._window.menuBar().addMenu("&Agents"))
        self._knowledge.build_menu(
            self._window.menuBar().addMenu("&Knowledge"), window, window.work_dock,
            lambda: tab.runtime if (tab := window.current_tab()) else None,
        )
        view_menu = self._window.menuBar().addMenu("&View")
        view_menu.addAction(window.git_dock.toggleViewAction())
        settings = self._manager.settings
        self._action(view_menu, "Dark theme", None, lambda: settings.set_color_scheme("dark"))
        self._action(view_menu, "Light theme", None, lambda: settings.set_color_scheme("light"))
        view_menu.addSeparator()
        notifications = view_menu.addMenu("Desktop notifications")
        for kind, text in DESKTOP_NOTIFICATION_KINDS:
            toggle = notifications.addAction(text)
            toggle.setCheckable(True)
            toggle.setChecked(kind in settings.settings.desktop_notifications)
            toggle.toggled.connect(lambda on, k=kind: settings.set_desktop_notification(k, on))
        notifications.aboutToShow.connect(lambda: self._sync_notification_toggles(notifications))
        help_menu = self._window.menuBar().addMenu("&Help")
        self._action(help_menu, "Keyboard shortcuts", None, self._shortcuts)
        self._action(help_menu, "Diagnostics", None, lambda: self._manager.diagnostics.open(self._window))
        help_menu.addSeparator()
        add_menu_entry_action(window, help_menu)
        self._action(help_menu, "About IdeA", None, self._about)

    def _sync_notification_toggles(self, menu: QMenu) -> None:
        enabled = self._manager.settings.settings.desktop_notifications
        for action, (kind, _text) in zip(menu.actions(), DESKTOP_NOTIFICATION_KINDS, strict=True):
            action.blockSignals(True)
            action.setChecked(kind in enabled)
            action.blockSignals(False)

    def _build_file_menu(self, file_menu: QMenu) -> None:
        manager = self._manager
        self._action(file_menu, "Open project…", "Ctrl+Alt+O", lambda: manager.choose_and_open(self._window))
        self._recent_menu = file_menu.addMenu("Open recent")
        self._recent_menu.aboutToShow.connect(self._fill_recent)
        self._action(file_menu, "Close project", None, self._close_current)
        file_menu.addSeparator()
        self._action(file_menu, "Settings…", "Ctrl+Alt+S", lambda: manager.settings.open_dialog(self._window))
        file_menu.addSeparator()
        self._action(file_menu, "New window", "Ctrl+Shift+N", manager.open_new_window)
        self._action(file_menu, "Close window", None, self._window.close)
        file_menu.addSeparator()
        self._action(file_menu, "Quit", "Ctrl+Shift+Q", manager.quit)

    def _build_cell_menu(self, cell_menu: QMenu) -> None:
        for key, text, shortcut in CELL_SHORTCUTS:
            self._action(cell_menu, text, shortcut, lambda k=key: self._window.on_current_tab(lambda t: t.gestures.act_on_active(k)))
        cell_menu.addSeparator()
        for towards, text, shortcut in FOCUS_SHORTCUTS:
            self._action(cell_menu, text, shortcut, lambda w=towards: self._window.on_current_tab(lambda t: t.focus_neighbour(w)))

    def _build_layout_menu(self, layout_menu: QMenu) -> None:
        def on_bar(act: Callable[[LayoutBar], object]) -> Callable[[], None]:
            return lambda: self._window.on_current_tab(lambda tab: act(tab.layout_bar))

        self._action(layout_menu, "New layout…", None, on_bar(LayoutBar.create_layout))
        self._action(layout_menu, "Duplicate layout…", None, on_bar(LayoutBar.duplicate_layout))
        self._action(layout_menu, "Rename layout…", None, on_bar(LayoutBar.rename_layout))
        self._action(layout_menu, "Delete layout", None, on_bar(LayoutBar.delete_layout))
        layout_menu.addSeparator()
        self._action(layout_menu, "Next layout", "Ctrl+Alt+PgDown", on_bar(lambda bar: bar.next_layout(1)))
        self._action(layout_menu, "Previous layout", "Ctrl+Alt+PgUp", on_bar(lambda bar: bar.next_layout(-1)))

    def _build_agents_menu(self, agents_menu: QMenu) -> None:
        screens, panel = self._screens, self._window.agents_panel.agent_actions
        agents_menu.addActions([panel.new_agent_action, panel.send_task_action, panel.interrupt_action])
        agents_menu.addSeparator()
        agents_menu.addActions([panel.launch_here_action, panel.launch_split_action, panel.launch_background_action,
                                panel.stop_action, panel.restart_action, panel.attach_action, panel.background_action,
                                panel.focus_action, panel.conversation_action])
        agents_menu.addSeparator()
        self._action(agents_menu, "Set up AI CLIs…", None, lambda: screens.open_setup_wizard(self._window))
        self._action(agents_menu, "Profiles…", None, lambda: screens.open_profile_editor(
            self._window, lambda: tab.runtime if (tab := self._window.current_tab()) else None
        ))
        self._action(agents_menu, "Templates…", None, lambda: screens.open_template_manager(self._window))
        self._action(agents_menu, "Permissions…", None,
                     lambda: self._window.on_current_tab(lambda tab: screens.open_permissions(tab.runtime, self._window)))
        settings = self._manager.settings
        trust = self._action(agents_menu, TRUST_RUN_DIRS, None, lambda: settings.set_trust_run_dirs(trust.isChecked()))
        trust.setCheckable(True)
        trust.setToolTip(TRUST_RUN_DIRS_TIP)
        agents_menu.aboutToShow.connect(lambda: trust.setChecked(settings.settings.trust_run_dirs_automatically))
        trust.setChecked(settings.settings.trust_run_dirs_automatically)
        panel_toggle = self._window.agents_dock.toggleViewAction()
        panel_toggle.setText("Agents panel")
        agents_menu.addAction(panel_toggle)

    def _action(self, menu: QMenu, text: str, shortcut: str | None, slot: Callable[[], object]) -> QAction:
        action = QAction(text, self._window)
        if shortcut:
            action.setShortcut(QKeySequence(shortcut))
            action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        action.triggered.connect(lambda _checked=False: slot())
        menu.addAction(action)
        self._window.addAction(action)
        return action

    def _fill_recent(self) -> None:
        self._recent_menu.clear()
        records = self._manager.recent_projects()
        if not records:
            self._recent_menu.addAction("No recent project").setEnabled(False)
        for record in records:
            self._recent_menu.addAction(
                f"{record.name} — {record.root}", lambda r=record.root: self._manager.open_project(r, self._window)
            )

    def _close_current(self) -> None:
        tab = self._window.current_tab()
        if tab is not None:
            self._manager.close_project(tab.project_id)

    def _shortcuts(self) -> None:
        """Non-modal, one per window: asked again, the open one comes to the front."""
        if self._shortcuts_dialog is None:
            groups = shortcut_groups(self._window.menuBar(), self._window.agents_panel)
            self._shortcuts_dialog = dialog = ShortcutsDialog(groups, self._window)
            dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
            dialog.destroyed.connect(lambda _object: setattr(self, "_shortcuts_dialog", None))
            dialog.show()
        self._shortcuts_dialog.raise_()
        self._shortcuts_dialog.activateWindow()

    def _about(self) -> None:
        QMessageBox.about(self._window, "About IdeA", about_text(self._manager.diagnostics_path()))


def about_text(log_path: str) -> str:
    """IdeA's version, what it runs on (what a bug report needs) and its diagnostics log, a link that opens it."""
    log = Path(log_path)
    runs_on = " · ".join(
        (f"Python {platform.python_version()}", f"Qt {qVersion()}", f"PySide6 {PySide6.__version__}", platform.system())
    )
    return (
        f"<h3>IdeA {__version__}</h3><p>Manage a team of AI coding agents in a grid of real terminals.</p>"
        f"<p>{html.escape(runs_on)}</p>"
        f"<p>Diagnostics log: <a href=\"{log.as_uri()}\">{html.escape(str(log))}</a></p>"
    )
