"""Desktop notifications of the running GUI (spec 05 §10, 02 §9): the attention, usage-limit and human-net
events of every open project, told to the desktop while IdeA's window is not the active one, for the kinds
the person keeps on (View ▸ Desktop notifications). A click shows the agent: its cell gets the focus, a
background agent is shown in a cell first. Without a notification service on the desktop, the tray icon
shows the note instead.

The notes themselves go out on the core loop (the notification library speaks D-Bus there); this object
lives on the GUI thread and hands each event over.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication, QSystemTrayIcon

from idea.application.agents.net_toasts import human_net_text
from idea.application.desktop_alerts import DesktopAlerts
from idea.application.notifications import DesktopNote, NotificationKind
from idea.bootstrap import App
from idea.domain.agent_states.events import (
    AgentAttentionCleared,
    AgentNeedsAttention,
    AgentRateLimited,
    AgentRateLimitSuspected,
    AgentResumed,
)
from idea.domain.agent_states.attention import Attention, AttentionOrigin, AttentionReason
from idea.domain.errors import AppError
from idea.domain.events import OrchestrationNews
from idea.domain.orchestration.events import ColdStartDegraded
from idea.domain.ids import AgentId, ProjectId
from idea.infrastructure.agent_watching import format_local_time
from idea.infrastructure.notify.desktop import DesktopNotifierAdapter
from idea.ui.event_relay import EventRelay
from idea.ui.gui_thread import GuiThread


class GuiDesktopAlerts(QObject):
    def __init__(
        self,
        app: App,
        relay: EventRelay,
        gui: GuiThread,
        show_agent: Callable[[ProjectId, AgentId], None],
    ) -> None:
        super().__init__()
        self._app = app
        self._gui = gui
        self._show_agent = show_agent
        self._tray: QSystemTrayIcon | None = None
        self._tray_click: Callable[[], None] | None = None
        self.alerts = DesktopAlerts(
            notifications=DesktopNotifierAdapter(app.diagnostics),
            diagnostics=app.diagnostics,
            focus_agent=lambda project, agent: gui.post(lambda: self._show_agent(project, agent)),
            tray_fallback=lambda note: gui.post(lambda: self._show_in_tray(note)),
            format_time=format_local_time,
        )
        relay.published.connect(self._on_event)
        application = QGuiApplication.instance()
        if isinstance(application, QGuiApplication):
            application.applicationStateChanged.connect(self._state_changed)
            self._state_changed(application.applicationState())
        self.settings_changed()

    def settings_changed(self) -> None:
        kinds = frozenset(
            kind for kind in NotificationKind if kind.value in self._app.preferences.settings.desktop_notifications
        )
        self._on_core(lambda: setattr(self.alerts, "enabled", kinds))

    def close(self) -> None:
        if self._tray is not None:
            self._tray.hide()

    # -- events, on the GUI thread --

    def _state_changed(self, state: Qt.ApplicationState) -> None:
        active = state == Qt.ApplicationState.ApplicationActive
        self._on_core(lambda: setattr(self.alerts, "window_active", active))

    def _on_event(self, event: object) -> None:
        if not isinstance(event, OrchestrationNews):
            return
        project, news = event.project_id, event.event
        name = self._name(project, getattr(news, "agent_id", ""))
        alerts = self.alerts
        match news:
            case AgentNeedsAttention(agent_id=agent, reason=reason, message=message, visible=visible):
                attention = Attention(reason, message, AttentionOrigin.HOOK, 0)
                self._on_core(lambda: alerts.attention(project, agent, name, attention, visible))
            case AgentAttentionCleared(agent_id=agent):
                self._on_core(lambda: alerts.attention(project, agent, name, None, True))
            case AgentRateLimited(agent_id=agent, resets_at_ms=resets):
                self._on_core(lambda: alerts.limited(project, agent, name, resets))
            case AgentResumed(agent_id=agent):
                self._on_core(lambda: alerts.resumed(project, agent, name))
            case AgentRateLimitSuspected(agent_id=agent, reason=reason, detail=detail):
                title = human_net_text(name, reason, detail)
                self._on_core(lambda: alerts.human_net(project, agent, title))
            case ColdStartDegraded(agent_id=agent):  # spec 02 §9: "Architect needs you before it can start"
                attention = Attention(AttentionReason.NOT_STARTED, "", AttentionOrigin.CORE, 0)
                visible = self._visible(project, agent)
                self._on_core(lambda: alerts.attention(project, agent, name, attention, visible))

    def _visible(self, project_id: ProjectId, agent_id: AgentId) -> bool:
        """Whether a cell shows the agent (read from the runtime's snapshots)."""
        try:
            live = self._app.projects.runtime(project_id).runner.live(agent_id)
        except AppError:
            return False
        return live is not None and live.node_id is not None

    def _name(self, project_id: ProjectId, agent_id: AgentId) -> str:
        try:
            agent = self._app.projects.runtime(project_id).agents.manifest().by_id(agent_id)
        except AppError:
            return "An agent"
        return agent.name if agent is not None else "An agent"

    def _on_core(self, work: Callable[[], object]) -> None:
        try:
            self._app.core.loop.call_soon_threadsafe(work)
        except RuntimeError:
            pass  # the core loop has stopped: IdeA is quitting

    # -- the tray, when the desktop shows no notifications --

    def _show_in_tray(self, note: DesktopNote) -> None:
        if not QSystemTrayIcon.isSystemTrayAvailable():
            return
        if self._tray is None:
            self._tray = QSystemTrayIcon(QApplication.windowIcon(), QApplication.instance())
            self._tray.setToolTip("IdeA")
            self._tray.messageClicked.connect(self._tray_clicked)
        self._tray.show()
        self._tray_click = note.on_click
        self._tray.showMessage(note.title, note.body, QSystemTrayIcon.MessageIcon.Information, 10_000)

    def _tray_clicked(self) -> None:
        if self._tray_click is not None:
            self._on_core(self._tray_click)
