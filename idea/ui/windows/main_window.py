"""An IdeA window: a bar of project tabs, the menus, and a welcome page when no project is open."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from PySide6.QtCore import QPoint, Qt, Signal
from PySide6.QtGui import QAction, QCloseEvent, QGuiApplication, QKeySequence
from PySide6.QtWidgets import (
    QDockWidget,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMainWindow,
    QMenu,
    QPushButton,
    QStackedWidget,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from idea import __version__
from idea.domain import layout as lay
from idea.domain.ids import AgentId, ConversationId, NodeId, SessionId
from idea.domain.project import ProjectRecord
from idea.ui.core_client import CoreClient
from idea.ui.git.git_panel import git_dock
from idea.ui.knowledge.knowledge_screens import KnowledgeScreens
from idea.ui.widgets.problem_banner import ProblemBanner
from idea.ui.windows.agent_screens import AgentScreens
from idea.ui.windows.desktop_menu import add_menu_entry_action
from idea.ui.windows.layout_bar import LayoutBar
from idea.ui.windows.project_tab import ProjectTab
from idea.ui.windows.tab_bar import ProjectTabBar

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


DESKTOP_NOTIFICATION_KINDS = (
    ("attention", "When an agent needs you"),
    ("usageLimit", "When an agent hits its usage limit or is resumed"),
    ("humanNet", "When IdeA cannot tell when to resume an agent"),
)


class WindowHost(Protocol):
    """What a window asks of the application's set of windows (the WindowManager implements it)."""

    def choose_and_open(self, window: MainWindow) -> None:
        """Ask for a project folder and open it in `window`."""
        ...

    def open_project(self, path: str, window: MainWindow | None = None) -> None: ...

    def recent_projects(self) -> list[ProjectRecord]: ...

    def close_project(self, project_id: str) -> None: ...

    def move_tab(self, project_id: str, target: QWidget | None, index: int, at: QPoint | None) -> None:
        """Move a project's tab into the window owning the tab bar `target` (None: a new window at `at`)."""
        ...

    def move_targets(self, window: MainWindow) -> list[tuple[str, ProjectTabBar]]:
        """The other windows a tab of `window` can move to: their title and tab bar."""
        ...

    def open_new_window(self) -> None: ...

    def window_may_close(self, window: MainWindow) -> bool:
        """Asked when `window` is about to close; False keeps it open (the person cancelled)."""
        ...

    def workspace_changed(self) -> None:
        """The arrangement of windows and tabs changed: it is saved a moment later."""
        ...

    def quit(self) -> None: ...

    def set_color_scheme(self, scheme: str) -> None: ...

    def desktop_notifications(self) -> tuple[str, ...]: ...

    def set_desktop_notification(self, kind: str, on: bool) -> None: ...

    def diagnostics_path(self) -> str: ...

    @property
    def client(self) -> CoreClient:
        """How the window's screens submit their use cases to the core."""
        ...


class WelcomePage(QWidget):
    def __init__(self, manager: WindowHost, window: MainWindow) -> None:
        super().__init__()
        self._manager = manager
        self._window = window
        column = QVBoxLayout(self)
        column.setContentsMargins(48, 48, 48, 48)
        title = QLabel("<h1>IdeA</h1><p>Open a project folder to manage a team of agents in a grid of terminals.</p>")
        title.setWordWrap(True)
        column.addWidget(title)
        open_button = QPushButton("Open project…")
        open_button.setFixedWidth(200)
        open_button.clicked.connect(lambda: manager.choose_and_open(window))
        column.addWidget(open_button)
        column.addSpacing(16)
        column.addWidget(QLabel("Recent projects"))
        self.recent = QListWidget()
        self.recent.itemActivated.connect(
            lambda item: manager.open_project(item.data(Qt.ItemDataRole.UserRole), window)
        )
        column.addWidget(self.recent, 1)

    def refresh(self) -> None:
        self.recent.clear()
        for record in self._manager.recent_projects():
            item = QListWidgetItem(f"{record.name}    {record.root}")
            item.setData(Qt.ItemDataRole.UserRole, record.root)
            item.setToolTip(record.root)
            self.recent.addItem(item)


