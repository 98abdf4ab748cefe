"""Applying an operation to a layout (spec 01 §6): `apply` returns the new layout and the cells whose
session or agent it displaced, one function per operation. Nothing here stops a session: the caller sends
displaced sessions to the background. Refusals raise AppError with a message for the person.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from idea.domain.errors import AppError, ErrorCode, invalid
from idea.domain.layout.operations import (
    AssignAgent,
    ClearCell,
    CloseCell,
    Equalize,
    LayoutOp,
    MakeGrid,
    MergeCells,
    MergeChildren,
    MergeLeaves,
    MoveContent,
    ResizeGrid,
    ResizeSplit,
    SetAgentWasRunning,
    SetCount,
    SetGridSize,
    SetSession,
    SplitCell,
    ToggleZoom,
    UnmergeCell,
)
from idea.domain.layout.queries import (
    find_leaf,
    find_node,
    leaf_ids,
    leaf_pinning_agent,
    leaf_showing_session,
    leaves,
    leaves_in,
    node_kind,
    parent_of,
)
from idea.domain.layout.tree import Grid, GridCell, Layout, Leaf, Node, Split, Weighted
from idea.domain.layout.tree_edits import (
    cell_node,
    cells_in_rectangle,
    check_size,
    checked_weights,
    grid_node,
    is_vacant,
    kept_leaf,
    lowest_common_container,
    normalised,
    parse_direction,
    split_node,
    split_or_only_child,
    substitute,
    unused_id,
)
from idea.domain.layout.validation import slots, validate
from idea.domain.wording import counted


@dataclass(frozen=True)
class Applied:
    layout: Layout
    displaced: tuple[Leaf, ...]  # cells, as they were, whose session or agent the operation took off screen


def apply(layout: Layout, op: LayoutOp, new_id: Callable[[], str]) -> Applied:
    """The layout after `op`, and the cells whose session or agent it took off screen; refusals raise AppError."""
    root = layout.root
    match op:
        case ToggleZoom():
            find_leaf(root, op.target)
            return Applied(replace(layout, zoomed=None if layout.zoomed == op.target else op.target), ())
        case SplitCell():
            changed = _split_cell(root, op, new_id)
        case CloseCell():
            changed = _close_cell(root, op.target)
        case ResizeSplit():
            changed = _resize_split(root, op)
        case ResizeGrid():
            changed = _resize_grid(root, op)
        case SetCount():
            changed = _set_count(root, op, new_id)
        case MergeChildren():
            changed = _merge_children(root, op)
        case MergeLeaves():
            changed = _merge_leaves(root, op, new_id)
        case MergeCells():
            changed = _merge_cells(root, op, new_id)
        case UnmergeCell():
            changed = _unmerge_cell(root, op, new_id)
        case MakeGrid():
            changed = _make_grid(root, op, new_id)
        case SetGridSize():
            changed = _set_grid_size(root, op, new_id)
        case MoveContent():
            changed = _move_content(root, op)
        case AssignAgent():
            changed = _assign_agent(root, op)
        case SetSession():
            changed = _set_session(root, op)
        case SetAgentWasRunning():
            leaf = find_leaf(root, op.target)
            if op.value and leaf.agent is None:
                raise invalid(f"cell {leaf.id} has no agent", nodeId=leaf.id)
            changed = substitute(root, leaf.id, replace(leaf, agent_was_running=op.value))
        case ClearCell():
            leaf = find_leaf(root, op.target)
            changed = substitute(root, leaf.id, Leaf(leaf.id, extra=leaf.extra))
        case Equalize():
            changed = _equalize(root, op.container)
        case _:
            raise invalid(f"unknown layout operation {type(op).__name__}")
    validate(changed)
    zoomed = layout.zoomed if layout.zoomed in leaf_ids(changed) else None
    return Applied(replace(layout, root=changed, zoomed=zoomed), _displaced(root, changed))


def _displaced(before: Node, after: Node) -> tuple[Leaf, ...]:
    """Cells of `before` whose session or agent no longer appears anywhere in `after`."""
    remaining = leaves_in(after)
    sessions = {leaf.session for leaf in remaining}
    agents = {leaf.agent for leaf in remaining}

    def gone(leaf: Leaf) -> bool:
        return (leaf.session is not None and leaf.session not in sessions) or (
            leaf.agent is not None and leaf.agent not in agents
        )

    if not any(gone(leaf) for leaf in leaves_in(before)):
        return ()
    return tuple(leaf for leaf in leaves(before) if gone(leaf))


def _split_cell(root: Node, op: SplitCell, new_id: Callable[[], str]) -> Node:
    target = cell_node(root, op.target)
    direction = parse_direction(op.direction)
    if op.position not in ("before", "after"):
        raise invalid(f'position must be "before" or "after", got {op.position!r}')
    new_leaf = Leaf(unused_id(root, op.new_leaf_id) if op.new_leaf_id is not None else new_id())
    parent = parent_of(root, target.id)
    if isinstance(parent, Split) and parent.direction == direction:
        # Same direction: insert a sibling so the tree stays flat instead of nesting binary splits.
        children: list[Weighted] = []
        for child in parent.children:
            if child.node.id != target.id:
                children.append(child)
                continue
            pair = [replace(child, weight=child.weight / 2), Weighted(new_leaf, child.weight / 2)]
            children.extend(pair if op.position == "after" else reversed(pair))
        return substitute(root, parent.id, replace(parent, children=tuple(children)))
    pair = [Weighted(target, 1.0), Weighted(new_leaf, 1.0)]
    ordered = tuple(pair if op.position == "after" else reversed(pair))
    return substitute(root, target.id, Split(new_id(), direction, ordered))


def _close_cell(root: Node, target_id: str) -> Node:
    target = cell_node(root, target_id)
    vacated = Leaf(target.id, extra=target.extra) if isinstance(target, Leaf) else Leaf(target.id)
    match parent_of(root, target.id):
        case None:
            return vacated
        case Split() as split:
            remaining = tuple(child for child in split.children if child.node.id != target.id)
            return substitute(root, split.id, split_or_only_child(split, remaining))
        case Grid() as grid:
            return substitute(root, grid.id, _close_grid_cell(grid, target.id, vacated))


def _close_grid_cell(grid: Grid, target_id: str, vacated: Leaf) -> Node:
    closing = next(cell for cell in grid.cells if cell.node.id == target_id)
    others = tuple(cell for cell in grid.cells if cell is not closing)
    absorbed = _absorb(closing, others)
    if absorbed is None:
        cells = tuple(replace(cell, node=vacated) if cell is closing else cell for cell in grid.cells)
    else:
        neighbour_cell, grown = absorbed
        cells = tuple(grown if cell is neighbour_cell else cell for cell in others)
    return normalised(replace(grid, cells=cells))


def _absorb(closing: GridCell, others: tuple[GridCell, ...]) -> tuple[GridCell, GridCell] | None:
    """(neighbour, neighbour grown over `closing`) for the first of left, right, up, down whose edge matches."""

    def find(matches: Callable[[GridCell], bool]) -> GridCell | None:
        return next((cell for cell in others if matches(cell)), None)

    def same_rows(cell: GridCell) -> bool:
        return cell.row == closing.row and cell.row_span == closing.row_span

    def same_cols(cell: GridCell) -> bool:
        return cell.col == closing.col and cell.col_span == closing.col_span

    left = find(lambda cell: same_rows(cell) and cell.col + cell.col_span == closing.col)
    if left is not None:
        return left, replace(left, col_span=left.col_span + closing.col_span)
    right = find(lambda cell: same_rows(cell) and cell.col == closing.col + closing.col_span)
    if right is not None:
        return right, replace(right, col=closing.col, col_span=right.col_span + closing.col_span)
    up = find(lambda cell: same_cols(cell) and cell.row + cell.row_span == closing.row)
    if up is not None:
        return up, replace(up, row_span=up.row_span + closing.row_span)
    down = find(lambda cell: same_cols(cell) and cell.row == closing.row + closing.row_span)
    if down is not None:
        return down, replace(down, row=closing.row, row_span=down.row_span + closing.row_span)
    return None


def _resize_split(root: Node, op: ResizeSplit) -> Node:
    split = split_node(root, op.container)
    weights = checked_weights(op.weights, len(split.children), f"split {split.id} has {len(split.children)} children")
    children = tuple(replace(child, weight=weight) for child, weight in zip(split.children, weights, strict=True))
    return substitute(root, split.id, replace(split, children=children))


def _resize_grid(root: Node, op: ResizeGrid) -> Node:
    grid = grid_node(root, op.grid)
    if op.rows is None and op.cols is None:
        raise invalid("resizeGrid needs row weights, column weights or both")
    rows = (
        grid.rows
        if op.rows is None
        else checked_weights(op.rows, len(grid.rows), f"grid {grid.id} has {counted(len(grid.rows), 'row')}")
    )
    cols = (
        grid.cols
        if op.cols is None
        else checked_weights(op.cols, len(grid.cols), f"grid {grid.id} has {counted(len(grid.cols), 'column')}")
    )
    return substitute(root, grid.id, replace(grid, rows=rows, cols=cols))


def _set_count(root: Node, op: SetCount, new_id: Callable[[], str]) -> Node:
    check_size(op.count, "count")
    direction = parse_direction(op.direction)
    node = find_node(root, op.container)
    match node:
        case Grid():
            raise invalid(f"grid {node.id} is resized with setGridSize, not setCount", nodeId=node.id)
        case Split() if node.direction == direction:
            removed = node.children[op.count :]
            if not all(is_vacant(child.node) for child in removed):
                raise invalid("cannot remove occupied cells", nodeId=node.id)
            added = tuple(Weighted(Leaf(new_id()), 1.0) for _ in range(op.count - len(node.children)))
            kept = tuple(replace(child, weight=1.0) for child in node.children[: op.count])
            return substitute(root, node.id, split_or_only_child(node, kept + added))
        case _:
            if op.count == 1:
                return root
            split_id = new_id()
            added = tuple(Weighted(Leaf(new_id()), 1.0) for _ in range(op.count - 1))
            return substitute(root, node.id, Split(split_id, direction, (Weighted(node, 1.0), *added)))


def _merge_children(root: Node, op: MergeChildren) -> Node:
    split = split_node(root, op.container)
    count = len(split.children)
    if not 0 <= op.start <= op.end < count:
        raise invalid(f"children {op.start}..{op.end} are not a range of split {split.id}, which has {count}")
    if op.start == op.end:
        raise invalid("a merge needs at least two children")
    if not op.start <= op.keep <= op.end:
        raise invalid(f"keep index {op.keep} is outside the merged range {op.start}..{op.end}")
    merged = split.children[op.start : op.end + 1]
    kept = replace(split.children[op.keep], weight=sum(child.weight for child in merged))
    children = (*split.children[: op.start], kept, *split.children[op.end + 1 :])
    return substitute(root, split.id, split_or_only_child(split, children))


def _merge_leaves(root: Node, op: MergeLeaves, new_id: Callable[[], str]) -> Node:
    selected = {find_leaf(root, leaf_id).id for leaf_id in op.leaf_ids}
    if len(selected) < 2:
        raise invalid("select at least two cells to merge")
    not_a_rectangle = invalid("the selected cells do not form a rectangle")
    match lowest_common_container(root, selected):
        case Split() as split:
            touched = [index for index, child in enumerate(split.children) if leaf_ids(child.node) & selected]
            start, end = touched[0], touched[-1]
            covered = set().union(*(leaf_ids(child.node) for child in split.children[start : end + 1]))
            if covered != selected:
                raise not_a_rectangle
            keep = kept_leaf(root, selected, op.keep, "among the selected cells", new_id)
            keep_index = next(index for index, child in enumerate(split.children) if keep.id in leaf_ids(child.node))
            weight = sum(child.weight for child in split.children[start : end + 1])
            merged = replace(split.children[keep_index], node=keep, weight=weight)
            children = (*split.children[:start], merged, *split.children[end + 1 :])
            return substitute(root, split.id, split_or_only_child(split, children))
        case Grid() as grid:
            touched_cells = [cell for cell in grid.cells if leaf_ids(cell.node) & selected]
            top = min(cell.row for cell in touched_cells)
            left = min(cell.col for cell in touched_cells)
            bottom = max(cell.row + cell.row_span for cell in touched_cells)
            right = max(cell.col + cell.col_span for cell in touched_cells)
            inside = cells_in_rectangle(grid, top, left, bottom - top, right - left)
            if inside is None or set().union(*(leaf_ids(cell.node) for cell in inside)) != selected:
                raise not_a_rectangle
            keep = kept_leaf(root, selected, op.keep, "among the selected cells", new_id)
            merged_grid = _merged_rectangle(grid, inside, keep, top, left, bottom - top, right - left)
            return substitute(root, grid.id, merged_grid)


def _merge_cells(root: Node, op: MergeCells, new_id: Callable[[], str]) -> Node:
    grid = grid_node(root, op.grid)
    rows, cols = len(grid.rows), len(grid.cols)
    if not (
        0 <= op.row
        and 0 <= op.col
        and op.row_span >= 1
        and op.col_span >= 1
        and op.row + op.row_span <= rows
        and op.col + op.col_span <= cols
    ):
        raise invalid(
            f"the rectangle at row {op.row}, column {op.col} spanning {op.row_span}x{op.col_span} "
            f"is outside grid {grid.id} ({rows} rows, {cols} columns)"
        )
    inside = cells_in_rectangle(grid, op.row, op.col, op.row_span, op.col_span)
    if inside is None:
        raise invalid("the rectangle cuts through a merged cell")
    if len(inside) == 1:
        raise invalid("the rectangle is already a single cell")
    candidates = set().union(*(leaf_ids(cell.node) for cell in inside))
    keep = kept_leaf(root, candidates, op.keep, "inside the merged rectangle", new_id)
    merged_grid = _merged_rectangle(grid, inside, keep, op.row, op.col, op.row_span, op.col_span)
    return substitute(root, grid.id, merged_grid)


def _merged_rectangle(
    grid: Grid, inside: tuple[GridCell, ...], keep: Leaf, row: int, col: int, row_span: int, col_span: int
) -> Node:
    top_left = next(cell for cell in inside if (cell.row, cell.col) == (row, col))
    merged = GridCell(row, col, keep, row_span, col_span, top_left.extra)
    merged_ids = {cell.node.id for cell in inside}
    outside = tuple(cell for cell in grid.cells if cell.node.id not in merged_ids)
    return normalised(replace(grid, cells=(*outside, merged)))


def _unmerge_cell(root: Node, op: UnmergeCell, new_id: Callable[[], str]) -> Node:
    grid = grid_node(root, op.grid)
    cell = next((cell for cell in grid.cells if (op.row, op.col) in set(slots(cell))), None)
    if cell is None:
        raise invalid(f"row {op.row}, column {op.col} is outside grid {grid.id}")
    if cell.row_span == 1 and cell.col_span == 1:
        raise invalid(f"the cell at row {op.row}, column {op.col} of grid {grid.id} is not merged")
    pieces = [replace(cell, row_span=1, col_span=1)]
    pieces += [GridCell(row, col, Leaf(new_id())) for row, col in slots(cell) if (row, col) != (cell.row, cell.col)]
    others = tuple(other for other in grid.cells if other is not cell)
    return substitute(root, grid.id, normalised(replace(grid, cells=(*others, *pieces))))


def _make_grid(root: Node, op: MakeGrid, new_id: Callable[[], str]) -> Node:
    target = cell_node(root, op.target)
    check_size(op.rows, "rows")
    check_size(op.cols, "cols")
    grid_id = new_id()
    cells = tuple(
        GridCell(row, col, target if (row, col) == (0, 0) else Leaf(new_id()))
        for row in range(op.rows)
        for col in range(op.cols)
    )
    grid = Grid(grid_id, (1.0,) * op.rows, (1.0,) * op.cols, cells)
    return substitute(root, target.id, normalised(grid))


def _set_grid_size(root: Node, op: SetGridSize, new_id: Callable[[], str]) -> Node:
    grid = grid_node(root, op.grid)
    check_size(op.rows, "rows")
    check_size(op.cols, "cols")
    removed = [cell for cell in grid.cells if cell.row + cell.row_span > op.rows or cell.col + cell.col_span > op.cols]
    if not all(is_vacant(cell.node) for cell in removed):
        raise invalid("cannot remove occupied cells", nodeId=grid.id)
    if any(cell.row_span > 1 or cell.col_span > 1 for cell in removed):
        raise invalid("cannot remove rows or columns crossed by merged cells", nodeId=grid.id)
    old_rows, old_cols = len(grid.rows), len(grid.cols)
    removed_ids = {cell.node.id for cell in removed}
    kept = tuple(cell for cell in grid.cells if cell.node.id not in removed_ids)
    added = tuple(
        GridCell(row, col, Leaf(new_id()))
        for row in range(op.rows)
        for col in range(op.cols)
        if row >= old_rows or col >= old_cols
    )
    rows = grid.rows[: op.rows] + (1.0,) * (op.rows - old_rows)
    cols = grid.cols[: op.cols] + (1.0,) * (op.cols - old_cols)
    return substitute(root, grid.id, normalised(replace(grid, rows=rows, cols=cols, cells=kept + added)))


def _move_content(root: Node, op: MoveContent) -> Node:
    source, destination = find_leaf(root, op.source), find_leaf(root, op.destination)
    if source.id == destination.id:
        raise invalid("a cell cannot be moved onto itself", nodeId=source.id)
    swapped = substitute(root, source.id, _with_content_of(source, destination))
    return substitute(swapped, destination.id, _with_content_of(destination, source))


def _with_content_of(leaf: Leaf, other: Leaf) -> Leaf:
    return replace(
        leaf,
        session=other.session,
        agent=other.agent,
        conversation_id=other.conversation_id,
        agent_was_running=other.agent_was_running,
    )


def _assign_agent(root: Node, op: AssignAgent) -> Node:
    leaf = find_leaf(root, op.target)
    holder = leaf_pinning_agent(root, op.agent)
    if holder is not None and holder.id != leaf.id:
        raise AppError(
            ErrorCode.AGENT_ALREADY_RUNNING,
            f"agent {op.agent} is already in cell {holder.id}",
            data={"nodeId": holder.id},
        )
    if holder is None and not leaf.is_empty:
        raise invalid(f"cell {leaf.id} is not empty", nodeId=leaf.id)
    conversation_id = leaf.conversation_id if op.conversation_id is None else op.conversation_id
    return substitute(root, leaf.id, replace(leaf, agent=op.agent, conversation_id=conversation_id))


def _set_session(root: Node, op: SetSession) -> Node:
    leaf = find_leaf(root, op.target)
    shown_elsewhere = None if op.session is None else leaf_showing_session(root, op.session)
    if shown_elsewhere is not None and shown_elsewhere.id != leaf.id:
        # A session is displayed by one cell at most: binding it here takes it from the other cell.
        root = substitute(root, shown_elsewhere.id, replace(shown_elsewhere, session=None))
    return substitute(root, leaf.id, replace(leaf, session=op.session))


def _equalize(root: Node, container_id: str | None) -> Node:
    if container_id is None:
        return _equalized(root, whole_subtree=True)
    node = find_node(root, container_id)
    if not isinstance(node, Split | Grid):
        raise invalid(f"node {container_id} is a {node_kind(node)}, not a split or a grid", nodeId=container_id)
    return substitute(root, node.id, _equalized(node, whole_subtree=False))


def _equalized(node: Node, whole_subtree: bool) -> Node:
    def inner(child: Node) -> Node:
        return _equalized(child, whole_subtree) if whole_subtree else child

    match node:
        case Split():
            children = tuple(replace(child, node=inner(child.node), weight=1.0) for child in node.children)
            return replace(node, children=children)
        case Grid():
            cells = tuple(replace(cell, node=inner(cell.node)) for cell in node.cells)
            return replace(node, rows=(1.0,) * len(node.rows), cols=(1.0,) * len(node.cols), cells=cells)
        case _:
            return node
