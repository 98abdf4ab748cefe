"""A project's tab: the layout bar, the grid of cells, and what the user must know about the project.

The tab is a view over a ProjectRuntime that the application owns; it can move between windows without
any process noticing. It draws the snapshots the core's events bring and keeps which cell is active and
selected; what the person does to cells is `CellGestures`, what cells offer is `CellMenus`, named layouts
are the `LayoutBar`'s. Every change goes to the core as a use case; the tab redraws from the events.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from idea.application.agents.agent_activity import ActivityBook
from idea.application.agents.agent_rows import describe_limit
from idea.application.projects import ProjectRuntime
from idea.domain.agent_states.events import AgentAttentionCleared, AgentNeedsAttention
from idea.domain import layout as lay
from idea.domain.errors import AppError
from idea.domain.events import LayoutChanged, OrchestrationNews, ProjectProblem, SessionsChanged
from idea.domain.ids import SessionId
from idea.domain.orchestration.events import (
    AgentAttention,
    AgentQueueChanged,
    AgentQueueSnapshot,
    DelegationDelivered,
    DeliveryWaiting,
)
from idea.domain.session import SessionInfo
from idea.domain.wording import counted
from idea.infrastructure.agent_watching import format_local_time
from idea.ui.core_client import CoreClient
from idea.ui.foreground import program_in_front
from idea.ui.knowledge.conversation_area import ConversationArea
from idea.ui.layout.cell import CellWidget
from idea.ui.layout.grid_view import GridView
from idea.ui.windows.cell_gestures import CellGestures
from idea.ui.windows.cell_menus import AgentMenu, CellMenus
from idea.ui.widgets.problem_banner import ProblemBanner
from idea.ui.windows.layout_bar import LayoutBar

COUNTDOWN_TICK_MS = 30_000  # "resumes in 12 min" is redrawn this often

if TYPE_CHECKING:
    from idea.ui.terminal.qtermwidget_terminal import QtTerminalFactory
    from idea.ui.terminal.terminal_view import TerminalView

FOREGROUND_POLL_MS = 1500


class CellController:
    """What the grid's cells ask (`GridController`), answered by the tab (its terminals, which cell is
    active), its gestures and its menus."""

    def __init__(self, tab: ProjectTab, gestures: CellGestures, menus: CellMenus) -> None:
        self.view_for, self.park, self.start_cell_drag = tab.view_for, tab.park, tab.start_cell_drag
        self.cell_activated = tab.cell_activated
        self.split, self.close_cell, self.toggle_zoom = gestures.split, gestures.close_cell, gestures.toggle_zoom
        self.start_shell, self.restart, self.deliver_now = gestures.start_shell, gestures.restart, gestures.deliver_now
        self.resize_split, self.resize_grid = gestures.resize_split, gestures.resize_grid
        self.swap_cells = gestures.swap_cells
        self.fill_context_menu, self.fill_attach_menu = menus.fill_context_menu, menus.fill_attach_menu
        self.fill_launch_menu = menus.fill_launch_menu


class ProjectTab(QWidget):
    """Emits `statusMessage` for the window's status bar, `activeCellChanged` when another cell is active."""

    statusMessage = Signal(str)
    activeCellChanged = Signal()

    def __init__(
        self,
        runtime: ProjectRuntime,
        client: CoreClient,
        terminals: QtTerminalFactory,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.runtime = runtime
        self._terminals = terminals
        self._sessions: dict[SessionId, SessionInfo] = {s.id: s for s in runtime.sessions.snapshot()}
        self._document = runtime.document
        self._queues: dict[str, AgentQueueSnapshot] = {}
        self._agent_states = ActivityBook()  # limits and liveness of the agents, for their cells
        self._countdown = QTimer(self)
        self._countdown.setInterval(COUNTDOWN_TICK_MS)
        self._countdown.timeout.connect(self._show_agent_states)
        self.active_leaf: str | None = None
        self.selection: set[str] = set()
        self.agent_menu: AgentMenu | None = None  # what its agent cells offer: its window's Agents panel gestures

        self.gestures = CellGestures(runtime, client, self, self)
        self.menus = CellMenus(runtime, self, self.gestures)
        self.banner = ProblemBanner()
        for problem in runtime.problems:
            self.banner.add(problem)
        self.grid = GridView(CellController(self, self.gestures, self.menus))
        self.layout_bar = LayoutBar(
            runtime, client, lambda: self.gestures.make_grid(self.active_leaf),
            lambda: self.gestures.mutate(lay.Equalize(None)),
        )
        self.status_line = QLabel()
        self.status_line.setContentsMargins(8, 2, 8, 2)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        column.addWidget(self.layout_bar)
        column.addWidget(self.banner)
        self.area = ConversationArea(self.grid, runtime, client)  # the grid, or a conversation in its place
        self.area.gridShown.connect(self.focus_active)
        self.area.currentChanged.connect(lambda _index: self.layout_bar.setVisible(not self.area.showing_conversation))
        column.addWidget(self.area, 1)
        column.addWidget(self.status_line)
        self._redraw()
        self._poll = QTimer(self)
        self._poll.timeout.connect(self._refresh_foreground)
        self._poll.start(FOREGROUND_POLL_MS)

    @property
    def project_id(self) -> str:
        return self.runtime.id

    @property
    def title(self) -> str:
        return self.runtime.name

    @property
    def document(self) -> lay.LayoutDocument:
        """The layouts as the last event told them."""
        return self._document

    @property
    def sessions(self) -> dict[SessionId, SessionInfo]:
        return self._sessions

    # -- events from the core --

    def on_event(self, event: object) -> None:
        match event:
            case LayoutChanged(project_id=self.project_id):
                self._document = event.document
                self._redraw()
            case SessionsChanged(project_id=self.project_id):
                self._sessions = {s.id: s for s in event.sessions}
                self._redraw()
            case ProjectProblem(project_id=self.project_id):
                self.banner.add(event.message)
            case OrchestrationNews(project_id=self.project_id):
                self._orchestration_event(event.event)
                self.area.on_event(event)

    def _orchestration_event(self, event: object) -> None:
        """What the orchestration core says about an agent, shown on the cell that displays it."""
        match event:
            case AgentQueueChanged(snapshot=snapshot):
                self._queues[snapshot.agent_id] = snapshot
                cell = self._cell_of_agent(snapshot.agent_id)
                if cell is not None:
                    cell.set_agent_status(_queue_status(snapshot))
                    waiting = {t.ticket_id for t in snapshot.tickets}
                    if cell.waiting_ticket not in waiting:
                        cell.delivery_done()
            case DelegationDelivered(agent_id=agent_id, ticket=ticket):
                cell = self._cell_of_agent(agent_id)
                if cell is not None:
                    cell.delivery_done(ticket)
                    cell.task_delivered()
            case DeliveryWaiting(agent_id=agent_id, ticket=ticket, requester_label=requester):
                cell = self._cell_of_agent(agent_id)
                if cell is not None:
                    cell.delivery_waiting(ticket, requester)
            case AgentAttention(agent_id=agent_id, reason=reason, message=message):
                cell = self._cell_of_agent(agent_id)
                if cell is not None:
                    cell.needs_attention(message or reason)
            case AgentNeedsAttention(agent_id=agent_id, reason=reason, message=message):
                cell = self._cell_of_agent(agent_id)
                if cell is not None:
                    cell.needs_attention(message or reason.value)
            case AgentAttentionCleared(agent_id=agent_id):
                cell = self._cell_of_agent(agent_id)
                if cell is not None:
                    cell.needs_attention(None)
            case _ if self._agent_states.apply(event, self.runtime.clock.now_ms()):
                self._show_agent_states()

    def _show_agent_states(self) -> None:
        """Limits ("limited until 15:00 · resumes in 12 min") and stalls on the cells showing the agents."""
        now = self.runtime.clock.now_ms()
        ticking = False
        for agent_id, activity in self._agent_states.all().items():
            cell = self._cell_of_agent(agent_id)
            text = None
            if activity.limit is not None:
                text = describe_limit(activity.limit, now, format_local_time)
                ticking = ticking or activity.limit.fire_at_ms is not None
            elif activity.stalled:
                text = "no sign of work for a while"
            if cell is not None:
                cell.set_agent_state(text)
        if ticking and not self._countdown.isActive():
            self._countdown.start()
        elif not ticking:
            self._countdown.stop()

    def _cell_of_agent(self, agent_id: str) -> CellWidget | None:
        info = next((s for s in self._sessions.values() if s.agent_id == agent_id and s.is_live), None)
        leaf = lay.leaf_showing_session(self._document.active.root, info.id) if info else None
        return self.grid.cell(leaf.id) if leaf else None

    # -- drawing --

    def _redraw(self) -> None:
        layout = self._document.active
        self.grid.render(layout, self._sessions)
        leaf_ids = {leaf.id for leaf in lay.leaves(layout.root)}
        self.selection &= leaf_ids
        if self.active_leaf not in leaf_ids:
            self.active_leaf = next(iter(sorted(leaf_ids, key=lambda i: self.reading_order(i))), None)
        for leaf_id, cell in self.grid.cells().items():
            cell.set_active(leaf_id == self.active_leaf)
            cell.set_selected(leaf_id in self.selection and len(self.selection) > 1)
            agent_id = cell.session.agent_id if cell.session else None
            queue = self._queues.get(agent_id) if agent_id else None
            cell.set_agent_status(_queue_status(queue) if queue else None)
        self.layout_bar.show_document(self._document)
        self._refresh_status()

    def _refresh_status(self) -> None:
        """The project's folder, its terminals (agents among them, those in the background) and whether its
        agents can reach IdeA (spec 01 §3; where, in the tooltip)."""
        live = [s for s in self._sessions.values() if s.is_live]
        agents = sum(1 for s in live if s.agent_id)
        hidden = len(self.runtime.background_sessions())
        running = f"{counted(len(live), 'terminal')} running" + (f" ({counted(agents, 'agent')})" if agents else "")
        parts = [self.runtime.root, running]
        if hidden:
            parts.append(f"{hidden} in the background")
        doors = self.runtime.doors.state()
        parts.append("MCP ● listening" if doors.endpoint else "MCP ○ closed")
        self.status_line.setText("  ·  ".join(parts))
        hooks = f"hooks at {doors.hook_url}" if doors.hook_url else "hooks through IdeA's relay command"
        self.status_line.setToolTip(
            f"Agents reach IdeA at {doors.endpoint}; {hooks}" if doors.endpoint else "Agents cannot reach IdeA"
        )

    def _refresh_foreground(self) -> None:
        for cell in self.grid.visible_cells():
            session = cell.session
            if session is None or not session.is_live:
                continue
            cell.set_foreground(program_in_front(self.runtime, session.id))

    # -- reading the tab --

    def leaf(self, leaf_id: str) -> lay.Leaf | None:
        try:
            return lay.find_leaf(self._document.active.root, leaf_id)
        except AppError:
            return None

    def reading_order(self, leaf_id: str) -> int:
        order = [leaf.id for leaf in lay.leaves(self._document.active.root)]
        return order.index(leaf_id) if leaf_id in order else len(order)

    def busy_sessions(self) -> list[SessionInfo]:
        """Live sessions whose process would be stopped by closing the project."""
        return [s for s in self._sessions.values() if s.is_live]

    # -- the cells' terminals, the active cell and the focus --

    def view_for(self, session_id: SessionId) -> TerminalView | None:
        return self._terminals.view_for(session_id)

    def park(self, view: TerminalView) -> None:
        self._terminals.park(view)

    def start_cell_drag(self, leaf_id: str) -> None:
        self.grid.drag_cell(leaf_id)

    def cell_activated(self, leaf_id: str, extend_selection: bool) -> None:
        if extend_selection:
            if not self.selection and self.active_leaf:
                self.selection.add(self.active_leaf)
            self.selection ^= {leaf_id}
        else:
            self.selection = {leaf_id}
        changed = self.active_leaf != leaf_id
        self.active_leaf = leaf_id
        for other_id, cell in self.grid.cells().items():
            cell.set_active(other_id == leaf_id)
            cell.set_selected(other_id in self.selection and len(self.selection) > 1)
        if changed:
            self.activeCellChanged.emit()

    def reveal(self, leaf_id: str) -> None:
        """Make a cell visible (leaving another cell's zoom, or a conversation shown in the grid's place) and
        give its terminal the focus."""
        self.area.show_grid()
        zoomed = self._document.active.zoomed
        if zoomed is not None and zoomed != leaf_id:
            self.gestures.mutate(lay.ToggleZoom(zoomed))
        self.focus_later(leaf_id)

    def open_agent_conversation(self, agent_id: str) -> None:
        self.area.show_agent_conversation(agent_id)

    def focus_neighbour(self, towards: str) -> None:
        if self.active_leaf is None:
            return
        other = lay.neighbour(self._document.active.root, self.active_leaf, towards)
        if other is not None:
            self.cell_activated(other, False)
            self.focus_later(other)

    def focus_active(self) -> None:
        if self.active_leaf:
            self.focus_later(self.active_leaf)

    def focus_later(self, leaf_id: str) -> None:
        """Focus a cell's terminal once the core's change has been drawn."""

        def focus() -> None:
            cell = self.grid.cell(leaf_id)
            if cell is not None:
                self.cell_activated(leaf_id, False)
                cell.focus_terminal()

        QTimer.singleShot(50, self, focus)


def _queue_status(snapshot: AgentQueueSnapshot) -> str | None:
    """One line for an agent cell's header: what it serves and what waits."""
    if not snapshot.tickets:
        return None
    head, waiting = snapshot.tickets[0], len(snapshot.tickets) - 1
    doing = f"serving {head.requester_label} (ticket {head.ticket_id[:8]})" if snapshot.busy else "task queued"
    return doing + (f" · {waiting} queued" if waiting > 0 else "")