class MainWindow(QMainWindow):
    closing = Signal(object)  # this window, once its close was accepted

    def __init__(self, manager: WindowHost, screens: AgentScreens, knowledge: KnowledgeScreens, window_id: str) -> None:
        super().__init__()
        self.window_id = window_id
        self._manager = manager
        self._screens = screens
        self._knowledge = knowledge
        self.setWindowTitle("IdeA")
        available = QGuiApplication.primaryScreen().availableGeometry()
        self.resize(min(1400, int(available.width() * 0.9)), min(900, int(available.height() * 0.9)))
        self.tabs = QTabWidget()
        self.tab_bar = ProjectTabBar(manager, self.tabs)
        self.tabs.setTabBar(self.tab_bar)
        self.tabs.setDocumentMode(True)
        self.tabs.tabCloseRequested.connect(self._close_tab_at)
        self.tabs.currentChanged.connect(self._current_changed)
        self.tab_bar.tabMoved.connect(lambda _a, _b: manager.workspace_changed())
        self.tab_bar.contextMenuRequestedAt.connect(self._tab_menu)
        self.welcome = WelcomePage(manager, self)
        self._stack = QStackedWidget()
        self._stack.addWidget(self.welcome)
        self._stack.addWidget(self.tabs)
        self.notices = ProblemBanner()  # what the person must know about IdeA's own files, never a modal box
        central = QWidget()
        column = QVBoxLayout(central)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        column.addWidget(self.notices)
        column.addWidget(self._stack, 1)
        self.setCentralWidget(central)
        self.agents_panel = screens.agents_panel(self, self)
        self.agents_panel.statusMessage.connect(self.show_message)
        self.agents_dock = QDockWidget("Agents", self)
        self.agents_dock.setObjectName("AgentsDock")
        self.agents_dock.setWidget(self.agents_panel)
        self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, self.agents_dock)
        self.resizeDocks([self.agents_dock], [300], Qt.Orientation.Horizontal)
        self.git_panel, self.git_dock = git_dock(self, manager.client, beside=self.agents_dock)
        self.git_panel.statusMessage.connect(self.show_message)
        self.work_dock = knowledge.work_dock(self, self, beside=self.agents_dock)
        self._build_menus()
        self._refresh_stack()

    # -- tabs --

    def project_tabs(self) -> list[ProjectTab]:
        return [self.tabs.widget(i) for i in range(self.tabs.count())]  # type: ignore[misc]

    def project_ids(self) -> list[str]:
        return [tab.project_id for tab in self.project_tabs()]

    def current_tab(self) -> ProjectTab | None:
        widget = self.tabs.currentWidget()
        return widget if isinstance(widget, ProjectTab) else None

    def add_project_tab(self, tab: ProjectTab, index: int = -1, activate: bool = True) -> None:
        index = self.tabs.insertTab(index if index >= 0 else self.tabs.count(), tab, tab.title)
        self.tab_bar.setTabData(index, tab.project_id)
        self.tabs.setTabToolTip(index, tab.runtime.root)
        tab.statusMessage.connect(self.show_message)
        tab.activeCellChanged.connect(self._active_cell_changed)
        tab.area.openTicketRequested.connect(self.work_dock.reveal_ticket)
        if activate:
            self.tabs.setCurrentIndex(index)
        tab.show()
        self._refresh_stack()

    def take_project_tab(self, project_id: str) -> ProjectTab | None:
        for index, tab in enumerate(self.project_tabs()):
            if tab.project_id == project_id:
                self.tabs.removeTab(index)
                tab.statusMessage.disconnect(self.show_message)
                tab.activeCellChanged.disconnect(self._active_cell_changed)
                tab.area.openTicketRequested.disconnect(self.work_dock.reveal_ticket)
                self._refresh_stack()
                return tab
        return None

    def focus_tab(self, project_id: str) -> None:
        for index, tab in enumerate(self.project_tabs()):
            if tab.project_id == project_id:
                self.tabs.setCurrentIndex(index)
        self.raise_()
        self.activateWindow()

    def _refresh_stack(self) -> None:
        empty = self.tabs.count() == 0
        self._stack.setCurrentWidget(self.welcome if empty else self.tabs)
        if empty:
            self.welcome.refresh()
        self._update_title()

    def _current_changed(self, _index: int) -> None:
        self._update_title()
        tab = self.current_tab()
        self.agents_panel.set_project(tab.runtime if tab else None)
        self.work_dock.set_project(tab.runtime if tab else None)
        self.git_panel.set_project(tab.runtime if tab else None)
        if tab is not None:
            tab.focus_active()
        self._manager.workspace_changed()

    def _active_cell_changed(self) -> None:
        self.agents_panel.active_cell_changed()
        tab = self.current_tab()
        cell = tab.grid.cell(tab.active_leaf) if tab and tab.active_leaf else None
        if cell is not None and cell.session is not None and cell.session.agent_id:
            self.agents_panel.agent_focused(cell.session.agent_id)

    # -- what the agents panel asks of the window (AgentsPanelHost) --

    def active_leaf(self) -> NodeId | None:
        tab = self.current_tab()
        return tab.active_leaf if tab else None

    def focus_session(self, session_id: SessionId) -> None:
        tab = self.current_tab()
        if tab is None:
            return
        leaf = lay.leaf_showing_session(tab.runtime.active.root, session_id)
        if leaf is not None:
            tab.reveal(leaf.id)

    # -- what the work panel and the agents panel ask to see (WorkPanelHost) --

    def open_conversation(self, conversation: ConversationId, title: str) -> None:
        """Show a conversation of the current project in place of its grid."""
        self._on_tab(lambda tab: tab.area.show_conversation(conversation, title))

    def open_agent_conversation(self, agent_id: AgentId) -> None:
        self._on_tab(lambda tab: tab.open_agent_conversation(agent_id))

    def _update_title(self) -> None:
        tab = self.current_tab()
        self.setWindowTitle(f"{tab.title} — IdeA" if tab else "IdeA")

    def _close_tab_at(self, index: int) -> None:
        tab = self.tabs.widget(index)
        if isinstance(tab, ProjectTab):
            self._manager.close_project(tab.project_id)

    def _tab_menu(self, index: int, at: QPoint) -> None:
        project_id = self.tab_bar.project_id(index)
        if project_id is None:
            return
        menu = QMenu(self)
        menu.addAction("Move to new window", lambda: self._manager.move_tab(project_id, None, 0, None))
        others = self._manager.move_targets(self)
        if others:
            move_to = menu.addMenu("Move to window")
            for title, tab_bar in others:
                move_to.addAction(title, lambda bar=tab_bar: self._manager.move_tab(project_id, bar, -1, None))
        menu.addSeparator()
        menu.addAction("Close project", lambda: self._manager.close_project(project_id))
        menu.exec(at)

    # -- menus --

    def _build_menus(self) -> None:
        self._build_file_menu(self.menuBar().addMenu("&File"))
        self._build_cell_menu(self.menuBar().addMenu("&Cell"))
        self._build_layout_menu(self.menuBar().addMenu("&Layout"))
        self._build_agents_menu(self.menuBar().addMenu("&Agents"))
        self._knowledge.build_menu(
            self.menuBar().addMenu("&Knowledge"), self, self.work_dock,
            lambda: tab.runtime if (tab := self.current_tab()) else None,
        )
        view_menu = self.menuBar().addMenu("&View")
        view_menu.addAction(self.git_dock.toggleViewAction())
        self._action(view_menu, "Dark theme", None, lambda: self._manager.set_color_scheme("dark"))
        self._action(view_menu, "Light theme", None, lambda: self._manager.set_color_scheme("light"))
        view_menu.addSeparator()
        notifications = view_menu.addMenu("Desktop notifications")
        for kind, text in DESKTOP_NOTIFICATION_KINDS:
            toggle = notifications.addAction(text)
            toggle.setCheckable(True)
            toggle.setChecked(kind in self._manager.desktop_notifications())
            toggle.toggled.connect(lambda on, k=kind: self._manager.set_desktop_notification(k, on))
        notifications.aboutToShow.connect(lambda: self._sync_notification_toggles(notifications))
        help_menu = self.menuBar().addMenu("&Help")
        add_menu_entry_action(self, help_menu)
        self._action(help_menu, "About IdeA", None, self._about)

    def _sync_notification_toggles(self, menu: QMenu) -> None:
        enabled = self._manager.desktop_notifications()
        for action, (kind, _text) in zip(menu.actions(), DESKTOP_NOTIFICATION_KINDS, strict=True):
            action.blockSignals(True)
            action.setChecked(kind in enabled)
            action.blockSignals(False)

    def _build_file_menu(self, file_menu: QMenu) -> None:
        manager = self._manager
        self._action(file_menu, "Open project…", "Ctrl+Alt+O", lambda: manager.choose_and_open(self))
        self._recent_menu = file_menu.addMenu("Open recent")
        self._recent_menu.aboutToShow.connect(self._fill_recent)
        self._action(file_menu, "Close project", None, self._close_current)
        file_menu.addSeparator()
        self._action(file_menu, "New window", "Ctrl+Shift+N", manager.open_new_window)
        self._action(file_menu, "Close window", None, self.close)
        file_menu.addSeparator()
        self._action(file_menu, "Quit", "Ctrl+Shift+Q", manager.quit)

    def _build_cell_menu(self, cell_menu: QMenu) -> None:
        for key, text, shortcut in CELL_SHORTCUTS:
            self._action(cell_menu, text, shortcut, lambda k=key: self._on_tab(lambda t: t.gestures.act_on_active(k)))
        cell_menu.addSeparator()
        for towards, text, shortcut in FOCUS_SHORTCUTS:
            self._action(cell_menu, text, shortcut, lambda w=towards: self._on_tab(lambda t: t.focus_neighbour(w)))

    def _build_layout_menu(self, layout_menu: QMenu) -> None:
        def on_bar(act: Callable[[LayoutBar], object]) -> Callable[[], None]:
            return lambda: self._on_tab(lambda tab: act(tab.layout_bar))

        self._action(layout_menu, "New layout…", None, on_bar(LayoutBar.create_layout))
        self._action(layout_menu, "Duplicate layout…", None, on_bar(LayoutBar.duplicate_layout))
        self._action(layout_menu, "Rename layout…", None, on_bar(LayoutBar.rename_layout))
        self._action(layout_menu, "Delete layout", None, on_bar(LayoutBar.delete_layout))
        layout_menu.addSeparator()
        self._action(layout_menu, "Next layout", "Ctrl+Alt+PgDown", on_bar(lambda bar: bar.next_layout(1)))
        self._action(layout_menu, "Previous layout", "Ctrl+Alt+PgUp", on_bar(lambda bar: bar.next_layout(-1)))

    def _build_agents_menu(self, agents_menu: QMenu) -> None:
        screens, panel = self._screens, self.agents_panel.agent_actions
        agents_menu.addActions([panel.new_agent_action, panel.send_task_action, panel.interrupt_action])
        agents_menu.addSeparator()
        agents_menu.addActions([panel.launch_here_action, panel.launch_split_action, panel.launch_background_action,
                                panel.stop_action, panel.attach_action, panel.background_action, panel.focus_action,
                                panel.conversation_action])
        agents_menu.addSeparator()
        self._action(agents_menu, "Set up AI CLIs…", None, lambda: screens.open_setup_wizard(self))
        self._action(agents_menu, "Profiles…", None, lambda: screens.open_profile_editor(self))
        self._action(agents_menu, "Templates…", None, lambda: screens.open_template_manager(self))
        self._action(agents_menu, "Permissions…", None,
                     lambda: self._on_tab(lambda tab: screens.open_permissions(tab.runtime, self)))
        trust = self._action(
            agents_menu, "Trust agents' run folders automatically", None,
            lambda: screens.set_trust_run_dirs(trust.isChecked()),
        )
        trust.setCheckable(True)
        trust.setChecked(screens.trusts_run_dirs)
        trust.setToolTip(
            "Record each agent's private run folder as trusted in your Claude and Gemini settings, so an agent "
            "started in the background does not wait at a trust question nobody sees."
        )
        agents_menu.addAction(self.agents_dock.toggleViewAction())

    def _action(self, menu: QMenu, text: str, shortcut: str | None, slot: Callable[[], object]) -> QAction:
        action = QAction(text, self)
        if shortcut:
            action.setShortcut(QKeySequence(shortcut))
            action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        action.triggered.connect(lambda _checked=False: slot())
        menu.addAction(action)
        self.addAction(action)
        return action

    def _on_tab(self, act: Callable[[ProjectTab], object]) -> None:
        tab = self.current_tab()
        if tab is not None:
            act(tab)

    def _fill_recent(self) -> None:
        self._recent_menu.clear()
        records = self._manager.recent_projects()
        if not records:
            self._recent_menu.addAction("No recent project").setEnabled(False)
        for record in records:
            self._recent_menu.addAction(
                f"{record.name} — {record.root}", lambda r=record.root: self._manager.open_project(r, self)
            )

    def _close_current(self) -> None:
        tab = self.current_tab()
        if tab is not None:
            self._manager.close_project(tab.project_id)

    def _about(self) -> None:
        from PySide6.QtWidgets import QMessageBox

        QMessageBox.about(
            self,
            "About IdeA",
            f"<h3>IdeA {__version__}</h3><p>Manage a team of AI coding agents in a grid of real terminals.</p>"
            f"<p>Diagnostics log: {self._manager.diagnostics_path()}</p>",
        )

    def show_message(self, text: str) -> None:
        self.statusBar().showMessage(text, 8000)

    def show_notice(self, text: str) -> None:
        """A message that stays until the person dismisses it (a file set aside, a project not opened)."""
        self.notices.add(text)

    # -- closing --

    def closeEvent(self, event: QCloseEvent) -> None:
        if self._manager.window_may_close(self):
            event.accept()
            self.closing.emit(self)
        else:
            event.ignore()
