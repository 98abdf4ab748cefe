"""The work panel in a dock of a window (spec 04 §15): it follows the window's current project tab, like
the Agents dock, and routes the panel's buttons to the work gestures."""

from __future__ import annotations

from PySide6.QtWidgets import QDockWidget, QLabel, QWidget

from idea.application.projects import ProjectRuntime
from idea.ui.knowledge.common import Caller
from idea.ui.knowledge.conversation_area import agent_name_in
from idea.ui.knowledge.work_gestures import WorkGestures, WorkPanelHost
from idea.ui.knowledge.work_panel import WorkPanel


class WorkDock(QDockWidget):
    def __init__(self, client: Caller, host: WorkPanelHost, parent: QWidget | None = None) -> None:
        super().__init__("Work", parent)
        self.setObjectName("WorkDock")
        self._client = client
        self._host = host
        self.runtime: ProjectRuntime | None = None
        self.panel: WorkPanel | None = None
        self.gestures: WorkGestures | None = None
        self._placeholder()

    def set_project(self, runtime: ProjectRuntime | None) -> None:
        """Show the work of another project (None: no project is open in the window)."""
        if runtime is self.runtime:
            return
        self.runtime = runtime
        old = self.widget()
        if runtime is None:
            self.panel = self.gestures = None
            self._placeholder()
        else:
            self.gestures = WorkGestures(self._client, runtime, self._host, self)
            self.panel = WorkPanel(
                self._client,
                runtime.knowledge.work.read,
                agent_name=lambda agent_id: agent_name_in(runtime, agent_id),
                refreshes_on=runtime.knowledge.work.refreshes_on,
            )
            self._connect(self.panel, self.gestures)
            self.setWidget(self.panel)
        if old is not None:
            old.deleteLater()

    def reveal_ticket(self, ticket_id: str) -> None:
        """Show the panel with the ticket's line in view (a ticket that ended is no longer listed)."""
        self.show()
        self.raise_()
        if self.panel is not None and not self.panel.reveal_ticket(ticket_id):
            self._host.show_message("That ticket is no longer queued: it has ended")

    def on_event(self, event: object) -> None:
        if self.panel is not None and self.runtime is not None and getattr(event, "project_id", None) == self.runtime.id:
            self.panel.on_event(event)

    def _connect(self, panel: WorkPanel, gestures: WorkGestures) -> None:
        panel.openAgentRequested.connect(gestures.open_agent)
        panel.attachRequested.connect(gestures.attach)
        panel.stopRequested.connect(gestures.stop)
        panel.cancelTicketRequested.connect(gestures.cancel_ticket)
        panel.deliverNowRequested.connect(gestures.deliver_now)
        panel.viewConversationRequested.connect(gestures.view_conversation)
        panel.lateReplyRequested.connect(gestures.show_late_reply)

    def _placeholder(self) -> None:
        label = QLabel("Open a project to see what its agents are working on.")
        label.setWordWrap(True)
        label.setMargin(12)
        self.setWidget(label)
