"""The structural rules of a layout tree (spec 01 §4): unique node ids, an agent pinned to one cell and a
session shown by one cell at most, splits of two children or more with positive weights, grids whose cells
tile every slot exactly once. Shared by the codec (what a file may hold) and the operations (what they may
produce).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from typing import Any

from idea.domain.layout.tree import Direction, Grid, GridCell, InvalidLayoutError, Leaf, Node, Split, UnknownNode
from idea.domain.wording import counted


def validate(root: Node) -> None:
    """Raise InvalidLayoutError (path from "root") unless the tree keeps every invariant of spec 01 §4."""
    _Validator().check(root, "root")


class _Validator:
    def __init__(self) -> None:
        self._node_ids: set[str] = set()
        self._agents: set[str] = set()
        self._sessions: set[str] = set()

    def check(self, node: Node, path: str) -> None:
        if not isinstance(node, Leaf | Split | Grid | UnknownNode):
            raise InvalidLayoutError(path, f"not a layout node: {type(node).__name__}")
        if not isinstance(node.id, str) or not node.id:
            raise InvalidLayoutError(f"{path}.node.id", "node id must be a non-empty string")
        if node.id in self._node_ids:
            raise InvalidLayoutError(path, f"duplicate node id {node.id}")
        self._node_ids.add(node.id)
        match node:
            case Leaf():
                self._check_leaf(node, f"{path}.node")
            case Split():
                if node.direction not in (Direction.ROW, Direction.COLUMN):
                    raise InvalidLayoutError(f"{path}.node.direction", 'must be "row" or "column"')
                if len(node.children) < 2:
                    raise InvalidLayoutError(path, f"split {node.id} has fewer than two children")
                for index, child in enumerate(node.children):
                    child_path = f"{path}.node.children[{index}]"
                    if not is_valid_weight(child.weight):
                        raise InvalidLayoutError(f"{child_path}.weight", "must be a finite number greater than 0")
                    self.check(child.node, f"{child_path}.node")
            case Grid():
                for key, weights in (("rows", node.rows), ("cols", node.cols)):
                    if not all(is_valid_weight(weight) for weight in weights):
                        raise InvalidLayoutError(f"{path}.node.{key}", "weights must be finite and greater than 0")
                check_tiling(len(node.rows), len(node.cols), node.cells, f"{path}.node")
                if len(node.cells) < 2:
                    raise InvalidLayoutError(path, f"grid {node.id} has a single cell")
                for index, cell in enumerate(node.cells):
                    self.check(cell.node, f"{path}.node.cells[{index}].node")

    def _check_leaf(self, leaf: Leaf, path: str) -> None:
        if leaf.agent is not None:
            if leaf.agent in self._agents:
                raise InvalidLayoutError(f"{path}.agent", f"agent {leaf.agent} is pinned to two cells")
            self._agents.add(leaf.agent)
        if leaf.session is not None:
            if leaf.session in self._sessions:
                raise InvalidLayoutError(f"{path}.session", f"session {leaf.session} is shown by two cells")
            self._sessions.add(leaf.session)


def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def is_valid_weight(value: Any) -> bool:
    if not is_number(value):
        return False
    try:
        return math.isfinite(value) and value > 0
    except OverflowError:  # an integer too large for a float
        return False


def check_tiling(row_count: int, col_count: int, cells: Iterable[GridCell], path: str) -> None:
    """Raise unless the cells cover every (row, col) slot of the grid exactly once."""
    if row_count < 1 or col_count < 1:
        raise InvalidLayoutError(path, "a grid needs at least one row and one column")
    owners: dict[tuple[int, int], int] = {}
    for index, cell in enumerate(cells):
        cell_path = f"{path}.cells[{index}]"
        if cell.row < 0 or cell.col < 0:
            raise InvalidLayoutError(cell_path, "row and col must be 0 or more")
        if cell.row_span < 1 or cell.col_span < 1:
            raise InvalidLayoutError(cell_path, "rowSpan and colSpan must be 1 or more")
        if cell.row + cell.row_span > row_count or cell.col + cell.col_span > col_count:
            raise InvalidLayoutError(cell_path, f"reaches beyond the grid's {counted(row_count, 'row')} and {counted(col_count, 'column')}")
        for slot in slots(cell):
            if slot in owners:
                raise InvalidLayoutError(
                    cell_path, f"overlaps cells[{owners[slot]}] at row {slot[0]}, column {slot[1]}"
                )
            owners[slot] = index
    for row in range(row_count):
        for col in range(col_count):
            if (row, col) not in owners:
                raise InvalidLayoutError(path, f"no cell covers row {row}, column {col}")


def slots(cell: GridCell) -> Iterator[tuple[int, int]]:
    for row in range(cell.row, cell.row + cell.row_span):
        for col in range(cell.col, cell.col + cell.col_span):
            yield row, col
