"""The menus of a cell: its context menu (split, count, grid, merge, swap, sizes, zoom, what runs in it — on
an agent, the window's Agents panel gestures —, copy/paste/find, close) and, for an empty cell, the agents to
launch, attach or move here and the background sessions to show."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Protocol

from PySide6.QtWidgets import QMenu

from idea.application.projects import ProjectRuntime
from idea.domain import layout as lay
from idea.domain.ids import AgentId, SessionId
from idea.domain.session import SessionInfo, SessionKind
from idea.ui.icons import icon
from idea.ui.windows.cell_gestures import CellGestures

if TYPE_CHECKING:
    from idea.ui.terminal.terminal_view import TerminalView


class AgentMenu(Protocol):
    """The Agents panel's gestures on the agent a cell shows (the panel of the window holding the tab)."""

    def fill_agent_menu(self, menu: QMenu, agent_id: AgentId, restart: Callable[[], None]) -> None: ...


class MenuView(Protocol):
    """What the menus read of the tab."""

    agent_menu: AgentMenu | None

    @property
    def document(self) -> lay.LayoutDocument: ...

    @property
    def sessions(self) -> Mapping[SessionId, SessionInfo]: ...

    selection: set[str]

    def leaf(self, leaf_id: str) -> lay.Leaf | None: ...

    def reading_order(self, leaf_id: str) -> int: ...

    def view_for(self, session_id: SessionId) -> TerminalView | None: ...


