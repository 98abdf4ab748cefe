"""Renders a layout tree: splits as splitters, grids as spreadsheets, leaves as cells.

Cells are kept across renders (one per leaf id), so a re-render only moves widgets around; terminals are
never rebuilt. Containers are rebuilt only when the tree's shape changed; a resize just moves separators.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QDragEnterEvent, QDragLeaveEvent, QDropEvent
from PySide6.QtWidgets import QFrame, QLabel, QSplitter, QVBoxLayout, QWidget

from idea.domain.ids import SessionId
from idea.domain.layout import (
    Direction,
    Grid,
    Layout,
    Leaf,
    Node,
    Split,
    UnknownNode,
    leaves,
)
from idea.domain.session import SessionInfo
from idea.ui.layout.cell import CELL_MIME, CellController, CellWidget, cell_drag
from idea.ui.layout.spreadsheet import Placement, SpreadsheetGrid

if TYPE_CHECKING:
    from idea.ui.terminal.terminal_view import TerminalView

SPLITTER_HANDLE = 4


class GridController(CellController, Protocol):
    def view_for(self, session_id: SessionId) -> TerminalView | None: ...
    def resize_split(self, split_id: str, weights: list[float]) -> None: ...
    def resize_grid(self, grid_id: str, rows: list[float], cols: list[float]) -> None: ...
    def swap_cells(self, source: str, destination: str) -> None: ...


def _shape(node: Node) -> tuple:
    """What must match for two trees to be drawn by the same containers (weights excluded)."""
    match node:
        case Leaf():
            return ("leaf", node.id)
        case Split():
            return ("split", node.id, node.direction, tuple(_shape(child.node) for child in node.children))
        case Grid():
            return (
                "grid",
                node.id,
                len(node.rows),
                len(node.cols),
                tuple((c.row, c.col, c.row_span, c.col_span, _shape(c.node)) for c in node.cells),
            )
        case UnknownNode():
            return ("unknown", node.id)
    raise TypeError(node)


class _DropOverlay(QFrame):
    """Covers a cell while another cell's header is dragged, so terminals do not swallow the drop."""

    def __init__(self, cell: CellWidget, on_drop: Callable[[str], None]) -> None:
        super().__init__(cell)
        self.setObjectName("DropOverlay")
        self.setAcceptDrops(True)
        self._leaf_id = cell.leaf_id
        self._on_drop = on_drop
        self.setGeometry(cell.rect())
        self.raise_()
        self.show()

    def _set_target(self, value: bool) -> None:
        self.setProperty("target", value)
        self.style().unpolish(self)
        self.style().polish(self)

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if event.mimeData().hasFormat(CELL_MIME):
            event.acceptProposedAction()
            self._set_target(True)

    def dragLeaveEvent(self, event: QDragLeaveEvent) -> None:
        self._set_target(False)

    def dropEvent(self, event: QDropEvent) -> None:
        self._set_target(False)
        event.acceptProposedAction()
        self._on_drop(self._leaf_id)


