"""A project's tab: the layout bar, the grid of cells, and what the user must know about the project.

The tab is a view over a ProjectRuntime that the application owns; it can move between windows without
any process noticing. Every change goes to the core as a use case; the tab redraws from the events.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QMenu,
    QMessageBox,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from idea.application.agents.placement import InCell
from idea.application.projects import ProjectRuntime
from idea.domain import layout as lay
from idea.domain.events import (
    LayoutChanged,
    OrchestrationNews,
    ProjectProblem,
    SessionsChanged,
)
from idea.domain.ids import SessionId
from idea.domain.orchestration_events import (
    AgentAttention,
    AgentQueueChanged,
    AgentQueueSnapshot,
    DelegationDelivered,
    DeliveryWaiting,
)
from idea.domain.session import SessionInfo, SessionKind
from idea.ui.core_client import CoreClient
from idea.ui.foreground import program_in_front
from idea.ui.icons import icon
from idea.ui.layout.cell import CellWidget
from idea.ui.layout.grid_view import GridView

if TYPE_CHECKING:
    from idea.ui.terminal.qtermwidget_terminal import QtTerminalFactory
    from idea.ui.terminal.terminal_view import TerminalView

FOREGROUND_POLL_MS = 1500


class ProblemBanner(QFrame):
    """Tells the user what went wrong with the project's files, and that nothing was lost."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("ProblemBanner")
        row = QHBoxLayout(self)
        row.setContentsMargins(8, 4, 4, 4)
        self.text = QLabel()
        self.text.setWordWrap(True)
        self.text.setStyleSheet("color: #1a1a1a;")
        row.addWidget(self.text, 1)
        dismiss = QToolButton()
        dismiss.setIcon(icon("close", "#1a1a1a"))
        dismiss.setToolTip("Dismiss")
        dismiss.clicked.connect(self.clear)
        row.addWidget(dismiss)
        self._messages: list[str] = []
        self.hide()

    @property
    def messages(self) -> list[str]:
        return list(self._messages)

    def add(self, message: str) -> None:
        if message not in self._messages:
            self._messages.append(message)
        self.text.setText("\n".join(self._messages))
        self.show()

    def clear(self) -> None:
        self._messages.clear()
        self.hide()


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
        self._client = client
        self._terminals = terminals
        self._sessions: dict[SessionId, SessionInfo] = {s.id: s for s in runtime.sessions.snapshot()}
        self._document = runtime.document
        self._queues: dict[str, AgentQueueSnapshot] = {}
        self.active_leaf: str | None = None
        self.selection: set[str] = set()

        self.banner = ProblemBanner()
        for problem in runtime.problems:
            self.banner.add(problem)
        self.grid = GridView(self)
        self._layout_bar = self._build_layout_bar()
        self._status = QLabel()
        self._status.setContentsMargins(8, 2, 8, 2)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        column.addWidget(self._layout_bar)
        column.addWidget(self.banner)
        column.addWidget(self.grid, 1)
        column.addWidget(self._status)
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

    def _cell_of_agent(self, agent_id: str) -> CellWidget | None:
        info = next((s for s in self._sessions.values() if s.agent_id == agent_id and s.is_live), None)
        leaf = lay.leaf_showing_session(self._document.active.root, info.id) if info else None
        return self.grid.cell(leaf.id) if leaf else None

    def deliver_now(self, ticket_id: str) -> None:
        self._client.call(self.runtime.requests.deliver_now(ticket_id))

    def _redraw(self) -> None:
        layout = self._document.active
        self.grid.render(layout, self._sessions)
        leaf_ids = {leaf.id for leaf in lay.leaves(layout.root)}
        self.selection &= leaf_ids
        if self.active_leaf not in leaf_ids:
            self.active_leaf = next(iter(sorted(leaf_ids, key=lambda i: self._reading_order(i))), None)
        for leaf_id, cell in self.grid.cells().items():
            cell.set_active(leaf_id == self.active_leaf)
            cell.set_selected(leaf_id in self.selection and len(self.selection) > 1)
            agent_id = cell.session.agent_id if cell.session else None
            queue = self._queues.get(agent_id) if agent_id else None
            cell.set_agent_status(_queue_status(queue) if queue else None)
        self._refresh_layout_bar()
        self._refresh_status()

    def _reading_order(self, leaf_id: str) -> int:
        order = [leaf.id for leaf in lay.leaves(self._document.active.root)]
        return order.index(leaf_id) if leaf_id in order else len(order)

    # -- the layout bar --

    def _build_layout_bar(self) -> QWidget:
        bar = QFrame()
        bar.setObjectName("LayoutBar")
        row = QHBoxLayout(bar)
        row.setContentsMargins(6, 3, 6, 3)
        row.setSpacing(4)
        row.addWidget(QLabel("Layout"))
        self.layout_picker = QComboBox()
        self.layout_picker.setMinimumWidth(160)
        self.layout_picker.activated.connect(self._picked_layout)
        row.addWidget(self.layout_picker)
        for text, tip, slot in (
            ("New", "Create a new layout", self.create_layout),
            ("Duplicate", "Duplicate this layout", self.duplicate_layout),
            ("Rename", "Rename this layout", self.rename_layout),
            ("Delete", "Delete this layout (its terminals keep running)", self.delete_layout),
        ):
            button = QPushButton(text)
            button.setToolTip(tip)
            button.clicked.connect(slot)
            row.addWidget(button)
            if text == "Delete":
                self._delete_layout_button = button
        row.addStretch(1)
        grid = QPushButton(icon("grid"), "Grid…")
        grid.setToolTip("Turn the active cell into a grid of rows × columns")
        grid.clicked.connect(lambda: self.make_grid(self.active_leaf))
        row.addWidget(grid)
        equalize = QPushButton("Equalize")
        equalize.setToolTip("Give every cell of the layout the same size (Ctrl+Alt+=)")
        equalize.clicked.connect(lambda: self.mutate(lay.Equalize(None)))
        row.addWidget(equalize)
        return bar

    def _refresh_layout_bar(self) -> None:
        picker = self.layout_picker
        names = [(layout.id, layout.name) for layout in self._document.layouts]
        if [picker.itemData(i) for i in range(picker.count())] != [i for i, _ in names] or [
            picker.itemText(i) for i in range(picker.count())
        ] != [n for _, n in names]:
            picker.blockSignals(True)
            picker.clear()
            for layout_id, name in names:
                picker.addItem(name, layout_id)
            picker.blockSignals(False)
        picker.setCurrentIndex(max(0, picker.findData(self._document.active_id)))
        self._delete_layout_button.setEnabled(len(names) > 1)

    def _picked_layout(self, index: int) -> None:
        self.activate_layout(self.layout_picker.itemData(index))

    def _refresh_status(self) -> None:
        live = [s for s in self._sessions.values() if s.is_live]
        hidden = len(self.runtime.background_sessions())
        parts = [self.runtime.root, f"{len(live)} terminal{'s' if len(live) != 1 else ''} running"]
        if hidden:
            parts.append(f"{hidden} in the background")
        self._status.setText("  ·  ".join(parts))

    def _refresh_foreground(self) -> None:
        for cell in self.grid.visible_cells():
            session = cell.session
            if session is None or not session.is_live:
                continue
            cell.set_foreground(program_in_front(self.runtime, session.id))

    # -- named layouts --

    def activate_layout(self, layout_id: str) -> None:
        self._client.call(self.runtime.activate_layout(layout_id))

    def create_layout(self) -> None:
        name, ok = QInputDialog.getText(self, "New layout", "Name of the new layout:", text=self._free_name("Layout"))
        if ok:
            self._client.call(self.runtime.create_layout(name))

    def duplicate_layout(self) -> None:
        active = self._document.active
        name, ok = QInputDialog.getText(
            self, "Duplicate layout", "Name of the copy:", text=self._free_name(f"{active.name} copy")
        )
        if ok:
            self._client.call(self.runtime.duplicate_layout(active.id, name))

    def rename_layout(self) -> None:
        active = self._document.active
        name, ok = QInputDialog.getText(self, "Rename layout", "New name:", text=active.name)
        if ok and name != active.name:
            self._client.call(self.runtime.rename_layout(active.id, name))

    def delete_layout(self) -> None:
        active = self._document.active
        answer = QMessageBox.question(
            self,
            "Delete layout",
            f"Delete the layout “{active.name}”? Terminals it shows keep running in the background.",
        )
        if answer == QMessageBox.StandardButton.Yes:
            self._client.call(self.runtime.delete_layout(active.id))

    def _free_name(self, base: str) -> str:
        taken = {layout.name.casefold() for layout in self._document.layouts}
        if base.casefold() not in taken:
            return base
        number = 2
        while f"{base} {number}".casefold() in taken:
            number += 1
        return f"{base} {number}"

    # -- GridController --

    def view_for(self, session_id: SessionId) -> TerminalView | None:
        return self._terminals.view_for(session_id)

    def park(self, view: TerminalView) -> None:
        self._terminals.park(view)

    def mutate(self, op: lay.LayoutOp) -> None:
        self._client.call(self.runtime.mutate(op))

    def split(self, leaf_id: str, direction: lay.Direction, position: str) -> None:
        self._client.call(self.runtime.split(leaf_id, direction, position), on_done=self._focus_later)

    def toggle_zoom(self, leaf_id: str) -> None:
        self.mutate(lay.ToggleZoom(leaf_id))
        self._focus_later(leaf_id)

    def start_shell(self, leaf_id: str) -> None:
        self._client.call(self.runtime.start_shell(leaf_id), on_done=lambda _info: self._focus_later(leaf_id))

    def restart(self, leaf_id: str) -> None:
        self._client.call(self.runtime.restart(leaf_id), on_done=lambda _info: self._focus_later(leaf_id))

    def resize_split(self, split_id: str, weights: list[float]) -> None:
        self.mutate(lay.ResizeSplit(split_id, tuple(weights)))

    def resize_grid(self, grid_id: str, rows: list[float], cols: list[float]) -> None:
        self.mutate(lay.ResizeGrid(grid_id, tuple(rows), tuple(cols)))

    def swap_cells(self, source: str, destination: str) -> None:
        self.mutate(lay.MoveContent(source, destination))

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
        """Make a cell visible (leaving another cell's zoom) and give its terminal the focus."""
        zoomed = self._document.active.zoomed
        if zoomed is not None and zoomed != leaf_id:
            self.mutate(lay.ToggleZoom(zoomed))
        self._focus_later(leaf_id)

    def close_cell(self, leaf_id: str) -> None:
        leaf = self._leaf(leaf_id)
        if leaf is None:
            return
        session = self._sessions.get(leaf.session) if leaf.session else None
        stop = True
        if session is not None and session.is_live:
            choice = self._ask_close(session)
            if choice is None:
                return
            stop = choice
        self._client.call(self.runtime.close_cell(leaf_id, stop_session=stop))

    def _ask_close(self, session: SessionInfo) -> bool | None:
        """True: stop the process; False: keep it in the background; None: keep the cell."""
        program = program_in_front(self.runtime, session.id)
        if session.kind is SessionKind.SHELL and program is None:
            return True
        box = QMessageBox(self)
        box.setIcon(QMessageBox.Icon.Question)
        box.setWindowTitle("Close cell")
        if session.kind is SessionKind.AGENT:
            box.setText(f"The agent {session.label} is running in this cell.")
            box.setInformativeText(
                "Keep it running in the background (it still receives tasks; attach it to a cell from the "
                "Agents panel), or stop it?"
            )
        else:
            box.setText(f"{program or session.label} is still running in this cell.")
            box.setInformativeText(
                "Stop it, or keep it running in the background (you can attach it to a cell later)?"
            )
        stop = box.addButton("Stop it", QMessageBox.ButtonRole.DestructiveRole)
        keep = box.addButton("Keep in background", QMessageBox.ButtonRole.AcceptRole)
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(keep)
        box.exec()
        clicked = box.clickedButton()
        if clicked is stop:
            return True
        if clicked is keep:
            return False
        return None

    def busy_sessions(self) -> list[SessionInfo]:
        """Live sessions whose process would be stopped by closing the project."""
        return [s for s in self._sessions.values() if s.is_live]

    def fill_attach_menu(self, leaf_id: str, menu: QMenu) -> None:
        background = self.runtime.background_sessions()
        if not background:
            action = menu.addAction("No terminal is running in the background")
            action.setEnabled(False)
            return
        for session in background:
            label = session.title or session.label
            menu.addAction(label, lambda s=session.id: self._client.call(self.runtime.attach(leaf_id, s)))

    def fill_launch_menu(self, leaf_id: str, menu: QMenu) -> None:
        """The project's agents, to run in this empty cell: launch a stopped one, attach a background one."""
        manifest = self.runtime.agents.manifest()
        if not manifest.agents:
            menu.addAction("No agent yet: create one in the Agents panel").setEnabled(False)
            return
        root = self._document.active.root
        for agent in manifest.agents:
            live = self.runtime.sessions.live_agent_session(agent.agent_id)
            if live is None:
                menu.addAction(
                    f"Launch {agent.name}",
                    lambda a=agent.agent_id: self._client.call(
                        self.runtime.placement.launch(a, InCell(leaf_id)),
                        on_done=lambda _live: self._focus_later(leaf_id),
                    ),
                )
                continue
            shown = lay.leaf_showing_session(root, live.id)
            if shown is None:
                menu.addAction(
                    f"Attach {agent.name} (running in the background)",
                    lambda a=agent.agent_id: self._client.call(
                        self.runtime.placement.attach(a, InCell(leaf_id)), on_done=lambda _r: self._focus_later(leaf_id)
                    ),
                )
            else:
                running = menu.addAction(f"{agent.name} (running in cell {self._reading_order(shown.id) + 1})")
                running.setEnabled(False)

    def fill_context_menu(self, leaf_id: str, menu: QMenu) -> None:
        leaf = self._leaf(leaf_id)
        if leaf is None:
            return
        root = self._document.active.root
        parent = lay.parent_of(root, leaf_id)
        add = menu.addAction
        add(icon("split-right"), "Split right\tCtrl+Shift+E", lambda: self.split(leaf_id, lay.Direction.ROW, "after"))
        add("Split left", lambda: self.split(leaf_id, lay.Direction.ROW, "before"))
        add(icon("split-down"), "Split down\tCtrl+Shift+O", lambda: self.split(leaf_id, lay.Direction.COLUMN, "after"))
        add("Split up", lambda: self.split(leaf_id, lay.Direction.COLUMN, "before"))
        menu.addSeparator()
        add("Columns in this row…", lambda: self.set_count(leaf_id, lay.Direction.ROW))
        add("Rows in this column…", lambda: self.set_count(leaf_id, lay.Direction.COLUMN))
        add(icon("grid"), "Make grid…", lambda: self.make_grid(leaf_id))
        if isinstance(parent, lay.Grid):
            add("Grid size…", lambda: self.set_grid_size(parent))
            placed = next(c for c in parent.cells if c.node.id == leaf_id)
            if placed.row_span > 1 or placed.col_span > 1:
                add("Unmerge cell", lambda: self.mutate(lay.UnmergeCell(parent.id, placed.row, placed.col)))
        merge = menu.addMenu("Merge")
        for towards, label in (("right", "With the cell on the right"), ("down", "With the cell below"),
                               ("left", "With the cell on the left"), ("up", "With the cell above")):
            other = lay.neighbour(root, leaf_id, towards)
            action = merge.addAction(label, lambda o=other: self.merge((leaf_id, o), keep=leaf_id))
            action.setEnabled(other is not None)
        selected = merge.addAction(
            f"Selected cells ({len(self.selection)})\tCtrl+Shift+M", self.merge_selection
        )
        selected.setEnabled(len(self.selection) > 1)
        swap = menu.addMenu("Swap with")
        for other in lay.leaves(root):
            if other.id != leaf_id:
                swap.addAction(self._describe_leaf(other), lambda o=other.id: self.swap_cells(leaf_id, o))
        swap.setEnabled(len(lay.leaves(root)) > 1)
        if parent is not None:
            add("Equalize sizes here", lambda: self.mutate(lay.Equalize(parent.id)))
        add("Equalize all\tCtrl+Alt+=", lambda: self.mutate(lay.Equalize(None)))
        menu.addSeparator()
        zoomed = self._document.active.zoomed == leaf_id
        add(icon("zoom"), ("Restore layout" if zoomed else "Zoom cell") + "\tCtrl+Shift+X", lambda: self.toggle_zoom(leaf_id))
        session = self._sessions.get(leaf.session) if leaf.session else None
        if session is not None and session.kind is SessionKind.AGENT and session.agent_id:
            agent_id = session.agent_id
            add(icon("restart"), f"Restart {session.label}", lambda: self.restart(leaf_id))
            background = add(
                "Send to background",
                lambda: self._client.call(self.runtime.placement.send_to_background(agent_id)),
            )
            background.setEnabled(session.is_live)
            stop = add(f"Stop {session.label}", lambda: self._client.call(self.runtime.placement.stop(agent_id)))
            stop.setEnabled(session.is_live)
        elif session is not None:
            add(icon("restart"), "Restart", lambda: self.restart(leaf_id))
            stop = add("Stop process", lambda: self._client.call(self.runtime.stop_session(session.id)))
            stop.setEnabled(session.is_live)
        if session is not None:
            view = self.view_for(session.id)
            if view is not None:
                menu.addSeparator()
                add("Copy\tCtrl+Shift+C", view.copy)
                add("Paste\tCtrl+Shift+V", view.paste)
                add("Find…\tCtrl+Shift+F", view.toggle_find)
        else:
            add("Open shell", lambda: self.start_shell(leaf_id))
            self.fill_launch_menu(leaf_id, menu.addMenu("Launch agent"))
            attach = menu.addMenu("Attach session")
            self.fill_attach_menu(leaf_id, attach)
        menu.addSeparator()
        add(icon("close"), "Close cell\tCtrl+Shift+W", lambda: self.close_cell(leaf_id))

    # -- spreadsheet operations with a question first --

    def set_count(self, leaf_id: str, direction: lay.Direction) -> None:
        parent = lay.parent_of(self._document.active.root, leaf_id)
        container = parent.id if isinstance(parent, lay.Split) and parent.direction is direction else leaf_id
        current = len(parent.children) if container != leaf_id and isinstance(parent, lay.Split) else 1
        what = "columns in this row" if direction is lay.Direction.ROW else "rows in this column"
        count, ok = QInputDialog.getInt(self, "Set count", f"Number of {what}:", current, 1, 12)
        if ok:
            self.mutate(lay.SetCount(container, direction, count))

    def make_grid(self, leaf_id: str | None) -> None:
        if leaf_id is None:
            return
        text, ok = QInputDialog.getText(self, "Make grid", "Rows × columns (for example 2x3):", text="2x2")
        if not ok:
            return
        size = _parse_size(text)
        if size is None:
            QMessageBox.warning(self, "Make grid", f"“{text}” is not a size like 2x3 (1 to 12 each).")
            return
        self.mutate(lay.MakeGrid(leaf_id, *size))

    def set_grid_size(self, grid: lay.Grid) -> None:
        text, ok = QInputDialog.getText(
            self, "Grid size", "Rows × columns:", text=f"{len(grid.rows)}x{len(grid.cols)}"
        )
        size = _parse_size(text) if ok else None
        if size is not None:
            self.mutate(lay.SetGridSize(grid.id, *size))

    def merge(self, leaf_ids: tuple[str | None, ...], keep: str | None) -> None:
        ids = tuple(i for i in leaf_ids if i)
        if len(ids) > 1:
            self.mutate(lay.MergeLeaves(ids, keep))

    def merge_selection(self) -> None:
        keep = self.active_leaf if self.active_leaf in self.selection else None
        self.merge(tuple(self.selection), keep)
        self.selection.clear()

    # -- keyboard actions on the active cell --

    def act_on_active(self, action: str) -> None:
        leaf_id = self.active_leaf
        if leaf_id is None:
            return
        match action:
            case "split-right":
                self.split(leaf_id, lay.Direction.ROW, "after")
            case "split-down":
                self.split(leaf_id, lay.Direction.COLUMN, "after")
            case "close":
                self.close_cell(leaf_id)
            case "zoom":
                self.toggle_zoom(leaf_id)
            case "merge":
                self.merge_selection()
            case "equalize":
                self.mutate(lay.Equalize(None))

    def focus_neighbour(self, towards: str) -> None:
        if self.active_leaf is None:
            return
        other = lay.neighbour(self._document.active.root, self.active_leaf, towards)
        if other is not None:
            self.cell_activated(other, False)
            self._focus_later(other)

    def focus_active(self) -> None:
        if self.active_leaf:
            self._focus_later(self.active_leaf)

    def _focus_later(self, leaf_id: str) -> None:
        """Focus a cell's terminal once the core's change has been drawn."""

        def focus() -> None:
            cell = self.grid.cell(leaf_id)
            if cell is not None:
                self.cell_activated(leaf_id, False)
                cell.focus_terminal()

        QTimer.singleShot(50, self, focus)

    # -- helpers --

    def _leaf(self, leaf_id: str) -> lay.Leaf | None:
        try:
            return lay.find_leaf(self._document.active.root, leaf_id)
        except Exception:
            return None

    def _describe_leaf(self, leaf: lay.Leaf) -> str:
        session = self._sessions.get(leaf.session) if leaf.session else None
        if session is None:
            return f"Empty cell {self._reading_order(leaf.id) + 1}"
        return f"{session.label} (cell {self._reading_order(leaf.id) + 1})"


def _queue_status(snapshot: AgentQueueSnapshot) -> str | None:
    """One line for an agent cell's header: what it serves and what waits."""
    if not snapshot.tickets:
        return None
    head, waiting = snapshot.tickets[0], len(snapshot.tickets) - 1
    doing = f"serving {head.requester_label} (ticket {head.ticket_id[:8]})" if snapshot.busy else "task queued"
    return doing + (f" · {waiting} queued" if waiting > 0 else "")


def _parse_size(text: str) -> tuple[int, int] | None:
    parts = text.lower().replace("×", "x").replace(" ", "").split("x")
    if len(parts) != 2 or not all(p.isdigit() for p in parts):
        return None
    rows, cols = int(parts[0]), int(parts[1])
    return (rows, cols) if 1 <= rows <= 12 and 1 <= cols <= 12 else None