class CellMenus:
    def __init__(self, runtime: ProjectRuntime, tab: MenuView, gestures: CellGestures) -> None:
        self._runtime = runtime
        self._tab = tab
        self._do = gestures

    def fill_context_menu(self, leaf_id: str, menu: QMenu) -> None:
        leaf = self._tab.leaf(leaf_id)
        if leaf is None:
            return
        self._add_splits(leaf_id, menu)
        menu.addSeparator()
        self._add_shape(leaf_id, menu)
        menu.addSeparator()
        zoomed = self._tab.document.active.zoomed == leaf_id
        menu.addAction(icon("zoom"), ("Restore layout" if zoomed else "Zoom cell") + "\tCtrl+Shift+X",
                       lambda: self._do.toggle_zoom(leaf_id))
        menu.addSeparator()
        session = self._tab.sessions.get(leaf.session) if leaf.session else None
        if session is not None:
            self._add_running(leaf_id, session, menu)
            self._add_terminal(session, menu)
        else:
            self._add_empty(leaf_id, menu)
        menu.addSeparator()
        menu.addAction(icon("close"), "Close cell\tCtrl+Shift+W", lambda: self._do.close_cell(leaf_id))

    def fill_attach_menu(self, leaf_id: str, menu: QMenu) -> None:
        background = self._runtime.background_sessions()
        if not background:
            action = menu.addAction("No terminal is running in the background")
            action.setEnabled(False)
            return
        for session in background:
            label = session.title or session.label
            menu.addAction(label, lambda s=session.id: self._do.attach_session(leaf_id, s))

    def fill_launch_menu(self, leaf_id: str, menu: QMenu) -> None:
        """The project's agents, to run in this empty cell: launch a stopped one, attach a background one, move
        here one another cell shows."""
        manifest = self._runtime.agents.manifest()
        if not manifest.agents:
            menu.addAction("No agent yet: create one in the Agents panel").setEnabled(False)
            return
        root = self._tab.document.active.root
        for agent in manifest.agents:
            live = self._runtime.sessions.live_agent_session(agent.agent_id)
            if live is None:
                menu.addAction(f"Launch {agent.name}", lambda a=agent.agent_id: self._do.launch_agent(a, leaf_id))
                continue
            shown = lay.leaf_showing_session(root, live.id)
            if shown is None:
                menu.addAction(f"Attach {agent.name} (running in the background)",
                               lambda a=agent.agent_id: self._do.attach_agent(a, leaf_id))
            elif shown.id != leaf_id:
                menu.addAction(f"Move {agent.name} here (from cell {self._tab.reading_order(shown.id) + 1})",
                               lambda source=shown.id: self._do.move_here(source, leaf_id))

    # -- the parts of the context menu --

    def _add_splits(self, leaf_id: str, menu: QMenu) -> None:
        split = self._do.split
        menu.addAction(icon("split-right"), "Split right\tCtrl+Shift+E",
                       lambda: split(leaf_id, lay.Direction.ROW, "after"))
        menu.addAction("Split left", lambda: split(leaf_id, lay.Direction.ROW, "before"))
        menu.addAction(icon("split-down"), "Split down\tCtrl+Shift+O",
                       lambda: split(leaf_id, lay.Direction.COLUMN, "after"))
        menu.addAction("Split up", lambda: split(leaf_id, lay.Direction.COLUMN, "before"))

    def _add_shape(self, leaf_id: str, menu: QMenu) -> None:
        """Counts, grids, merges, swaps and sizes."""
        root = self._tab.document.active.root
        parent = lay.parent_of(root, leaf_id)
        add, do = menu.addAction, self._do
        add("Columns in this row…", lambda: do.set_count(leaf_id, lay.Direction.ROW))
        add("Rows in this column…", lambda: do.set_count(leaf_id, lay.Direction.COLUMN))
        add(icon("grid"), "Make grid…", lambda: do.make_grid(leaf_id))
        if isinstance(parent, lay.Grid):
            add("Grid size…", lambda: do.set_grid_size(parent))
            placed = next(c for c in parent.cells if c.node.id == leaf_id)
            if placed.row_span > 1 or placed.col_span > 1:
                add("Unmerge cell", lambda: do.mutate(lay.UnmergeCell(parent.id, placed.row, placed.col)))
        self._add_merges(leaf_id, root, menu.addMenu("Merge"))
        swap = menu.addMenu("Swap with")
        for other in lay.leaves(root):
            if other.id != leaf_id:
                swap.addAction(self._describe(other), lambda o=other.id: do.swap_cells(leaf_id, o))
        swap.setEnabled(len(lay.leaves(root)) > 1)
        if parent is not None:
            add("Equalize sizes here", lambda: do.mutate(lay.Equalize(parent.id)))
        add("Equalize all\tCtrl+Alt+=", lambda: do.mutate(lay.Equalize(None)))

    def _add_merges(self, leaf_id: str, root: lay.Node, merge: QMenu) -> None:
        for towards, label in (("right", "With the cell on the right"), ("down", "With the cell below"),
                               ("left", "With the cell on the left"), ("up", "With the cell above")):
            other = lay.neighbour(root, leaf_id, towards)
            action = merge.addAction(label, lambda o=other: self._do.merge((leaf_id, o), keep=leaf_id))
            action.setEnabled(other is not None)
        selection = self._tab.selection
        selected = merge.addAction(f"Selected cells ({len(selection)})\tCtrl+Shift+M", self._do.merge_selection)
        selected.setEnabled(len(selection) > 1)

    def _add_running(self, leaf_id: str, session: SessionInfo, menu: QMenu) -> None:
        """What can be done to what the cell runs: its agent (the Agents panel's gestures), or its program."""
        add, do = menu.addAction, self._do
        agent_menu = self._tab.agent_menu
        if session.kind is SessionKind.AGENT and session.agent_id and agent_menu is not None:
            agent_menu.fill_agent_menu(menu, session.agent_id, lambda: do.restart(leaf_id))
        else:
            add(icon("restart"), "Restart", lambda: do.restart(leaf_id))
            if session.kind is not SessionKind.AGENT:
                add("Stop process", lambda: do.stop_process(session.id)).setEnabled(session.is_live)

    def _add_terminal(self, session: SessionInfo, menu: QMenu) -> None:
        view = self._tab.view_for(session.id)
        if view is None:
            return
        menu.addSeparator()
        for text, act in (("Copy\tCtrl+Shift+C", view.copy), ("Paste\tCtrl+Shift+V", view.paste),
                          ("Find…\tCtrl+Shift+F", view.toggle_find)):
            menu.addAction(text, act)

    def _add_empty(self, leaf_id: str, menu: QMenu) -> None:
        menu.addAction("Open shell", lambda: self._do.start_shell(leaf_id))
        self.fill_launch_menu(leaf_id, menu.addMenu("Launch agent"))
        self.fill_attach_menu(leaf_id, menu.addMenu("Attach session"))

    def _describe(self, leaf: lay.Leaf) -> str:
        session = self._tab.sessions.get(leaf.session) if leaf.session else None
        number = self._tab.reading_order(leaf.id) + 1
        return f"Empty cell {number}" if session is None else f"{session.label} (cell {number})"

