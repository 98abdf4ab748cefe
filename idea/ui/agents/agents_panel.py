"""The Agents panel: the current project's team, what each agent is doing and where, and every action on
an agent (launch, stop, attach, personas, profiles, templates, orchestrator, delete, send a task,
interrupt), with the selected agent's queue of tickets under the list and the agents' replies to the
person's tasks above it.

The panel lives in a dock of a window and follows the window's current tab (`set_project`). It reads
snapshots, sends every change to the core through CoreClient, and redraws from the events the window
passes to `on_event` (project events and the orchestration core's, wrapped in OrchestrationNews). What it
needs from the window is the small `AgentsPanelHost` protocol.
"""

from __future__ import annotations

import html
import os
from collections.abc import Callable, Coroutine
from typing import Any, Protocol

from PySide6.QtCore import QEvent, QPoint, QSize, Qt, QTimer, QUrl, Signal
from PySide6.QtGui import (
    QAction,
    QActionGroup,
    QColor,
    QDesktopServices,
    QIcon,
    QKeySequence,
    QPalette,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QStackedWidget,
    QToolBar,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from idea.application.agents.agent_activity import ActivityBook, WorkRow, clock_text
from idea.application.agents.agent_rows import AgentRow, AgentState, build_rows
from idea.application.agents.placement import InBackground, InCell, InNewSplit, split_target
from idea.application.agents.profiles import ProfileCatalogue
from idea.application.agents.templates import (
    TemplateCatalogue,
    TemplateLink,
    TemplateStatus,
)
from idea.application.orchestrator.ports import LiveAgent
from idea.application.projects import ProjectRuntime
from idea.domain import layout as lay
from idea.domain.agent import AgentManifest
from idea.domain.errors import AppError
from idea.domain.events import (
    AgentsChanged,
    LayoutChanged,
    OrchestrationNews,
    SessionsChanged,
)
from idea.domain.ids import AgentId, NodeId, SessionId, TicketId
from idea.domain.orchestration_events import (
    AgentAttention,
    AgentQueueSnapshot,
    DeliveryMayBeStuck,
    HumanReplyReceived,
    LateReplyAvailable,
    LiveStateChanged,
)
from idea.domain.session import SessionInfo, SessionKind
from idea.domain.tickets import preview
from idea.ui import icons
from idea.ui.agents.name_field import RenameAgentDialog
from idea.ui.agents.new_agent_dialog import NewAgentDialog
from idea.ui.agents.persona_editor import PersonaEditor
from idea.ui.agents.queue_section import QueueSection
from idea.ui.agents.reply_notices import ReplyNotices
from idea.ui.agents.send_task_dialog import SendTaskDialog
from idea.ui.core_client import CoreClient
from idea.ui.foreground import program_in_front
from idea.ui.templates.save_template_dialog import SaveTemplateDialog
from idea.ui.templates.template_update_dialog import TemplateUpdateDialog
from idea.ui.theme import palette_colors
from idea.ui.widgets.list_row_delegate import ListRowDelegate
from idea.ui.widgets.messages import ask, show_error

NO_PROJECT_PAGE, EMPTY_TEAM_PAGE, LIST_PAGE = 0, 1, 2
AGENT_ID_ROLE = Qt.ItemDataRole.UserRole + 1
CLOCK_TICK_MS = 15_000  # "busy 3m" stays true to the minute
STATUS_PREVIEW_CHARS = 120


class AgentsPanelHost(Protocol):
    """What the window gives the panel, always about its current project tab."""

    def active_leaf(self) -> NodeId | None:
        """The active cell of the current tab's active layout, None when there is none."""
        ...

    def focus_session(self, session_id: SessionId) -> None:
        """Show the cell displaying this session (un-zoom if needed) and give its terminal the focus."""
        ...


class AgentsPanel(QWidget):
    """`statusMessage` carries one line for the window's status bar (what was just done)."""

    statusMessage = Signal(str)

    def __init__(
        self,
        client: CoreClient,
        profiles: ProfileCatalogue,
        templates: TemplateCatalogue,
        host: AgentsPanelHost,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("AgentsPanel")
        self._client = client
        self._profiles = profiles
        self._templates = templates
        self._host = host
        self.runtime: ProjectRuntime | None = None
        self._manifest = AgentManifest()
        self._sessions: dict[SessionId, SessionInfo] = {}
        self._document: lay.LayoutDocument | None = None
        self._template_links: dict[AgentId, TemplateStatus] = {}
        self._template_generation = 0
        self._rows: list[AgentRow] = []
        self._pending_selection: AgentId | None = None
        self.persona_editors: dict[AgentId, PersonaEditor] = {}
        self._iconed: list[tuple[QAction | QToolButton, str]] = []
        self._activity = ActivityBook()
        self._orchestration_generation = 0
        self._work_read_running = False
        self._work_read_again = False

        self._build_actions()
        self.list = QListWidget()
        self.list.setItemDelegate(ListRowDelegate(self.list))
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.list.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.list.customContextMenuRequested.connect(self._show_context_menu)
        self.list.itemActivated.connect(lambda item: self.activate(item.data(AGENT_ID_ROLE)))
        self.list.currentItemChanged.connect(lambda _c, _p: self._selection_changed())
        self.list.setFrameShape(QListWidget.Shape.NoFrame)
        self.queue = QueueSection(self.send_task_action, self.interrupt_action)
        self.queue.cancelRequested.connect(self.cancel_ticket)
        self.queue.deliverNowRequested.connect(self.deliver_now)
        self.replies = ReplyNotices()

        team = QSplitter(Qt.Orientation.Vertical)
        team.setChildrenCollapsible(False)
        team.addWidget(self.list)
        team.addWidget(self.queue)
        team.setStretchFactor(0, 1)
        team.setStretchFactor(1, 1)
        self.pages = QStackedWidget()
        self.pages.addWidget(self._message_page("Open a project to manage its agents."))
        self.pages.addWidget(self._empty_team_page())
        self.pages.addWidget(team)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        column.addWidget(self._build_toolbar())
        column.addWidget(self.replies)
        column.addWidget(self.pages, 1)
        self._clock_tick = QTimer(self)
        self._clock_tick.setInterval(CLOCK_TICK_MS)
        self._clock_tick.timeout.connect(self._render)
        self.set_project(None)

    def sizeHint(self) -> QSize:
        return QSize(340, 520)

    # -- following the window --

    def set_project(self, runtime: ProjectRuntime | None) -> None:
        """Show this project's team (None: no project tab)."""
        if runtime is self.runtime and runtime is not None:
            return
        for editor in list(self.persona_editors.values()):
            editor.close()
        self.runtime = runtime
        self._template_links = {}
        self._pending_selection = None
        self._activity.clear()
        self.replies.clear()
        if runtime is None:
            self._manifest, self._sessions, self._document = AgentManifest(), {}, None
            self._render()
        else:
            self.refresh()

    def refresh(self) -> None:
        """Read the project again: for changes that publish no project event (a profile renamed in
        Settings ▸ Profiles, a template saved from another project)."""
        runtime = self.runtime
        if runtime is None:
            return
        self._manifest = runtime.agents.manifest()
        self._sessions = {s.id: s for s in runtime.sessions.snapshot()}
        self._document = runtime.document
        self._refresh_template_links()
        self._load_orchestration()
        self._render()

    def on_event(self, event: object) -> None:
        """Feed every AgentsChanged, SessionsChanged, LayoutChanged and OrchestrationNews (others are
        ignored)."""
        runtime = self.runtime
        if runtime is None:
            return
        match event:
            case AgentsChanged(project_id=runtime.id):
                self._manifest = event.manifest
                self._refresh_template_links()
            case SessionsChanged(project_id=runtime.id):
                self._sessions = {s.id: s for s in event.sessions}
                live = {s.agent_id for s in event.sessions if s.is_live}
                for agent in self._manifest.agents:
                    if agent.agent_id not in live:
                        self._activity.process_ended(agent.agent_id)
            case LayoutChanged(project_id=runtime.id):
                self._document = event.document
            case OrchestrationNews(project_id=runtime.id):
                if not self._orchestration_event(event.event):
                    return
            case _:
                return
        self._render()

    def active_cell_changed(self) -> None:
        """The window calls this when its active cell changes, so "Launch here" and "Attach" follow it."""
        self._update_actions()

    def agent_focused(self, agent_id: AgentId) -> None:
        """The person went to this agent's terminal, so a call for their attention has been seen. The
        window calls this when a cell showing an agent gets the keyboard focus."""
        if self._activity.clear_attention(agent_id):
            self._render()

    # -- reading the panel --

    def rows(self) -> list[AgentRow]:
        return list(self._rows)

    def row(self, agent_id: AgentId) -> AgentRow | None:
        return next((row for row in self._rows if row.agent_id == agent_id), None)

    def selected_agent(self) -> AgentId | None:
        item = self.list.currentItem()
        return item.data(AGENT_ID_ROLE) if item is not None else None

    def select_agent(self, agent_id: AgentId) -> None:
        for index in range(self.list.count()):
            if self.list.item(index).data(AGENT_ID_ROLE) == agent_id:
                self.list.setCurrentRow(index)
                return
        self._pending_selection = agent_id  # not listed yet: select it when it arrives

    # -- drawing --

    def _render(self) -> None:
        runtime = self.runtime
        if runtime is None or self._document is None:
            self._rows = []
            self.list.clear()
            self.pages.setCurrentIndex(NO_PROJECT_PAGE)
            self._clock_tick.stop()
            self._selection_changed()
            return
        self._rows = build_rows(
            self._manifest,
            self._sessions.values(),
            self._document.active.root,
            self._profiles.book(),
            self._template_links,
            self._activity.all(),
        )
        selected = self._pending_selection or self.selected_agent()
        ids = [row.agent_id for row in self._rows]
        listed = [self.list.item(i).data(AGENT_ID_ROLE) for i in range(self.list.count())]
        self.list.blockSignals(True)
        if ids != listed:
            self.list.clear()
            for row in self._rows:
                item = QListWidgetItem()
                item.setData(AGENT_ID_ROLE, row.agent_id)
                self.list.addItem(item)
        now_ms = runtime.clock.now_ms()
        for index, row in enumerate(self._rows):
            self._paint_item(self.list.item(index), row, now_ms)
        self.list.blockSignals(False)
        self.list.doItemsLayout()  # a row grows a line when its agent has something to say
        if selected in ids:
            self.list.setCurrentRow(ids.index(selected))
            if selected == self._pending_selection:
                self._pending_selection = None
        elif self.list.currentItem() is None and ids:
            self.list.setCurrentRow(0)
        self.list.viewport().update()
        self.pages.setCurrentIndex(LIST_PAGE if self._rows else EMPTY_TEAM_PAGE)
        for agent_id, editor in self.persona_editors.items():
            row = self.row(agent_id)
            editor.set_running(row is not None and row.is_live)
        if any(row.is_live for row in self._rows):
            if not self._clock_tick.isActive():
                self._clock_tick.start()
        else:
            self._clock_tick.stop()
        self._selection_changed()

    def _selection_changed(self) -> None:
        self._update_actions()
        row = self._selected_row()
        self.queue.show_agent(
            row.name if row else None, self._activity.of(row.agent_id) if row else None,
            running=row is not None and row.is_live,
        )

    def _paint_item(self, item: QListWidgetItem, row: AgentRow, now_ms: int) -> None:
        c = palette_colors(self)
        if row.ended_badly:
            dot = c.error
        elif row.state is AgentState.RUNNING:
            dot = c.ok
        elif row.state is AgentState.STARTING:
            dot = c.warn
        else:
            dot = c.muted
        item.setText(row.name)
        item.setData(ListRowDelegate.BADGE_ROLE, "orchestrator" if row.is_orchestrator else "")
        item.setData(ListRowDelegate.NOTE_ROLE, row.note(now_ms))
        item.setData(ListRowDelegate.NOTE_COLOR_ROLE, c.accent if row.is_busy else dot)
        item.setData(ListRowDelegate.DOT_ROLE, dot)
        item.setData(ListRowDelegate.HOLLOW_ROLE, not row.is_live)
        item.setData(ListRowDelegate.SUBTITLE_ROLE, row.details())
        item.setData(ListRowDelegate.MARK_ROLE, row.late_reply_text)
        item.setData(ListRowDelegate.MARK_COLOR_ROLE, c.accent)
        item.setData(ListRowDelegate.ALERT_ROLE, row.attention_text)
        item.setData(ListRowDelegate.ALERT_COLOR_ROLE, c.warn)
        item.setData(ListRowDelegate.ACTIVITY_ROLE, row.work_text)
        item.setToolTip(_tooltip(row))

    def _message_page(self, text: str) -> QWidget:
        label = QLabel(text)
        label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        label.setWordWrap(True)
        label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        label.setContentsMargins(16, 16, 16, 16)
        return label

    def _empty_team_page(self) -> QWidget:
        page = QWidget()
        column = QVBoxLayout(page)
        column.addStretch(1)
        title = QLabel("<b>No agents yet</b>")
        title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        hint = QLabel("Create one from a starter template (Orchestrator, Architect, Developer…) or from scratch.")
        hint.setWordWrap(True)
        hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        hint.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        button = QPushButton("New agent…")
        button.clicked.connect(self.new_agent)
        column.addWidget(title)
        column.addWidget(hint)
        column.addWidget(button, 0, Qt.AlignmentFlag.AlignHCenter)
        column.addStretch(2)
        return page

    # -- actions --

    def _icon(self, name: str) -> QIcon:
        palette = self.palette()
        disabled = palette.color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.ButtonText)
        disabled.setAlphaF(0.4)
        return icons.icon(
            name,
            palette.color(QPalette.ColorRole.ButtonText).name(),
            disabled.name(QColor.NameFormat.HexArgb),
        )

    def _build_actions(self) -> None:
        def action(text: str, slot: Callable[[], object], icon: str | None = None, shortcut: str | None = None,
                   tip: str | None = None) -> QAction:
            created = QAction(text, self)
            if icon:
                self._iconed.append((created, icon))
            if shortcut:
                created.setShortcut(QKeySequence(shortcut))
                # Only while the panel has the focus: the terminals keep every key they need.
                created.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
                self.addAction(created)
            created.setToolTip(tip or text.rstrip("…"))
            created.triggered.connect(lambda _checked=False: slot())
            return created

        self.new_agent_action = action("New agent…", self.new_agent, "new-agent", tip="Create an agent")
        self.launch_here_action = action(
            "Launch here", self.launch_here, tip="Launch in the active cell (an idle shell there gives way)"
        )
        self.launch_split_action = action(
            "Launch in new split", self.launch_in_new_split, tip="Split the active cell and launch there"
        )
        self.launch_background_action = action(
            "Launch in background", self.launch_in_background, tip="Launch without showing it in a cell"
        )
        self.stop_action = action("Stop", self.stop, "stop", tip="Stop the agent's process")
        self.attach_action = action(
            "Attach to active cell", self.attach_to_active_cell, "attach", tip="Show this background agent in the active cell"
        )
        self.background_action = action(
            "Send to background", self.send_to_background, "background", tip="Free its cell; it keeps running"
        )
        self.focus_action = action("Focus", self.focus, "focus", tip="Go to the agent's cell")
        self.send_task_action = action(
            "Send task…", self.send_task, "send",
            tip="Send a task to the agent: typed into its terminal after its queue (a stopped agent is started)",
        )
        self.interrupt_action = action(
            "Interrupt", self.interrupt, "interrupt",
            tip="Press Esc in the agent's terminal to stop its current turn (its queue stays)",
        )
        self.persona_action = action("Edit persona…", self.edit_persona, "persona", tip="Edit the agent's role")
        self.rename_action = action("Rename…", self.rename, shortcut="F2")
        self.save_template_action = action("Save as template…", self.save_as_template)
        self.update_template_action = action("Update from template…", self.update_from_template)
        self.orchestrator_action = action("Set as orchestrator", self.set_as_orchestrator)
        self.run_dir_action = action("Open run dir", self.open_run_dir, tip="Open the agent's private run directory")
        self.delete_action = action("Delete…", self.delete, shortcut="Delete")
        self.change_profile_menu = QMenu("Change profile", self)
        self.change_profile_menu.aboutToShow.connect(self._fill_profile_menu)

    def _build_toolbar(self) -> QToolBar:
        bar = QToolBar()
        bar.setIconSize(QSize(16, 16))
        bar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonIconOnly)
        bar.addAction(self.new_agent_action)
        bar.addSeparator()
        launch_menu = QMenu(self)
        launch_menu.addActions([self.launch_here_action, self.launch_split_action, self.launch_background_action])
        self.launch_button = QToolButton()
        self._iconed.append((self.launch_button, "launch"))
        self.launch_button.setToolTip("Show or launch the selected agent (like a double-click)")
        self.launch_button.setMenu(launch_menu)
        self.launch_button.setPopupMode(QToolButton.ToolButtonPopupMode.MenuButtonPopup)
        self.launch_button.clicked.connect(lambda: self.activate(self.selected_agent()))
        bar.addWidget(self.launch_button)
        bar.addAction(self.stop_action)
        bar.addAction(self.send_task_action)
        bar.addAction(self.focus_action)
        bar.addAction(self.attach_action)
        bar.addAction(self.background_action)
        bar.addAction(self.persona_action)
        more = QToolButton()
        self._iconed.append((more, "more"))
        more.setToolTip("More actions")
        more.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        more.setStyleSheet("QToolButton::menu-indicator { image: none; width: 0; }")
        self.more_menu = QMenu(self)
        self.more_menu.aboutToShow.connect(lambda: self._fill_menu(self.more_menu))
        more.setMenu(self.more_menu)
        spacer = QWidget()
        spacer.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        bar.addWidget(spacer)
        bar.addWidget(more)
        self._apply_icons()
        return bar

    def _apply_icons(self) -> None:
        for holder, name in self._iconed:
            holder.setIcon(self._icon(name))

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and self._iconed:
            # The theme changed: icons and state colours are drawn from the palette.
            self._apply_icons()
            self._render()

    def _fill_menu(self, menu: QMenu) -> None:
        self._update_actions()
        menu.clear()
        menu.addAction(self.focus_action)
        menu.addActions([self.launch_here_action, self.launch_split_action, self.launch_background_action])
        menu.addAction(self.stop_action)
        menu.addSeparator()
        menu.addActions([self.send_task_action, self.interrupt_action])
        menu.addSeparator()
        menu.addActions([self.attach_action, self.background_action])
        menu.addSeparator()
        menu.addAction(self.persona_action)
        menu.addMenu(self.change_profile_menu)
        menu.addAction(self.rename_action)
        menu.addSeparator()
        menu.addActions([self.save_template_action, self.update_template_action])
        menu.addAction(self.orchestrator_action)
        menu.addAction(self.run_dir_action)
        menu.addSeparator()
        menu.addAction(self.delete_action)
        menu.addSeparator()
        menu.addAction(self.new_agent_action)

    def _show_context_menu(self, at: QPoint) -> None:
        item = self.list.itemAt(at)
        if item is not None:
            self.list.setCurrentItem(item)
        menu = QMenu(self)
        if item is None:
            menu.addAction(self.new_agent_action)
        else:
            self._fill_menu(menu)
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        menu.popup(self.list.viewport().mapToGlobal(at))

    def _fill_profile_menu(self) -> None:
        menu = self.change_profile_menu
        menu.clear()
        row = self._selected_row()
        group = QActionGroup(menu)
        for profile in self._profiles.profiles():
            choice = menu.addAction(profile.name)
            choice.setCheckable(True)
            choice.setChecked(row is not None and row.profile_id == profile.id)
            group.addAction(choice)
            choice.triggered.connect(lambda _checked=False, p=profile.id: self.change_profile(p))
        if menu.isEmpty():
            menu.addAction("No profile set up").setEnabled(False)

    def _update_actions(self) -> None:
        row = self._selected_row()
        has_project = self.runtime is not None
        selected = row is not None
        live = selected and row.is_live
        target = self._active_cell_target()
        cell_usable = target is not None and not self._cell_hosts_other_agent(target, row)
        self.new_agent_action.setEnabled(has_project)
        self.launch_here_action.setEnabled(selected and not live and cell_usable)
        self.launch_split_action.setEnabled(selected and not live and self._split_target() is not None)
        self.launch_background_action.setEnabled(selected and not live)
        self.launch_button.setEnabled(selected)
        self.stop_action.setEnabled(live)
        self.attach_action.setEnabled(selected and row.in_background and cell_usable)
        self.background_action.setEnabled(selected and row.in_cell)
        self.focus_action.setEnabled(selected and row.in_cell)
        self.send_task_action.setEnabled(selected and not row.profile_missing)
        self.interrupt_action.setEnabled(live)
        for each in (self.persona_action, self.rename_action, self.save_template_action):
            each.setEnabled(selected)
        self.change_profile_menu.setEnabled(selected)
        self.update_template_action.setEnabled(selected and row.has_template_update)
        self.orchestrator_action.setEnabled(selected and not row.is_orchestrator)
        self.run_dir_action.setEnabled(selected and os.path.isdir(self._run_dir(row.agent_id)))
        self.delete_action.setEnabled(selected and not live)
        self.delete_action.setToolTip("Delete the agent" if not live else "Stop the agent before deleting it")

    # -- the user's gestures --

    def new_agent(self) -> NewAgentDialog | None:
        runtime = self.runtime
        if runtime is None:
            return None
        dialog = NewAgentDialog(self._client, runtime, self._profiles, self._templates, self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.created.connect(lambda entry: self._created(entry.agent_id, entry.name))
        dialog.open()
        return dialog

    def _created(self, agent_id: AgentId, name: str) -> None:
        self.select_agent(agent_id)
        self.list.setFocus()
        self.statusMessage.emit(f"Agent {name} created")

    def activate(self, agent_id: AgentId | None) -> None:
        """Double-click or Enter: go to a visible agent, show a background one, launch a stopped one —
        in its previous cell, the active cell, the first free cell, or a new split, in that order."""
        row = self.row(agent_id) if agent_id else None
        runtime = self.runtime
        if row is None or runtime is None:
            return
        if row.in_cell and row.session_id is not None:
            self._go_to(row)
            return
        failure = f"Cannot show {row.name}" if row.in_background else f"Cannot launch {row.name}"
        self._run(failure, runtime.placement.show(row.agent_id, self._active_cell_target()), self._shown)

    def launch_here(self) -> None:
        row, runtime, leaf_id = self._selected_row(), self.runtime, self._active_cell_target()
        if row is None or runtime is None or leaf_id is None:
            return
        self._into_active_cell(
            row, leaf_id, f"Cannot launch {row.name}", lambda: runtime.placement.launch(row.agent_id, InCell(leaf_id))
        )

    def launch_in_new_split(self) -> None:
        row, runtime, beside = self._selected_row(), self.runtime, self._split_target()
        if row is None or runtime is None or beside is None:
            return
        self._run(f"Cannot launch {row.name}", runtime.placement.launch(row.agent_id, InNewSplit(beside)),
                  self._shown)

    def launch_in_background(self) -> None:
        row, runtime = self._selected_row(), self.runtime
        if row is None or runtime is None:
            return
        self._run(
            f"Cannot launch {row.name}",
            runtime.placement.launch(row.agent_id, InBackground()),
            lambda _live: self.statusMessage.emit(f"{row.name} is running in the background"),
        )

    def stop(self) -> None:
        row, runtime = self._selected_row(), self.runtime
        if row is None or runtime is None or not row.is_live:
            return
        self._run(f"Cannot stop {row.name}", runtime.placement.stop(row.agent_id),
                  lambda _none: self.statusMessage.emit(f"{row.name} stopped"))

    def attach_to_active_cell(self) -> None:
        row, runtime, leaf_id = self._selected_row(), self.runtime, self._active_cell_target()
        if row is None or runtime is None or leaf_id is None or not row.in_background:
            return
        self._into_active_cell(
            row, leaf_id, f"Cannot attach {row.name}", lambda: runtime.placement.attach(row.agent_id, InCell(leaf_id))
        )

    def send_to_background(self) -> None:
        row, runtime = self._selected_row(), self.runtime
        if row is None or runtime is None or not row.in_cell:
            return
        self._run(f"Cannot move {row.name}", runtime.placement.send_to_background(row.agent_id),
                  lambda _none: self.statusMessage.emit(f"{row.name} keeps running in the background"))

    def focus(self) -> None:
        row = self._selected_row()
        if row is not None and row.in_cell and row.session_id is not None:
            self._go_to(row)

    def _go_to(self, row: AgentRow) -> None:
        if row.session_id is not None:
            self._host.focus_session(row.session_id)
            self.agent_focused(row.agent_id)

    def send_task(self) -> SendTaskDialog | None:
        row, runtime = self._selected_row(), self.runtime
        if row is None or runtime is None:
            return None
        dialog = SendTaskDialog(self._client, runtime, row.name, running=row.is_live, parent=self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        starting = "" if row.is_live else "; it is starting"
        dialog.sent.connect(lambda _ticket: self.statusMessage.emit(f"Task sent to {row.name}{starting}"))
        dialog.open()
        return dialog

    def interrupt(self) -> None:
        row, runtime = self._selected_row(), self.runtime
        if row is None or runtime is None or not row.is_live:
            return
        self._run(f"Cannot interrupt {row.name}", runtime.requests.interrupt(row.name),
                  lambda _none: self.statusMessage.emit(f"Esc sent to {row.name}"))

    def cancel_ticket(self, ticket_id: TicketId) -> None:
        """The ticket leaves the queue; its requester, if an agent, is told the person cancelled it."""
        runtime = self.runtime
        if runtime is None:
            return
        queued = self._activity.find_ticket(ticket_id)

        def cancelled(detail: str) -> None:
            if queued is None:
                self.statusMessage.emit(detail[:1].upper() + detail[1:])
            else:
                agent_id, ticket = queued
                self.statusMessage.emit(f"Cancelled the ticket from {ticket.requester_label} to {self._name(agent_id)}")

        self._run("Cannot cancel the ticket", runtime.requests.cancel_ticket(ticket_id), cancelled)

    def deliver_now(self, ticket_id: TicketId) -> None:
        """"Deliver now (clears your line)": what the person typed on the agent's line is erased and the
        waiting task is typed."""
        runtime = self.runtime
        if runtime is None:
            return
        agent_id = self._activity.delivery_forced(ticket_id)
        self._render()
        name = self._name(agent_id) if agent_id else "the agent"
        self._run("Cannot deliver the task", runtime.requests.deliver_now(ticket_id),
                  lambda _none: self.statusMessage.emit(f"Typing the waiting task into {name}'s terminal"))

    def edit_persona(self) -> None:
        row, runtime = self._selected_row(), self.runtime
        if row is None or runtime is None:
            return
        open_editor = self.persona_editors.get(row.agent_id)
        if open_editor is not None:
            open_editor.raise_()
            open_editor.activateWindow()
            return
        self._run(
            f"Cannot open {row.name}'s persona",
            runtime.agents.read_persona(row.agent_id),
            lambda body: self._open_persona_editor(runtime, row.agent_id, body),
        )

    def _open_persona_editor(self, runtime: ProjectRuntime, agent_id: AgentId, body: str) -> None:
        if runtime is not self.runtime or agent_id in self.persona_editors:
            return
        row = self.row(agent_id)
        editor = PersonaEditor(self._client, runtime, agent_id, body, running=row is not None and row.is_live,
                               parent=self)
        editor.setWindowFlag(Qt.WindowType.Window)
        editor.saved.connect(lambda _id: self.statusMessage.emit("Persona saved"))
        editor.destroyed.connect(lambda _obj=None, a=agent_id: self.persona_editors.pop(a, None))
        self.persona_editors[agent_id] = editor
        editor.show()

    def change_profile(self, profile_id: str) -> None:
        row, runtime = self._selected_row(), self.runtime
        if row is None or runtime is None or profile_id == row.profile_id:
            return
        new_name = self._profiles.profile(profile_id).name

        def change() -> None:
            self._run(f"Cannot change {row.name}'s profile", runtime.placement.change_profile(row.agent_id, profile_id),
                      lambda _none: self.statusMessage.emit(f"{row.name} now uses {new_name}"))

        if row.is_live:
            ask(self, "Change profile", f"{row.name} is running.", "Restart with " + new_name, change,
                informative=f"It will be stopped and started again with {new_name} in the same place; "
                "its conversations carry over.")
        else:
            change()

    def rename(self) -> RenameAgentDialog | None:
        row, runtime = self._selected_row(), self.runtime
        if row is None or runtime is None:
            return None
        dialog = RenameAgentDialog(self._client, runtime, row.agent_id, self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.open()
        return dialog

    def save_as_template(self) -> None:
        row, runtime = self._selected_row(), self.runtime
        if row is None or runtime is None:
            return

        async def template_names() -> list[str]:
            return [template.name for template in self._templates.templates()]

        def open_dialog(names: list[str]) -> None:
            dialog = SaveTemplateDialog(self._client, runtime, self._templates, row.agent_id, names, self)
            dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
            dialog.accepted.connect(lambda: self.statusMessage.emit(f"Template {dialog.name.text()} saved"))
            dialog.open()

        self._run("Cannot read the templates", template_names(), open_dialog)

    def update_from_template(self) -> TemplateUpdateDialog | None:
        row, runtime = self._selected_row(), self.runtime
        if row is None or runtime is None or not row.has_template_update:
            return None
        agent_id, name = row.agent_id, row.name

        def load_diff(show: Callable[[str, str], None]) -> None:
            self._run("Cannot compare with the template",
                      runtime.agents.template_comparison(agent_id), lambda pair: show(*pair))

        def take() -> None:
            self._run(f"Cannot update {name}", runtime.agents.pull_template(agent_id),
                      lambda _none: self.statusMessage.emit(f"{name}'s persona now follows its template"))

        def keep() -> None:
            self._run(f"Cannot keep {name}'s persona", runtime.agents.keep_persona(agent_id),
                      lambda _none: self.statusMessage.emit(f"{name} keeps its own persona"))

        dialog = TemplateUpdateDialog(name, row.template, load_diff, take, keep, self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.open()
        return dialog

    def set_as_orchestrator(self) -> None:
        row, runtime = self._selected_row(), self.runtime
        if row is None or runtime is None:
            return
        self._run("Cannot change the orchestrator", runtime.agents.set_orchestrator(row.agent_id),
                  lambda _none: self.statusMessage.emit(f"{row.name} is now the orchestrator"))

    def open_run_dir(self) -> None:
        row = self._selected_row()
        if row is None:
            return
        path = self._run_dir(row.agent_id)
        if not os.path.isdir(path):
            show_error(self, "Open run dir", f"{row.name} has no run directory yet: it is created at the first launch.")
            return
        QDesktopServices.openUrl(QUrl.fromLocalFile(path))

    def delete(self) -> None:
        row, runtime = self._selected_row(), self.runtime
        if row is None or runtime is None:
            return
        if row.is_live:
            show_error(self, "Delete agent", f"{row.name} is running; stop it before deleting it.")
            return

        def deleted(kept: str | None) -> None:
            where = f" (persona kept as .ideai/{kept})" if kept else ""
            self.statusMessage.emit(f"Agent {row.name} deleted{where}")

        ask(
            self,
            "Delete agent",
            f"Delete the agent “{row.name}”?",
            "Delete",
            lambda: self._run(f"Cannot delete {row.name}", runtime.agents.delete(row.agent_id), deleted),
            informative="Its persona is kept in .ideai/agents/.deleted/ and can be restored; "
            "its conversations, handoffs and memory stay.",
            destructive=True,
        )

    # -- helpers --

    def _run(self, failure_title: str, work: Coroutine[Any, Any, Any], on_done: Callable[[Any], None]) -> None:
        """Submit to the core; errors are shown to the user, never dropped."""
        self._client.call(work, on_done=on_done, on_error=lambda error: show_error(self, failure_title, error))

    def _shown(self, live: LiveAgent) -> None:
        if live.node_id is not None:
            self._host.focus_session(live.session_id)

    def _into_active_cell(
        self, row: AgentRow, leaf_id: NodeId, failure_title: str, work: Callable[[], Coroutine[Any, Any, LiveAgent]]
    ) -> None:
        """Run `work` in the active cell, asking first when a program is busy in that cell's shell."""
        session = self._live_session_in(leaf_id)
        busy = (
            program_in_front(self.runtime, session.id)
            if self.runtime is not None and session is not None and session.kind is SessionKind.SHELL
            else None
        )
        if busy is None:
            self._run(failure_title, work(), self._shown)
            return
        ask(self, "Replace the shell", f"{busy} is running in the active cell's shell.", "Stop it and continue",
            lambda: self._run(failure_title, work(), self._shown),
            informative=f"{row.name} takes this cell; the shell and {busy} are stopped.", destructive=True)

    def _load_orchestration(self) -> None:
        """Read every queue and live-state row again (events keep them current afterwards)."""
        runtime = self.runtime
        if runtime is None:
            return
        self._orchestration_generation += 1
        generation = self._orchestration_generation

        def arrived(state: tuple[tuple[AgentQueueSnapshot, ...], dict[AgentId, WorkRow]]) -> None:
            if generation == self._orchestration_generation and runtime is self.runtime:
                snapshots, work = state
                self._activity.load(snapshots, work, runtime.clock.now_ms())
                self._render()

        self._client.call(
            runtime.requests.orchestration_state(),
            on_done=arrived,
            on_error=lambda error: self.statusMessage.emit(f"Agent queues unavailable: {error}"),
        )

    def _read_work_rows(self) -> None:
        """One live-state read at a time; changes during a read are picked up by one more read."""
        runtime = self.runtime
        if runtime is None:
            return
        if self._work_read_running:
            self._work_read_again = True
            return
        self._work_read_running = True

        def finished() -> None:
            self._work_read_running = False
            if self._work_read_again:
                self._work_read_again = False
                self._read_work_rows()

        def arrived(work: dict[AgentId, WorkRow]) -> None:
            if runtime is self.runtime:
                self._activity.set_work(work)
                self._render()
            finished()

        def failed(error: BaseException) -> None:
            self.statusMessage.emit(f"Live-state unavailable: {error}")
            finished()

        self._client.call(runtime.requests.work_rows(), on_done=arrived, on_error=failed)

    def _orchestration_event(self, event: object) -> bool:
        """Tell the person what needs them, fold the event into the activity book; True when the panel
        must be drawn again."""
        runtime = self.runtime
        if runtime is None:
            return False
        match event:
            case LiveStateChanged():
                self._read_work_rows()
                return False
            case HumanReplyReceived(agent_id=agent_id, text=text):
                name = self._name(agent_id)
                self.replies.add(name, text, clock_text(runtime.clock.now_ms()))
                self.statusMessage.emit(f"{name} replied: {preview(text, STATUS_PREVIEW_CHARS)}")
            case AgentAttention(agent_id=agent_id, reason=reason):
                self.statusMessage.emit(f"{self._name(agent_id)} needs you: {reason}")
            case LateReplyAvailable(requester=requester, target=target) if requester is not None:
                self.statusMessage.emit(
                    f"{self._name(target)} answered {self._name(requester)} after it stopped waiting: "
                    "late reply available"
                )
            case DeliveryMayBeStuck(agent_id=agent_id):
                self.statusMessage.emit(f"The task typed into {self._name(agent_id)} may still sit in its input box")
        return self._activity.apply(event, runtime.clock.now_ms())

    def _name(self, agent_id: AgentId) -> str:
        agent = self._manifest.by_id(agent_id)
        return agent.name if agent is not None else agent_id

    def _selected_row(self) -> AgentRow | None:
        agent_id = self.selected_agent()
        return self.row(agent_id) if agent_id else None

    def _leaf(self, leaf_id: NodeId | None) -> lay.Leaf | None:
        if leaf_id is None or self._document is None:
            return None
        try:
            return lay.find_leaf(self._document.active.root, leaf_id)
        except AppError:
            return None

    def _active_cell_target(self) -> NodeId | None:
        if self.runtime is None:
            return None
        leaf = self._leaf(self._host.active_leaf())
        return leaf.id if leaf is not None else None

    def _split_target(self) -> NodeId | None:
        if self._document is None:
            return None
        return split_target(self._document.active.root, self._active_cell_target())

    def _live_session_in(self, leaf_id: NodeId) -> SessionInfo | None:
        leaf = self._leaf(leaf_id)
        session = self._sessions.get(leaf.session) if leaf is not None and leaf.session else None
        return session if session is not None and session.is_live else None

    def _cell_hosts_other_agent(self, leaf_id: NodeId, row: AgentRow | None) -> bool:
        session = self._live_session_in(leaf_id)
        return (
            session is not None
            and session.kind is SessionKind.AGENT
            and (row is None or session.agent_id != row.agent_id)
        )

    def _run_dir(self, agent_id: AgentId) -> str:
        return os.path.join(self.runtime.root, ".ideai", "run", agent_id) if self.runtime else ""

    def _refresh_template_links(self) -> None:
        runtime = self.runtime
        if runtime is None:
            return
        self._template_generation += 1
        generation = self._template_generation

        def arrived(links: dict[AgentId, TemplateStatus]) -> None:
            if generation == self._template_generation and runtime is self.runtime:
                self._template_links = links
                self._render()

        self._client.call(
            runtime.agents.template_statuses(),
            on_done=arrived,
            on_error=lambda error: self.statusMessage.emit(f"Template links unavailable: {error}"),
        )


def _tooltip(row: AgentRow) -> str:
    lines = [f"Profile: {row.profile_name}" + (f" ({row.delegation} delegation)" if row.delegation else "")]
    lines.append(f"State: {row.state_text}")
    if row.since_text():
        lines.append(row.since_text())
    if row.queue_depth:
        lines.append(f"Queue: {row.queue_depth} ticket{'s' if row.queue_depth > 1 else ''}")
    if row.work_text:
        lines.append(f"Live-state: {row.work_text}")
    if row.attention_text:
        message = row.activity.attention_message
        lines.append(f"Needs you: {message or row.activity.attention}")
    if row.late_reply_text:
        lines.append(f"Late replies to its asks: {row.activity.late_replies} (shown to it as tasks when it runs)")
    lines.append(f"Where: {row.place_text}")
    if row.bridge_text:
        lines.append(f"Bridge: {row.bridge_text.removeprefix('bridge ')}")
    template = row.template.template
    if row.template.link is TemplateLink.TEMPLATE_DELETED:
        lines.append("Template: deleted (the persona stays)")
    elif template is not None:
        status = f" — {row.template.describe()}" if row.template_text else ""
        lines.append(f"Template: {template.name} v{template.version}{status}")
    title = f"<b>{html.escape(row.name)}</b>" + (" — orchestrator" if row.is_orchestrator else "")
    return "<br>".join([title, *(html.escape(line) for line in lines)])