class GridView(QWidget):
    def __init__(self, controller: GridController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._controller = controller
        self._cells: dict[str, CellWidget] = {}
        self._shape: tuple | None = None
        self._root_widget: QWidget | None = None
        self._splitters: dict[str, QSplitter] = {}
        self._grids: dict[str, SpreadsheetGrid] = {}
        self._layout: Layout | None = None
        self._holder = QWidget(self)  # parent of the cells not shown (zoom), never visible
        self._holder.hide()
        box = QVBoxLayout(self)
        box.setContentsMargins(0, 0, 0, 0)
        box.setSpacing(0)
        self._box = box

    # -- queries --

    def cell(self, leaf_id: str) -> CellWidget | None:
        return self._cells.get(leaf_id)

    def cells(self) -> dict[str, CellWidget]:
        return dict(self._cells)

    def visible_cells(self) -> list[CellWidget]:
        if self._layout is None:
            return []
        if self._layout.zoomed and self._layout.zoomed in self._cells:
            return [self._cells[self._layout.zoomed]]
        return [self._cells[leaf.id] for leaf in leaves(self._layout.root) if leaf.id in self._cells]

    # -- rendering --

    def render(self, layout: Layout, sessions: Mapping[SessionId, SessionInfo]) -> None:
        self._layout = layout
        current = {leaf.id: leaf for leaf in leaves(layout.root)}
        for leaf_id in list(self._cells):
            if leaf_id not in current:
                cell = self._cells.pop(leaf_id)
                cell.release()
                cell.setParent(None)
                cell.deleteLater()
        wanted: dict[str, TerminalView | None] = {}
        for leaf_id, leaf in current.items():
            if leaf_id not in self._cells:
                self._cells[leaf_id] = CellWidget(leaf_id, self._controller, self._holder)
            wanted[leaf_id] = self._controller.view_for(leaf.session) if leaf.session else None
        # Give every terminal back before any cell borrows one, so a swap never has two owners.
        for leaf_id, cell in self._cells.items():
            if cell.view is not None and cell.view is not wanted[leaf_id]:
                cell.release()
        for leaf_id, leaf in current.items():
            session = sessions.get(leaf.session) if leaf.session else None
            self._cells[leaf_id].show_content(leaf, session, wanted[leaf_id])

        shape = (_shape(layout.root), layout.zoomed)
        if shape != self._shape:
            self._rebuild(layout)
            self._shape = shape
        else:
            self._apply_weights(layout.root)

    def _rebuild(self, layout: Layout) -> None:
        for cell in self._cells.values():
            cell.setParent(self._holder)
        old = self._root_widget
        if old is not None and not isinstance(old, CellWidget):
            self._box.removeWidget(old)
            old.setParent(None)
            old.deleteLater()
        elif old is not None:
            self._box.removeWidget(old)
        self._splitters.clear()
        self._grids.clear()
        if layout.zoomed and layout.zoomed in self._cells:
            root = self._cells[layout.zoomed]
        else:
            root = self._build(layout.root)
        self._root_widget = root
        self._box.addWidget(root)
        root.show()
        QTimer.singleShot(0, self, lambda: self._apply_weights(layout.root))

    def _build(self, node: Node) -> QWidget:
        match node:
            case Leaf():
                cell = self._cells[node.id]
                cell.show()
                return cell
            case Split():
                orientation = (
                    Qt.Orientation.Horizontal if node.direction is Direction.ROW else Qt.Orientation.Vertical
                )
                splitter = QSplitter(orientation)
                splitter.setChildrenCollapsible(False)
                splitter.setOpaqueResize(False)  # one PTY resize when the drag ends, not dozens
                splitter.setHandleWidth(SPLITTER_HANDLE)
                for child in node.children:
                    splitter.addWidget(self._build(child.node))
                split_id = node.id
                splitter.splitterMoved.connect(lambda _pos, _index: self._split_moved(split_id))
                self._splitters[node.id] = splitter
                return splitter
            case Grid():
                grid = SpreadsheetGrid()
                placements = [
                    Placement(c.row, c.col, c.row_span, c.col_span, self._build(c.node)) for c in node.cells
                ]
                grid.set_structure(node.rows, node.cols, placements)
                grid_id = node.id
                grid.resized.connect(lambda rows, cols: self._controller.resize_grid(grid_id, rows, cols))
                self._grids[node.id] = grid
                return grid
            case UnknownNode():
                label = QLabel("This cell was created by a newer version of IdeA.")
                label.setObjectName("Placeholder")
                label.setAlignment(Qt.AlignmentFlag.AlignCenter)
                return label
        raise TypeError(node)

    def _apply_weights(self, node: Node) -> None:
        match node:
            case Split():
                splitter = self._splitters.get(node.id)
                if splitter is not None:
                    weights = [child.weight for child in node.children]
                    if _weights_of(splitter) != _normalised(weights):
                        extent = _extent(splitter)
                        total = sum(weights)
                        splitter.setSizes([max(1, round(extent * w / total)) for w in weights])
                for child in node.children:
                    self._apply_weights(child.node)
            case Grid():
                grid = self._grids.get(node.id)
                if grid is not None and grid.weights != (list(node.rows), list(node.cols)):
                    grid.set_weights(node.rows, node.cols)
                for cell in node.cells:
                    self._apply_weights(cell.node)

    def _split_moved(self, split_id: str) -> None:
        splitter = self._splitters.get(split_id)
        if splitter is not None:
            self._controller.resize_split(split_id, _weights_of(splitter))

    # -- swapping cells by dragging a header --

    def drag_cell(self, source: str) -> None:
        """Run the drag of `source`'s header; dropping on another cell swaps their contents."""
        source_cell = self._cells.get(source)
        if source_cell is None:
            return
        dropped: list[str] = []
        overlays = [
            _DropOverlay(cell, dropped.append) for cell in self.visible_cells() if cell.leaf_id != source
        ]
        try:
            cell_drag(source_cell.header, source).exec(Qt.DropAction.MoveAction)
        finally:
            for overlay in overlays:
                overlay.deleteLater()
        if dropped:
            self._controller.swap_cells(source, dropped[0])


def _extent(splitter: QSplitter) -> int:
    size = splitter.width() if splitter.orientation() == Qt.Orientation.Horizontal else splitter.height()
    return size if size > 0 else 1000


def _normalised(weights: list[float]) -> list[float]:
    total = sum(weights) or 1.0
    return [round(w / total, 4) for w in weights]


def _weights_of(splitter: QSplitter) -> list[float]:
    sizes = splitter.sizes()
    total = sum(sizes) or 1
    return [round(size / total, 4) for size in sizes]
