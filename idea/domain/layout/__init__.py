"""The layout of a project tab: a recursive tree of splits, grids and cells (spec 01 §4–§6).

This package re-exports its public API, so callers write `from idea.domain import layout as lay` and
`lay.apply(...)`, `lay.Leaf`, … The modules, by what a reader looks for:

- `tree` — the tree model: `Leaf`, `Split`, `Grid`, `GridCell`, `UnknownNode`, `Layout`, `Direction`;
- `documents` — several named layouts (`LayoutDocument`): create, rename, duplicate, delete, switch;
- `codec` — the JSON codec of `layouts.json` (`decode_document`, `encode_document`);
- `queries` — find a node or leaf, which leaf shows a session or pins an agent, reading order, neighbours;
- `geometry` — the exact rectangle of every cell;
- `validation` — the structural rules every tree keeps (`validate`);
- `operations` — what a layout can be asked to do, as values with their JSON form (`op_from_json`);
- `applying` — `apply(layout, op, new_id)`: the new layout and the cells it displaced;
- `tree_edits` — the steps operations are made of (substitute a node, normalise a grid, …).
"""

from __future__ import annotations

from idea.domain.layout.applying import Applied, apply
from idea.domain.layout.codec import DecodedDocument, decode_document, encode_document
from idea.domain.layout.documents import (
    MAX_NAME_LENGTH,
    LayoutDocument,
    create_layout,
    default_document,
    delete_layout,
    duplicate_layout,
    rename_layout,
    replace_layout,
    set_active,
    without_agent,
)
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
    Position,
    ResizeGrid,
    ResizeSplit,
    SessionPolicy,
    SetAgentWasRunning,
    SetCount,
    SetGridSize,
    SetSession,
    SplitCell,
    ToggleZoom,
    UnmergeCell,
    op_from_json,
)
from idea.domain.layout.queries import (
    find_leaf,
    find_node,
    first_empty_leaf,
    iter_nodes,
    leaf_pinning_agent,
    leaf_rects,
    leaf_showing_session,
    leaves,
    neighbour,
    parent_of,
)
from idea.domain.layout.tree import (
    TERMINAL_KIND,
    Direction,
    Grid,
    GridCell,
    InvalidLayoutError,
    Layout,
    Leaf,
    Node,
    Split,
    UnknownNode,
    Weighted,
)
from idea.domain.layout.tree_edits import MAX_COUNT
from idea.domain.layout.validation import validate

__all__ = [
    "MAX_COUNT",
    "MAX_NAME_LENGTH",
    "TERMINAL_KIND",
    "Applied",
    "AssignAgent",
    "ClearCell",
    "CloseCell",
    "DecodedDocument",
    "Direction",
    "Equalize",
    "Grid",
    "GridCell",
    "InvalidLayoutError",
    "Layout",
    "LayoutDocument",
    "LayoutOp",
    "Leaf",
    "MakeGrid",
    "MergeCells",
    "MergeChildren",
    "MergeLeaves",
    "MoveContent",
    "Node",
    "Position",
    "ResizeGrid",
    "ResizeSplit",
    "SessionPolicy",
    "SetAgentWasRunning",
    "SetCount",
    "SetGridSize",
    "SetSession",
    "Split",
    "SplitCell",
    "ToggleZoom",
    "UnknownNode",
    "UnmergeCell",
    "Weighted",
    "apply",
    "create_layout",
    "decode_document",
    "default_document",
    "delete_layout",
    "duplicate_layout",
    "encode_document",
    "find_leaf",
    "find_node",
    "first_empty_leaf",
    "iter_nodes",
    "leaf_pinning_agent",
    "leaf_rects",
    "leaf_showing_session",
    "leaves",
    "neighbour",
    "op_from_json",
    "parent_of",
    "rename_layout",
    "replace_layout",
    "set_active",
    "validate",
    "without_agent",
]
