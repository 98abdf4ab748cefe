"""An IdeA window: a bar of project tabs, the menus, and the welcome page when no project is open."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from PySide6.QtCore import QPoint, Qt, Signal
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (
    QDockWidget,
    QMainWindow,
    QMenu,
    QStackedWidget,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from idea.domain import layout as lay
from idea.domain.ids import AgentId, ConversationId, NodeId, SessionId, TicketId
from idea.ui.agents.elsewhere_nets import ElsewhereNets
from idea.ui.core_client import CoreClient
from idea.ui.git.git_panel import git_dock
from idea.ui.knowledge.knowledge_screens import KnowledgeScreens
from idea.ui.widgets.problem_banner import ProblemBanner
from idea.ui.widgets.window_size import size_within_screen
from idea.ui.windows.agent_screens import AgentScreens
from idea.ui.windows.folder_drops import FolderDrops
from idea.ui.windows.project_tab import ProjectTab
from idea.ui.windows.tab_bar import ProjectTabBar
from idea.ui.windows.welcome_page import WelcomePage
from idea.ui.windows.window_menus import MenuHost, WindowMenus
SIDE_PANELS_WIDTH = 340  # Agents, Git and Work at a first start: the Git panel's four tabs fit


class WindowHost(MenuHost, Protocol):
    """What a window asks of the application's set of windows (the WindowManager implements it)."""

    def move_tab(self, project_id: str, target: QWidget | None, index: int, at: QPoint | None) -> None:
        """Move a project's tab into the window owning the tab bar `target` (None: a new window at `at`)."""
        ...

    def move_targets(self, window: MainWindow) -> list[tuple[str, ProjectTabBar]]:
        """The other windows a tab of `window` can move to: their title and tab bar."""
        ...

    def window_may_close(self, window: MainWindow) -> bool:
        """Asked when `window` is about to close; False keeps it open (the person cancelled)."""
        ...

    def workspace_changed(self) -> None:
        """The arrangement of windows and tabs changed: it is saved a moment later."""
        ...

    @property
    def client(self) -> CoreClient:
        """How the window's screens submit their use cases to the core."""
        ...


class MainWindow(QMainWindow):
    closing = Signal(object)  # this window, once its close was accepted

    def __init__(self, manager: WindowHost, screens: AgentScreens, knowledge: KnowledgeScreens, window_id: str) -> None:
        super().__init__()
        self.window_id = window_id
        self._manager = manager
        self._screens = screens
        self._knowledge = knowledge
        self.setWindowTitle("IdeA")
        size_within_screen(self, 1400, 900)
        self.tabs = QTabWidget()
        self.tab_bar = ProjectTabBar(manager, self.tabs)
        self.tabs.setTabBar(self.tab_bar)
        self.tabs.setDocumentMode(True)
        self.tabs.tabCloseRequested.connect(self._close_tab_at)
        self.tabs.currentChanged.connect(self._current_changed)
        self.tab_bar.tabMoved.connect(lambda _a, _b: manager.workspace_changed())
        self.tab_bar.contextMenuRequestedAt.connect(self._tab_menu)
        self.welcome = WelcomePage(
            lambda: manager.choose_and_open(self), lambda root: manager.open_project(root, self), manager.recent_projects
        )
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
        FolderDrops(self, lambda root: manager.open_project(root, self))  # a folder dropped here opens as a project
        self.agents_panel = screens.agents_panel(self, self)
        self.agents_panel.statusMessage.connect(self.show_message)
        toasts = self.agents_panel.attach_toasts(self._stack)  # the human net, non-modal, over the grid
        self.elsewhere_nets = ElsewhereNets(  # and the nets of the other tabs, in one line each
            toasts, self.project_tabs, lambda: tab.project_id if (tab := self.current_tab()) else None, self.focus_tab
        )
        self.agents_dock = QDockWidget("Agents", self)
        self.agents_dock.setObjectName("AgentsDock")
        self.agents_dock.setWidget(self.agents_panel)
        self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, self.agents_dock)
        self.resizeDocks([self.agents_dock], [SIDE_PANELS_WIDTH], Qt.Orientation.Horizontal)
        self.git_panel, self.git_dock = git_dock(self, manager.client, beside=self.agents_dock)
        self.git_panel.statusMessage.connect(self.show_message)
        self.work_dock = knowledge.work_dock(self, self, beside=self.agents_dock)
        self._menus = WindowMenus(self, manager, screens, knowledge)
        self._menus.build()
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
        tab.agent_menu = self.agents_panel.cell_menu  # its agent cells offer this window's Agents panel gestures
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
                tab.agent_menu = None
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
        self.elsewhere_nets.refresh()
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

    def open_conversation(
        self, conversation: ConversationId, title: str, reveal_late_reply: TicketId | None = None
    ) -> None:
        """Show a conversation of the current project in place of its grid."""
        self.on_current_tab(lambda tab: tab.area.show_conversation(conversation, title, reveal_late_reply))

    def open_agent_conversation(self, agent_id: AgentId) -> None:
        self.on_current_tab(lambda tab: tab.open_agent_conversation(agent_id))

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

    def on_current_tab(self, act: Callable[[ProjectTab], object]) -> None:
        tab = self.current_tab()
        if tab is not None:
            act(tab)

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
