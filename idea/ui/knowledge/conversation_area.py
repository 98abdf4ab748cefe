"""A project tab's main area: the grid of cells, or the conversation viewer in its place (spec 04 §9). The
viewer is built the first time a conversation is opened; "Back" shows the grid again without rebuilding it
(the terminals never leave their cells)."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QStackedWidget, QWidget

from idea.application.projects import ProjectRuntime
from idea.domain.ids import AgentId, ConversationId, TicketId, conversation_for_pair
from idea.ui.knowledge.common import Caller
from idea.ui.knowledge.conversation_viewer import ConversationViewer


def agent_name_in(runtime: ProjectRuntime, agent_id: AgentId) -> str:
    """The agent's name as the team has it now; the start of its id for an agent since deleted."""
    entry = runtime.agents.manifest().by_id(agent_id)
    return entry.name if entry is not None else f"agent {agent_id[:8]}"


class ConversationArea(QStackedWidget):
    """`openTicketRequested(ticket_id)`: the person asked to see a turn's ticket in the work panel;
    `gridShown`: the grid is back (its active cell may take the focus again)."""

    openTicketRequested = Signal(str)
    gridShown = Signal()

    def __init__(self, grid: QWidget, runtime: ProjectRuntime, client: Caller, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._runtime = runtime
        self._client = client
        self.grid = grid
        self.viewer: ConversationViewer | None = None
        self.addWidget(grid)

    def show_conversation(
        self, conversation: ConversationId, title: str, reveal_late_reply: TicketId | None = None
    ) -> ConversationViewer:
        viewer = self._viewer()
        self.setCurrentWidget(viewer)
        viewer.show_conversation(conversation, title, reveal_late_reply)
        viewer.view.setFocus()
        return viewer

    def show_agent_conversation(self, agent_id: AgentId) -> ConversationViewer:
        """The conversation between the person and the agent (the one it is launched on)."""
        name = agent_name_in(self._runtime, agent_id)
        return self.show_conversation(conversation_for_pair(agent_id, None), f"You ↔ {name}")

    def show_grid(self) -> None:
        if self.currentWidget() is not self.grid:
            self.setCurrentWidget(self.grid)
            self.gridShown.emit()

    @property
    def showing_conversation(self) -> bool:
        return self.viewer is not None and self.currentWidget() is self.viewer

    def on_event(self, event: object) -> None:
        if self.viewer is not None:
            self.viewer.on_event(event)

    def _viewer(self) -> ConversationViewer:
        if self.viewer is None:
            runtime = self._runtime
            files = runtime.knowledge.stores.conversations
            self.viewer = ConversationViewer(
                self._client,
                runtime.knowledge.pages,
                agent_name=lambda agent_id: agent_name_in(runtime, agent_id),
                raw_log_path=lambda conversation: str(files.path(conversation)),
            )
            self.viewer.backRequested.connect(self.show_grid)
            self.viewer.openTicketRequested.connect(self.openTicketRequested)
            self.addWidget(self.viewer)
        return self.viewer
