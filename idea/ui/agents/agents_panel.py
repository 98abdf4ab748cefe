"""The Agents panel: the current project's team, what each agent is doing and where, and every action on
an agent, with the selected agent's queue of tickets under the list and the agents' replies to the
person's tasks above it.

The panel lives in a dock of a window and follows the window's current tab (`set_project`). It reads
snapshots into its model (`TeamModel`), draws them in its view (`AgentList`), offers its actions
(`AgentActions`) and carries out the person's gestures (`RunGestures`, `TeamGestures`), each one use case
on the core through CoreClient. It redraws from the events the window passes to `on_event` (project events
and the orchestration core's, wrapped in OrchestrationNews). What it needs from the window is the small
`AgentsPanelHost` protocol.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QPoint, QSize, Qt, QTimer, Signal
from PySide6.QtWidgets import QMenu, QVBoxLayout, QWidget

from idea.application.agents.agent_activity import clock_text
from idea.application.agents.agent_rows import AgentRow
from idea.application.agents.launch_context import may_change_launch_context
from idea.application.agents.net_toasts import NetToast, NetToasts
from idea.application.agents.profiles import ProfileCatalogue
from idea.application.agents.templates import TemplateCatalogue
from idea.application.projects import ProjectRuntime
from idea.domain.events import AgentExited, AgentsChanged, LayoutChanged, OrchestrationNews, SessionsChanged
from idea.domain.ids import AgentId
from idea.domain.orchestration.events import (
    AgentAttention,
    DeliveryMayBeStuck,
    HumanReplyReceived,
    LateReplyAvailable,
    LiveStateChanged,
)
from idea.domain.orchestration.tickets import preview
from idea.ui.agents.agent_actions import AgentActions
from idea.ui.agents.agent_cell_menu import AgentCellMenu
from idea.ui.agents.agent_list import AgentList
from idea.ui.agents.gestures import GestureContext
from idea.ui.agents.needs_you import NeedsYouSection
from idea.ui.agents.net_toast_overlay import NetToastOverlay
from idea.ui.agents.reply_notices import ReplyNotices
from idea.ui.agents.run_gestures import RunGestures
from idea.ui.agents.team_feed import TeamFeed
from idea.ui.agents.team_gestures import TeamGestures
from idea.ui.agents.team_model import AgentsPanelHost, TeamModel
from idea.ui.agents.worktree_gestures import WorktreeGestures
from idea.ui.core_client import CoreClient
from idea.ui.widgets.timers import single_shot_timer

CLOCK_TICK_MS = 15_000  # "busy 3m" stays true to the minute
EVENT_REDRAW_MS = 50  # the redraws the core's events ask for, gathered: one ask alone publishes about a dozen
STATUS_PREVIEW_CHARS = 120


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
        self.model = TeamModel(profiles, host)
        self._pending_selection: AgentId | None = None
        self._feed = TeamFeed(client, self.model, self._redraw_soon, self.statusMessage.emit)
        context = GestureContext(
            client, self.model, host, self, self.selected_agent, self.statusMessage.emit, self._render,
            self.agent_focused,
        )
        self.worktree_gestures = WorktreeGestures(context)
        self.run_gestures = RunGestures(context, self.worktree_gestures)
        self.team_gestures = TeamGestures(context, profiles, templates, created=self._created,
                                          worktrees=self.worktree_gestures)
        self.agent_actions = AgentActions(
            self, self.model, self._selected_row, self.run_gestures, self.team_gestures, profiles,
            self.worktree_gestures,
        )
        self.cell_menu = AgentCellMenu(self.model, self.row, self.run_gestures, self.team_gestures, profiles,
                                       self.statusMessage.emit)  # the same gestures, in the menu of an agent's cell
        self.team = AgentList(self.agent_actions.send_task_action, self.agent_actions.interrupt_action)
        self.team.activated.connect(self.run_gestures.activate)
        self.team.selectionChanged.connect(self._selection_changed)
        self.team.menuRequested.connect(self._show_context_menu)
        self.team.newAgentRequested.connect(self.team_gestures.new_agent)
        self.team.queue.cancelRequested.connect(self.run_gestures.cancel_ticket)
        self.team.queue.deliverNowRequested.connect(self.run_gestures.deliver_now)
        self.replies = ReplyNotices()
        self.needs_you = NeedsYouSection()
        self.needs_you.showRequested.connect(self.run_gestures.activate)
        self.needs_you.resumeAtRequested.connect(self.run_gestures.resume_at)
        self.needs_you.dismissRequested.connect(self.run_gestures.dismiss_human_net)
        self.needs_you.interruptRequested.connect(self.run_gestures.interrupt_agent)
        self._net_toasts = NetToasts()
        self.toasts: NetToastOverlay | None = None
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        column.addWidget(self.agent_actions.toolbar(lambda: self.run_gestures.activate(self.selected_agent())))
        column.addWidget(self.replies)
        column.addWidget(self.needs_you)
        column.addWidget(self.team, 1)
        self._clock_tick = QTimer(self)
        self._clock_tick.setInterval(CLOCK_TICK_MS)
        self._clock_tick.timeout.connect(self._render)
        self._event_redraw = single_shot_timer(self, EVENT_REDRAW_MS, self._render)
        self.set_project(None)

    def sizeHint(self) -> QSize:
        return QSize(340, 520)

    def attach_toasts(self, host: QWidget) -> NetToastOverlay:
        """Show the human net as non-modal toasts over `host` (the window's central area) too."""
        self.toasts = NetToastOverlay(host)
        for signal, gesture in (
            (self.toasts.showRequested, self.run_gestures.activate),
            (self.toasts.resumeAtRequested, self.run_gestures.resume_at),
            (self.toasts.dismissRequested, self.run_gestures.dismiss_human_net),
            (self.toasts.interruptRequested, self.run_gestures.interrupt_agent),
        ):
            signal.connect(gesture)
        self.toasts.closeRequested.connect(self._close_toast)
        self._render()
        return self.toasts

    def _close_toast(self, toast: NetToast) -> None:
        self._net_toasts.close(toast)
        self._render()

    # -- following the window --

    def set_project(self, runtime: ProjectRuntime | None) -> None:
        """Show this project's team (None: no project tab)."""
        if runtime is self.model.runtime and runtime is not None:
            return
        self.team_gestures.close_persona_editors()
        self._pending_selection = None
        self.replies.clear()
        self.model.follow(runtime)
        if runtime is None:
            self._render()
        else:
            self._read_all()

    def refresh(self) -> None:
        """Read the project again: for changes that publish no project event (a profile renamed in
        Agents ▸ Profiles, a template saved from another project)."""
        runtime = self.model.runtime
        if runtime is not None:
            self.model.read_snapshots(runtime)
            self._read_all()

    def on_event(self, event: object) -> None:
        """Feed every AgentsChanged, SessionsChanged, LayoutChanged, AgentLaunched and OrchestrationNews
        (others are ignored)."""
        runtime = self.model.runtime
        if runtime is None:
            return
        if may_change_launch_context(event, runtime.id):
            self._feed.read_context_changes()
        match event:
            case AgentsChanged(project_id=runtime.id):
                self.model.manifest = event.manifest
                self._feed.read_template_links()
                self._feed.read_sign_ins()  # a profile changed
            case SessionsChanged(project_id=runtime.id):
                self.model.sessions_changed(event.sessions)
                self._feed.read_sign_ins()  # a sign-in (or a CLI's own login) may have ended
            case LayoutChanged(project_id=runtime.id):
                self.model.document = event.document
            case OrchestrationNews(project_id=runtime.id):
                if not self._orchestration_event(event.event):
                    return
            case AgentExited(project_id=runtime.id):  # its CLI is gone: nothing asks the person any more
                self.model.activity.apply(event, runtime.clock.now_ms())
            case _:
                return
        self._redraw_soon()

    def _redraw_soon(self) -> None:
        """Draw once for the events and core answers of the next few milliseconds."""
        if not self._event_redraw.isActive():
            self._event_redraw.start()

    def active_cell_changed(self) -> None:
        """The window calls this when its active cell changes, so "Launch here" and "Attach" follow it."""
        self.agent_actions.update()

    def agent_focused(self, agent_id: AgentId) -> None:
        """The person went to this agent's terminal, so a call for their attention has been seen. The
        window calls this when a cell showing an agent gets the keyboard focus."""
        if self.model.activity.clear_attention(agent_id):
            self._render()

    # -- reading the panel --

    def rows(self) -> list[AgentRow]:
        self._draw_pending()
        return list(self.model.rows)

    def row(self, agent_id: AgentId) -> AgentRow | None:
        self._draw_pending()
        return self.model.row(agent_id)

    def _draw_pending(self) -> None:
        """Whoever reads the panel reads what the events said, gathered redraw or not."""
        if self._event_redraw.isActive():
            self._event_redraw.stop()
            self._render()

    def selected_agent(self) -> AgentId | None:
        return self.team.selected_agent()

    def select_agent(self, agent_id: AgentId) -> None:
        if not self.team.select(agent_id):
            self._pending_selection = agent_id  # not listed yet: select it when it arrives

    # -- drawing --

    def _read_all(self) -> None:
        self._feed.read_template_links()
        self._feed.read_context_changes()
        self._feed.read_sign_ins()
        self._feed.read_orchestration()
        self._render()

    def _render(self) -> None:
        runtime = self.model.runtime
        rows = self.model.rebuild()
        if runtime is None or self.model.document is None:
            self.team.show_nothing()
            self.needs_you.show_rows([], 0)
            self._show_toasts([], 0)
            self._clock_tick.stop()
            self._selection_changed()
            return
        selected = self._pending_selection or self.selected_agent()
        self.team.show_rows(rows, runtime.clock.now_ms(), selected)
        self.needs_you.show_rows(rows, runtime.clock.now_ms())
        self._show_toasts(rows, runtime.clock.now_ms())
        if self.selected_agent() == self._pending_selection:
            self._pending_selection = None
        for agent_id, editor in self.team_gestures.persona_editors.items():
            row = self.model.row(agent_id)
            editor.set_running(row is not None and row.is_live)
        if any(row.is_live for row in rows):
            if not self._clock_tick.isActive():
                self._clock_tick.start()
        else:
            self._clock_tick.stop()
        self._selection_changed()

    def _show_toasts(self, rows: list[AgentRow], now_ms: int) -> None:
        if self.toasts is not None:
            self.toasts.show_toasts(self._net_toasts.shown(rows, now_ms))

    def _selection_changed(self) -> None:
        self.agent_actions.update()
        row = self._selected_row()
        self.team.show_queue(row, self.model.activity.of(row.agent_id) if row else None)

    def _selected_row(self) -> AgentRow | None:
        return self.model.row(self.selected_agent())

    def _created(self, agent_id: AgentId) -> None:
        self.select_agent(agent_id)
        self.team.list.setFocus()

    def _show_context_menu(self, at: QPoint) -> None:
        item = self.team.list.itemAt(at)
        if item is not None:
            self.team.list.setCurrentItem(item)
        menu = QMenu(self)
        if item is None:
            menu.addAction(self.agent_actions.new_agent_action)
        else:
            self.agent_actions.fill_menu(menu)
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        menu.popup(self.team.list.viewport().mapToGlobal(at))

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and getattr(self, "agent_actions", None) is not None:
            # The theme changed: icons and state colours are drawn from the palette.
            self.agent_actions.apply_icons()
            self._render()

    def _orchestration_event(self, event: object) -> bool:
        """Tell the person what needs them, fold the event into the activity book; True when the panel
        must be drawn again."""
        runtime, name = self.model.runtime, self.model.name
        if runtime is None:
            return False
        match event:
            case LiveStateChanged():
                self._feed.read_work_rows()
                return False
            case HumanReplyReceived(agent_id=agent_id, text=text):
                self.replies.add(name(agent_id), text, clock_text(runtime.clock.now_ms()))
                self.statusMessage.emit(f"{name(agent_id)} replied: {preview(text, STATUS_PREVIEW_CHARS)}")
            case AgentAttention(agent_id=agent_id, reason=reason):
                self.statusMessage.emit(f"{name(agent_id)} needs you: {reason}")
            case LateReplyAvailable(requester=requester, target=target) if requester is not None:
                self.statusMessage.emit(
                    f"{name(target)} answered {name(requester)} after it stopped waiting: late reply available"
                )
            case DeliveryMayBeStuck(agent_id=agent_id):
                self.statusMessage.emit(f"The task typed into {name(agent_id)} may still sit in its input box")
        return self.model.activity.apply(event, runtime.clock.now_ms())
