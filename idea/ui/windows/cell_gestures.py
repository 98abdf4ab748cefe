"""What the person does to the cells of a project tab — split, close, zoom, restart, resize, swap, merge,
turn into a grid, open a shell, launch, attach or move here an agent — each one use case of the project
runtime (the agents' through its placement service), with a question first where the gesture could lose
something. What a cell offers on the agent it shows is the Agents panel's (`ui/agents/agent_cell_menu.py`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Protocol

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QInputDialog, QMessageBox, QWidget

from idea.application.agents.placement_rules import InCell
from idea.application.projects import ProjectRuntime
from idea.domain import layout as lay
from idea.domain.ids import AgentId, SessionId
from idea.domain.session import SessionInfo, SessionKind
from idea.ui.core_client import CoreClient
from idea.ui.foreground import program_in_front
from idea.ui.windows.grid_size_dialog import GridSizeDialog


class TabView(Protocol):
    """What the gestures read of the tab they act on, and how they give its terminal the focus."""

    @property
    def document(self) -> lay.LayoutDocument: ...

    @property
    def sessions(self) -> Mapping[SessionId, SessionInfo]: ...

    active_leaf: str | None
    selection: set[str]

    def leaf(self, leaf_id: str) -> lay.Leaf | None: ...

    def focus_later(self, leaf_id: str) -> None:
        """Focus the cell's terminal once the core's change has been drawn."""
        ...


class CellGestures:
    def __init__(self, runtime: ProjectRuntime, client: CoreClient, tab: TabView, widget: QWidget) -> None:
        self._runtime = runtime
        self._client = client
        self._tab = tab
        self._widget = widget  # parent of the questions
        self.grid_dialog: GridSizeDialog | None = None  # the last one opened (tests answer it)

    # -- cells --

    def mutate(self, op: lay.LayoutOp) -> None:
        self._client.call(self._runtime.mutate(op))

    def split(self, leaf_id: str, direction: lay.Direction, position: str) -> None:
        self._client.call(self._runtime.split(leaf_id, direction, position), on_done=self._tab.focus_later)

    def toggle_zoom(self, leaf_id: str) -> None:
        self.mutate(lay.ToggleZoom(leaf_id))
        self._tab.focus_later(leaf_id)

    def start_shell(self, leaf_id: str) -> None:
        self._client.call(self._runtime.start_shell(leaf_id), on_done=lambda _info: self._tab.focus_later(leaf_id))

    def restart(self, leaf_id: str) -> None:
        self._client.call(self._runtime.restart(leaf_id), on_done=lambda _info: self._tab.focus_later(leaf_id))

    def resize_split(self, split_id: str, weights: list[float]) -> None:
        self.mutate(lay.ResizeSplit(split_id, tuple(weights)))

    def resize_grid(self, grid_id: str, rows: list[float], cols: list[float]) -> None:
        self.mutate(lay.ResizeGrid(grid_id, tuple(rows), tuple(cols)))

    def swap_cells(self, source: str, destination: str) -> None:
        self.mutate(lay.MoveContent(source, destination))

    def move_here(self, source: str, destination: str) -> None:
        """What `source` shows moves into the empty cell `destination` (a swap with an empty cell), which gets
        the focus."""
        self._client.call(self._runtime.mutate(lay.MoveContent(source, destination)),
                          on_done=lambda _result: self._tab.focus_later(destination))

    def close_cell(self, leaf_id: str) -> None:
        leaf = self._tab.leaf(leaf_id)
        if leaf is None:
            return
        session = self._tab.sessions.get(leaf.session) if leaf.session else None
        stop = True
        if session is not None and session.is_live:
            choice = ask_close(self._widget, self._runtime, session)
            if choice is None:
                return
            stop = choice
        self._client.call(self._runtime.close_cell(leaf_id, stop_session=stop))

    def deliver_now(self, ticket_id: str) -> None:
        self._client.call(self._runtime.requests.deliver_now(ticket_id))

    # -- what runs in a cell --

    def launch_agent(self, agent_id: AgentId, leaf_id: str) -> None:
        self._client.call(self._runtime.placement.launch(agent_id, InCell(leaf_id)),
                          on_done=lambda _live: self._tab.focus_later(leaf_id))

    def attach_agent(self, agent_id: AgentId, leaf_id: str) -> None:
        self._client.call(self._runtime.placement.attach(agent_id, InCell(leaf_id)),
                          on_done=lambda _live: self._tab.focus_later(leaf_id))

    def attach_session(self, leaf_id: str, session_id: SessionId) -> None:
        self._client.call(self._runtime.attach(leaf_id, session_id))

    def stop_process(self, session_id: SessionId) -> None:
        self._client.call(self._runtime.stop_session(session_id))

    # -- spreadsheet operations with a question first --

    def set_count(self, leaf_id: str, direction: lay.Direction) -> None:
        parent = lay.parent_of(self._tab.document.active.root, leaf_id)
        container = parent.id if isinstance(parent, lay.Split) and parent.direction is direction else leaf_id
        current = len(parent.children) if container != leaf_id and isinstance(parent, lay.Split) else 1
        what = "columns in this row" if direction is lay.Direction.ROW else "rows in this column"
        count, ok = QInputDialog.getInt(self._widget, "Set count", f"Number of {what}:", current, 1, lay.MAX_COUNT)
        if ok:
            self.mutate(lay.SetCount(container, direction, count))

    def make_grid(self, leaf_id: str | None) -> None:
        if leaf_id is None:
            return
        explanation = "The cell becomes a grid of empty cells; what it shows now goes to the first."
        self._ask_grid_size(
            "Make grid", explanation, (2, 2), True, lambda rows, cols: lay.MakeGrid(leaf_id, rows, cols)
        )

    def set_grid_size(self, grid: lay.Grid) -> None:
        explanation = "Rows and columns added are empty; only empty ones at the end can be taken away."
        self._ask_grid_size(
            "Grid size", explanation, (len(grid.rows), len(grid.cols)), False,
            lambda rows, cols: lay.SetGridSize(grid.id, rows, cols),
        )

    def _ask_grid_size(
        self, title: str, explanation: str, size: tuple[int, int], first_keeps: bool,
        operation: Callable[[int, int], lay.LayoutOp],
    ) -> None:
        dialog = GridSizeDialog(title, explanation, size, first_keeps, self._widget)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.chosen.connect(lambda rows, cols: self.mutate(operation(rows, cols)))
        self.grid_dialog = dialog
        dialog.open()

    def merge(self, leaf_ids: tuple[str | None, ...], keep: str | None) -> None:
        ids = tuple(i for i in leaf_ids if i)
        if len(ids) > 1:
            self.mutate(lay.MergeLeaves(ids, keep))

    def merge_selection(self) -> None:
        keep = self._tab.active_leaf if self._tab.active_leaf in self._tab.selection else None
        self.merge(tuple(self._tab.selection), keep)
        self._tab.selection.clear()

    # -- keyboard actions on the active cell --

    def act_on_active(self, action: str) -> None:
        leaf_id = self._tab.active_leaf
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


def ask_close(parent: QWidget, runtime: ProjectRuntime, session: SessionInfo) -> bool | None:
    """Closing a cell whose program runs. True: stop the process; False: keep it in the background; None:
    keep the cell. An idle shell is simply stopped."""
    program = program_in_front(runtime, session.id)
    if session.kind is SessionKind.SHELL and program is None:
        return True
    box = QMessageBox(parent)
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
        box.setInformativeText("Stop it, or keep it running in the background (you can attach it to a cell later)?")
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
