"""Editing an immutable layout tree, the steps every operation is made of: substitute a node, keep a split
of two or more, normalise a grid, find the cells inside a rectangle or the common container of leaves,
choose the cell a merge keeps, and the checked lookups and arguments that refuse with a clear message.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from itertools import pairwise

from idea.domain.errors import invalid
from idea.domain.layout.queries import children, find_node, iter_nodes, leaves, node_kind
from idea.domain.layout.tree import Direction, Grid, GridCell, Leaf, Node, Split, UnknownNode, Weighted
from idea.domain.layout.validation import is_int, is_valid_weight

MAX_COUNT = 12  # cells per setCount, rows and columns per grid


def substitute(root: Node, node_id: str, replacement: Node) -> Node:
    """The tree with node `node_id` replaced; a split child keeps its weight, a grid cell its place."""
    match root:
        case _ if root.id == node_id:
            return replacement
        case Split():
            children = tuple(
                replace(child, node=substitute(child.node, node_id, replacement)) for child in root.children
            )
            return replace(root, children=children)
        case Grid():
            cells = tuple(replace(cell, node=substitute(cell.node, node_id, replacement)) for cell in root.cells)
            return replace(root, cells=cells)
        case _:
            return root


def split_or_only_child(split: Split, children: tuple[Weighted, ...]) -> Node:
    """A split keeps two children or more; a lone child takes the split's place (and, in a parent, its weight)."""
    return children[0].node if len(children) == 1 else replace(split, children=children)


def normalised(grid: Grid) -> Node:
    """Drop grid lines no cell boundary uses (their weights add up); a one-cell grid becomes its cell's node."""
    row_edges = sorted({edge for cell in grid.cells for edge in (cell.row, cell.row + cell.row_span)})
    col_edges = sorted({edge for cell in grid.cells for edge in (cell.col, cell.col + cell.col_span)})
    row_at = {edge: index for index, edge in enumerate(row_edges)}
    col_at = {edge: index for index, edge in enumerate(col_edges)}
    cells = sorted(
        (
            replace(
                cell,
                row=row_at[cell.row],
                col=col_at[cell.col],
                row_span=row_at[cell.row + cell.row_span] - row_at[cell.row],
                col_span=col_at[cell.col + cell.col_span] - col_at[cell.col],
            )
            for cell in grid.cells
        ),
        key=lambda cell: (cell.row, cell.col),
    )
    if len(cells) == 1:
        return cells[0].node
    rows = tuple(sum(grid.rows[start:end]) for start, end in pairwise(row_edges))
    cols = tuple(sum(grid.cols[start:end]) for start, end in pairwise(col_edges))
    return replace(grid, rows=rows, cols=cols, cells=tuple(cells))


def cells_in_rectangle(grid: Grid, row: int, col: int, row_span: int, col_span: int) -> tuple[GridCell, ...] | None:
    """The cells inside the rectangle, or None when a cell straddles its border."""
    inside = []
    for cell in grid.cells:
        overlaps = (
            cell.row < row + row_span
            and row < cell.row + cell.row_span
            and cell.col < col + col_span
            and col < cell.col + cell.col_span
        )
        if not overlaps:
            continue
        within = (
            row <= cell.row
            and cell.row + cell.row_span <= row + row_span
            and col <= cell.col
            and cell.col + cell.col_span <= col + col_span
        )
        if not within:
            return None
        inside.append(cell)
    return tuple(inside)


def lowest_common_container(root: Node, leaf_ids: set[str]) -> Split | Grid:
    """The deepest container holding all of two or more distinct leaves."""
    paths = [_ancestry(root, leaf_id) for leaf_id in leaf_ids]
    common = root
    for level in zip(*paths, strict=False):
        if any(node.id != level[0].id for node in level):
            break
        common = level[0]
    assert isinstance(common, Split | Grid)  # distinct leaves part ways below a container
    return common


def _ancestry(root: Node, node_id: str) -> list[Node]:
    """The nodes from the root down to `node_id`, both included; empty when absent."""
    if root.id == node_id:
        return [root]
    for child in children(root):
        below = _ancestry(child, node_id)
        if below:
            return [root, *below]
    return []


def kept_leaf(root: Node, candidates: set[str], keep: str | None, where: str, new_id: Callable[[], str]) -> Leaf:
    """`keep`, or by default the first occupied candidate in reading order, else the first candidate."""
    ordered = [leaf for leaf in leaves(root) if leaf.id in candidates]
    if keep is not None:
        chosen = next((leaf for leaf in ordered if leaf.id == keep), None)
        if chosen is None:
            raise invalid(f"cell {keep} is not {where}", nodeId=keep)
        return chosen
    if not ordered:  # only cells of unknown types: the merged cell starts empty
        return Leaf(new_id())
    return next((leaf for leaf in ordered if not leaf.is_empty), ordered[0])


def is_vacant(node: Node) -> bool:
    """Nothing the user could lose: no session, no agent, no node of an unknown type."""
    return all(
        not isinstance(each, UnknownNode) and not (isinstance(each, Leaf) and not each.is_empty)
        for each in iter_nodes(node)
    )


def cell_node(root: Node, node_id: str) -> Leaf | UnknownNode:
    node = find_node(root, node_id)
    if not isinstance(node, Leaf | UnknownNode):
        raise invalid(f"node {node_id} is a {node_kind(node)}, not a cell", nodeId=node_id)
    return node


def split_node(root: Node, node_id: str) -> Split:
    node = find_node(root, node_id)
    if not isinstance(node, Split):
        raise invalid(f"node {node_id} is a {node_kind(node)}, not a split", nodeId=node_id)
    return node


def grid_node(root: Node, node_id: str) -> Grid:
    node = find_node(root, node_id)
    if not isinstance(node, Grid):
        raise invalid(f"node {node_id} is a {node_kind(node)}, not a grid", nodeId=node_id)
    return node


def unused_id(root: Node, node_id: str) -> str:
    if any(node.id == node_id for node in iter_nodes(root)):
        raise invalid(f"node id {node_id} is already used in this layout", nodeId=node_id)
    return node_id


def parse_direction(value: str) -> Direction:
    try:
        return Direction(value)
    except ValueError:
        raise invalid(f'direction must be "row" or "column", got {value!r}') from None


def check_size(value: int, what: str) -> None:
    if not is_int(value) or not 1 <= value <= MAX_COUNT:
        raise invalid(f"{what} must be between 1 and {MAX_COUNT}, got {value!r}")


def checked_weights(weights: tuple[float, ...], expected: int, what: str) -> tuple[float, ...]:
    if len(weights) != expected:
        raise invalid(f"{what} but {len(weights)} weights were given")
    if not all(is_valid_weight(weight) for weight in weights):
        raise invalid("weights must be finite numbers greater than 0")
    return tuple(float(weight) for weight in weights)
