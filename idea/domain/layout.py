"""The layout of a project tab: a recursive tree of splits, grids and cells (spec 01 §4–§6).

The tree is immutable. `decode_document` / `encode_document` read and write `layouts.json` (unknown keys and
node types survive a round trip), the queries answer questions about a tree, and `apply` turns a layout and an
operation from `idea.domain.layout_ops` into a new layout plus the cells whose content it displaced. Nothing
here stops a session: the caller sends displaced sessions to the background.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from fractions import Fraction
from itertools import pairwise
from types import MappingProxyType
from typing import Any, Literal

from idea.domain.errors import AppError, ErrorCode, invalid, not_found
from idea.domain.layout_ops import (
    AssignAgent,
    ClearCell,
    CloseCell,
    Direction,
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
]

TERMINAL_KIND = "terminal"
MAX_COUNT = 12  # cells per setCount, rows and columns per grid
MAX_NAME_LENGTH = 64

_NO_EXTRA: Mapping[str, Any] = MappingProxyType({})


def _no_extra() -> Mapping[str, Any]:
    return _NO_EXTRA


# --------------------------------------------------------------------------------------------------- model


@dataclass(frozen=True)
class Leaf:
    """A cell: empty, or showing a live session and/or pinning an agent."""

    id: str
    session: str | None = None
    agent: str | None = None
    conversation_id: str | None = None
    agent_was_running: bool = False
    extra: Mapping[str, Any] = field(default_factory=_no_extra, hash=False)  # unknown JSON keys, kept

    @property
    def is_empty(self) -> bool:
        return self.agent is None and self.session is None


@dataclass(frozen=True)
class Weighted:
    node: Node
    weight: float  # relative: the child's share is weight / sum of its siblings' weights
    extra: Mapping[str, Any] = field(default_factory=_no_extra, hash=False)


@dataclass(frozen=True)
class Split:
    id: str
    direction: Direction
    children: tuple[Weighted, ...]
    extra: Mapping[str, Any] = field(default_factory=_no_extra, hash=False)


@dataclass(frozen=True)
class GridCell:
    row: int
    col: int
    node: Node
    row_span: int = 1
    col_span: int = 1
    extra: Mapping[str, Any] = field(default_factory=_no_extra, hash=False)


@dataclass(frozen=True)
class Grid:
    """Spreadsheet container: separators stay aligned across the grid; cells may span rectangles."""

    id: str
    rows: tuple[float, ...]
    cols: tuple[float, ...]
    cells: tuple[GridCell, ...]
    extra: Mapping[str, Any] = field(default_factory=_no_extra, hash=False)


@dataclass(frozen=True)
class UnknownNode:
    """A node of a type this version does not know: shown as an empty cell, written back verbatim."""

    id: str
    raw: Mapping[str, Any] = field(hash=False)  # the whole `{"type": ..., "node": ...}` object


Node = Leaf | Split | Grid | UnknownNode


@dataclass(frozen=True)
class Layout:
    id: str
    name: str
    root: Node
    kind: str = TERMINAL_KIND
    zoomed: str | None = None  # a leaf shown alone; view state, never saved
    tree_extra: Mapping[str, Any] = field(default_factory=_no_extra, hash=False)
    extra: Mapping[str, Any] = field(default_factory=_no_extra, hash=False)


@dataclass(frozen=True)
class LayoutDocument:
    active_id: str
    layouts: tuple[Layout, ...]
    version: int = 1
    extra: Mapping[str, Any] = field(default_factory=_no_extra, hash=False)

    @property
    def active(self) -> Layout:
        return self.layout(self.active_id)

    def layout(self, layout_id: str) -> Layout:
        for layout in self.layouts:
            if layout.id == layout_id:
                return layout
        raise not_found(f"layout {layout_id} not found", layoutId=layout_id)


class InvalidLayoutError(AppError):
    """A layout breaks a structural rule; the message starts with the JSON path of the problem."""

    def __init__(self, path: str, problem: str) -> None:
        super().__init__(ErrorCode.INVALID, f"{path}: {problem}" if path else problem, data={"path": path})
        self.path = path
        self.problem = problem


@dataclass(frozen=True)
class DecodedDocument:
    document: LayoutDocument
    repairs: tuple[str, ...]  # one sentence per benign problem fixed while loading


@dataclass(frozen=True)
class Applied:
    layout: Layout
    displaced: tuple[Leaf, ...]  # cells, as they were, whose session or agent the operation took off screen


def default_document(layout_id: str, leaf_id: str, name: str = "Default") -> LayoutDocument:
    return LayoutDocument(active_id=layout_id, layouts=(Layout(layout_id, name, Leaf(leaf_id)),))


# --------------------------------------------------------------------------------------------------- codec

_DOCUMENT_KEYS = ("version", "activeId", "layouts")
_LAYOUT_KEYS = ("id", "name", "kind", "tree")
_TREE_KEYS = ("root",)
_WRAPPER_KEYS = ("type", "node")
_LEAF_KEYS = ("id", "session", "agent", "agentWasRunning", "conversationId")
_SPLIT_KEYS = ("id", "direction", "children")
_WEIGHTED_KEYS = ("node", "weight")
_GRID_KEYS = ("id", "rows", "cols", "cells")
_CELL_KEYS = ("row", "col", "rowSpan", "colSpan", "node")


def decode_document(data: Any) -> DecodedDocument:
    """Read a parsed `layouts.json`; benign problems are repaired and listed, structural ones raise."""
    repairs: list[str] = []
    document = _decode_document(data, repairs)
    return DecodedDocument(document, tuple(repairs))


def encode_document(document: LayoutDocument) -> dict[str, Any]:
    data = {
        "version": document.version,
        "activeId": document.active_id,
        "layouts": [_encode_layout(layout) for layout in document.layouts],
    }
    return _with_extra(data, document.extra)


def _decode_document(data: Any, repairs: list[str]) -> LayoutDocument:
    if not isinstance(data, Mapping):
        raise InvalidLayoutError("", "the layouts document must be a JSON object")
    version = data.get("version")
    if version is None:
        repairs.append("version: missing; set to 1")
        version = 1
    elif not _is_int(version):
        raise InvalidLayoutError("version", "must be an integer")
    raw_layouts = data.get("layouts")
    if not isinstance(raw_layouts, list) or not raw_layouts:
        raise InvalidLayoutError("layouts", "must be a non-empty array of layouts")
    layouts: list[Layout] = []
    for index, raw in enumerate(raw_layouts):
        path = f"layouts[{index}]"
        layout = _decode_layout(raw, path, repairs)
        if any(known.id == layout.id for known in layouts):
            raise InvalidLayoutError(f"{path}.id", f"duplicate layout id {layout.id}")
        layouts.append(layout)
    active_id = data.get("activeId")
    if not any(layout.id == active_id for layout in layouts):
        repairs.append(f"activeId: {active_id!r} names no layout; the first layout {layouts[0].id} is active")
        active_id = layouts[0].id
    return LayoutDocument(active_id, tuple(layouts), version, _extra_of(data, _DOCUMENT_KEYS))


def _decode_layout(raw: Any, path: str, repairs: list[str]) -> Layout:
    data = _object(raw, path, "a layout")
    layout_id = _identifier(data, path, "layout id")
    name = data.get("name")
    if not isinstance(name, str):
        raise InvalidLayoutError(f"{path}.name", "must be a string")
    kind = data.get("kind")
    if kind is None:
        repairs.append(f'{path}.kind: missing; set to "terminal"')
    elif kind != TERMINAL_KIND:
        repairs.append(f'{path}.kind: unknown kind {kind!r} loaded as "terminal"')
    tree = data.get("tree")
    if not isinstance(tree, Mapping):
        raise InvalidLayoutError(f"{path}.tree", "must be an object holding the root node")
    root = _TreeDecoder(repairs).node(tree.get("root"), f"{path}.tree.root")
    return Layout(
        layout_id,
        name,
        root,
        TERMINAL_KIND,
        tree_extra=_extra_of(tree, _TREE_KEYS),
        extra=_extra_of(data, _LAYOUT_KEYS),
    )


class _TreeDecoder:
    """Decodes the tree of one layout: ids, agents and sessions are unique within a layout."""

    def __init__(self, repairs: list[str]) -> None:
        self._repairs = repairs
        self._node_ids: set[str] = set()
        self._agents: set[str] = set()
        self._sessions: set[str] = set()

    def node(self, raw: Any, path: str) -> Node:
        wrapper = _object(raw, path, "a node")
        node_type = wrapper.get("type")
        if not isinstance(node_type, str):
            raise InvalidLayoutError(f"{path}.type", "must be a string naming the node type")
        body = _object(wrapper.get("node"), f"{path}.node", "an object")
        node_id = _identifier(body, f"{path}.node", "node id")
        if node_id in self._node_ids:
            raise InvalidLayoutError(path, f"duplicate node id {node_id}")
        self._node_ids.add(node_id)
        if node_type not in ("leaf", "split", "grid"):
            self._repairs.append(f"{path}: unknown node type {node_type!r} kept as an empty cell")
            return UnknownNode(node_id, MappingProxyType(copy.deepcopy(dict(wrapper))))
        dropped = [key for key in wrapper if key not in _WRAPPER_KEYS]
        if dropped:
            self._repairs.append(f"{path}: dropped unknown keys {', '.join(map(repr, dropped))}")
        match node_type:
            case "leaf":
                return self._leaf(body, node_id, f"{path}.node")
            case "split":
                return self._split(body, node_id, path)
            case _:
                return self._grid(body, node_id, path)

    def _leaf(self, body: Mapping[str, Any], node_id: str, path: str) -> Leaf:
        session = _optional_text(body, "session", path)
        agent = _optional_text(body, "agent", path)
        conversation_id = _optional_text(body, "conversationId", path)
        was_running = body.get("agentWasRunning")
        if was_running is None:
            was_running = False
        elif not isinstance(was_running, bool):
            raise InvalidLayoutError(f"{path}.agentWasRunning", "must be true or false")
        if agent is not None and agent in self._agents:
            self._repairs.append(f"{path}.agent: agent {agent} is already pinned in this layout; pin cleared")
            agent, conversation_id, was_running = None, None, False
        if session is not None and session in self._sessions:
            self._repairs.append(f"{path}.session: session {session} is already shown in this layout; cleared")
            session = None
        self._agents.update([agent] if agent else [])
        self._sessions.update([session] if session else [])
        return Leaf(node_id, session, agent, conversation_id, was_running, _extra_of(body, _LEAF_KEYS))

    def _split(self, body: Mapping[str, Any], node_id: str, path: str) -> Node:
        direction = body.get("direction")
        if direction not in (Direction.ROW, Direction.COLUMN):
            raise InvalidLayoutError(f"{path}.node.direction", 'must be "row" or "column"')
        raw_children = body.get("children")
        if not isinstance(raw_children, list):
            raise InvalidLayoutError(f"{path}.node.children", "must be an array")
        children = tuple(
            self._weighted(raw, f"{path}.node.children[{index}]") for index, raw in enumerate(raw_children)
        )
        match children:
            case ():
                self._repairs.append(f"{path}: split {node_id} has no children; replaced by an empty cell")
                return Leaf(node_id)
            case (only,):
                self._repairs.append(f"{path}: split {node_id} has a single child; collapsed into it")
                return only.node
        return Split(node_id, Direction(direction), children, _extra_of(body, _SPLIT_KEYS))

    def _weighted(self, raw: Any, path: str) -> Weighted:
        data = _object(raw, path, "an object with a node and a weight")
        node = self.node(data.get("node"), f"{path}.node")
        return Weighted(node, self._weight(data.get("weight"), f"{path}.weight"), _extra_of(data, _WEIGHTED_KEYS))

    def _grid(self, body: Mapping[str, Any], node_id: str, path: str) -> Node:
        rows = self._weights(body.get("rows"), f"{path}.node.rows")
        cols = self._weights(body.get("cols"), f"{path}.node.cols")
        raw_cells = body.get("cells")
        if not isinstance(raw_cells, list):
            raise InvalidLayoutError(f"{path}.node.cells", "must be an array")
        cells = tuple(self._cell(raw, f"{path}.node.cells[{index}]") for index, raw in enumerate(raw_cells))
        _check_tiling(len(rows), len(cols), cells, f"{path}.node")
        if len(cells) == 1:
            self._repairs.append(f"{path}: grid {node_id} has a single cell; collapsed into it")
            return cells[0].node
        return Grid(node_id, rows, cols, cells, _extra_of(body, _GRID_KEYS))

    def _cell(self, raw: Any, path: str) -> GridCell:
        data = _object(raw, path, "a grid cell object")
        row, col = _integer(data, "row", path), _integer(data, "col", path)
        row_span = _integer(data, "rowSpan", path, default=1)
        col_span = _integer(data, "colSpan", path, default=1)
        node = self.node(data.get("node"), f"{path}.node")
        return GridCell(row, col, node, row_span, col_span, _extra_of(data, _CELL_KEYS))

    def _weights(self, raw: Any, path: str) -> tuple[float, ...]:
        if not isinstance(raw, list) or not raw:
            raise InvalidLayoutError(path, "must be a non-empty array of weights")
        return tuple(self._weight(value, f"{path}[{index}]") for index, value in enumerate(raw))

    def _weight(self, value: Any, path: str) -> float:
        if value is None:
            self._repairs.append(f"{path}: missing weight set to 1.0")
            return 1.0
        if not _is_number(value):
            raise InvalidLayoutError(path, "must be a number")
        if not _is_valid_weight(value):
            self._repairs.append(f"{path}: invalid weight {value!r} reset to 1.0")
            return 1.0
        return float(value)


def _encode_layout(layout: Layout) -> dict[str, Any]:
    tree = _with_extra({"root": _encode_node(layout.root)}, layout.tree_extra)
    data = {"id": layout.id, "name": layout.name, "kind": layout.kind, "tree": tree}
    return _with_extra(data, layout.extra)


def _encode_node(node: Node) -> dict[str, Any]:
    match node:
        case Leaf():
            body: dict[str, Any] = {"id": node.id}
            if node.session is not None:
                body["session"] = node.session
            if node.agent is not None:
                body["agent"] = node.agent
            if node.agent_was_running:
                body["agentWasRunning"] = True
            if node.conversation_id is not None:
                body["conversationId"] = node.conversation_id
            return {"type": "leaf", "node": _with_extra(body, node.extra)}
        case Split():
            children = [
                _with_extra({"node": _encode_node(child.node), "weight": float(child.weight)}, child.extra)
                for child in node.children
            ]
            body = {"id": node.id, "direction": str(node.direction), "children": children}
            return {"type": "split", "node": _with_extra(body, node.extra)}
        case Grid():
            body = {
                "id": node.id,
                "rows": [float(weight) for weight in node.rows],
                "cols": [float(weight) for weight in node.cols],
                "cells": [_encode_cell(cell) for cell in node.cells],
            }
            return {"type": "grid", "node": _with_extra(body, node.extra)}
        case UnknownNode():
            return copy.deepcopy(dict(node.raw))


def _encode_cell(cell: GridCell) -> dict[str, Any]:
    data: dict[str, Any] = {"row": cell.row, "col": cell.col}
    if cell.row_span != 1:
        data["rowSpan"] = cell.row_span
    if cell.col_span != 1:
        data["colSpan"] = cell.col_span
    data["node"] = _encode_node(cell.node)
    return _with_extra(data, cell.extra)


def _with_extra(data: dict[str, Any], extra: Mapping[str, Any]) -> dict[str, Any]:
    for key, value in extra.items():
        data.setdefault(key, copy.deepcopy(value))
    return data


def _extra_of(data: Mapping[str, Any], known: tuple[str, ...]) -> Mapping[str, Any]:
    extra = {key: copy.deepcopy(value) for key, value in data.items() if key not in known}
    return MappingProxyType(extra) if extra else _NO_EXTRA


def _object(raw: Any, path: str, what: str) -> Mapping[str, Any]:
    if not isinstance(raw, Mapping):
        raise InvalidLayoutError(path, f"must be {what}")
    return raw


def _identifier(data: Mapping[str, Any], path: str, what: str) -> str:
    value = data.get("id")
    if value is None:
        raise InvalidLayoutError(f"{path}.id", f"missing {what}")
    if not isinstance(value, str) or not value:
        raise InvalidLayoutError(f"{path}.id", f"{what} must be a non-empty string")
    return value


def _optional_text(data: Mapping[str, Any], key: str, path: str) -> str | None:
    value = data.get(key)
    if value is not None and (not isinstance(value, str) or not value):
        raise InvalidLayoutError(f"{path}.{key}", "must be a non-empty string")
    return value


def _integer(data: Mapping[str, Any], key: str, path: str, default: int | None = None) -> int:
    value = data.get(key, default)
    if not _is_int(value):
        raise InvalidLayoutError(f"{path}.{key}", "must be an integer")
    return int(value)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _is_valid_weight(value: Any) -> bool:
    if not _is_number(value):
        return False
    try:
        return math.isfinite(value) and value > 0
    except OverflowError:  # an integer too large for a float
        return False


def _check_tiling(row_count: int, col_count: int, cells: Iterable[GridCell], path: str) -> None:
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
            raise InvalidLayoutError(cell_path, f"reaches beyond the grid's {row_count} rows and {col_count} columns")
        for slot in _slots(cell):
            if slot in owners:
                raise InvalidLayoutError(
                    cell_path, f"overlaps cells[{owners[slot]}] at row {slot[0]}, column {slot[1]}"
                )
            owners[slot] = index
    for row in range(row_count):
        for col in range(col_count):
            if (row, col) not in owners:
                raise InvalidLayoutError(path, f"no cell covers row {row}, column {col}")


def _slots(cell: GridCell) -> Iterator[tuple[int, int]]:
    for row in range(cell.row, cell.row + cell.row_span):
        for col in range(cell.col, cell.col + cell.col_span):
            yield row, col


# --------------------------------------------------------------------------------------------------- queries


def iter_nodes(root: Node) -> Iterator[Node]:
    """Every node, parents before children, in document order."""
    yield root
    for child in _children(root):
        yield from iter_nodes(child)


def leaves(root: Node) -> list[Leaf]:
    """The leaves as read on screen: top to bottom, then left to right."""
    rects = _cell_rects(root)
    return sorted(_leaves_in(root), key=lambda leaf: (rects[leaf.id][1], rects[leaf.id][0]))


def find_node(root: Node, node_id: str) -> Node:
    for node in iter_nodes(root):
        if node.id == node_id:
            return node
    raise not_found(f"node {node_id} is not in this layout", nodeId=node_id)


def find_leaf(root: Node, leaf_id: str) -> Leaf:
    node = find_node(root, leaf_id)
    if not isinstance(node, Leaf):
        raise invalid(f"node {leaf_id} is a {_kind(node)}, not a leaf", nodeId=leaf_id)
    return node


def parent_of(root: Node, node_id: str) -> Split | Grid | None:
    find_node(root, node_id)
    for node in iter_nodes(root):
        if isinstance(node, Split | Grid) and any(child.id == node_id for child in _children(node)):
            return node
    return None


def leaf_showing_session(root: Node, session_id: str) -> Leaf | None:
    return next((leaf for leaf in _leaves_in(root) if leaf.session == session_id), None)


def leaf_pinning_agent(root: Node, agent_id: str) -> Leaf | None:
    return next((leaf for leaf in _leaves_in(root) if leaf.agent == agent_id), None)


def first_empty_leaf(root: Node) -> Leaf | None:
    return next((leaf for leaf in leaves(root) if leaf.is_empty), None)


def leaf_rects(root: Node) -> dict[str, tuple[float, float, float, float]]:
    """(x, y, width, height) of every leaf in the unit square, in reading order."""
    rects = _cell_rects(root)
    return {leaf.id: _float_rect(rects[leaf.id]) for leaf in leaves(root)}


def neighbour(root: Node, leaf_id: str, towards: Literal["left", "right", "up", "down"]) -> str | None:
    """The leaf focus moves to: the nearest one on that side level with the middle of `leaf_id`."""
    if towards not in ("left", "right", "up", "down"):
        raise invalid(f"unknown direction {towards!r}; expected left, right, up or down")
    find_leaf(root, leaf_id)
    cell_rects = _cell_rects(root)
    rects = {leaf.id: cell_rects[leaf.id] for leaf in _leaves_in(root)}
    x, y, width, height = rects.pop(leaf_id)
    middle_x, middle_y = x + width / 2, y + height / 2
    best: tuple[Fraction, str] | None = None
    for other, (ox, oy, other_width, other_height) in rects.items():
        level_vertically = oy < middle_y <= oy + other_height
        level_horizontally = ox < middle_x <= ox + other_width
        match towards:
            case "right":
                distance, level = ox - (x + width), level_vertically
            case "left":
                distance, level = x - (ox + other_width), level_vertically
            case "down":
                distance, level = oy - (y + height), level_horizontally
            case _:
                distance, level = y - (oy + other_height), level_horizontally
        if level and distance >= 0 and (best is None or distance < best[0]):
            best = (distance, other)
    return None if best is None else best[1]


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
                    if not _is_valid_weight(child.weight):
                        raise InvalidLayoutError(f"{child_path}.weight", "must be a finite number greater than 0")
                    self.check(child.node, f"{child_path}.node")
            case Grid():
                for key, weights in (("rows", node.rows), ("cols", node.cols)):
                    if not all(_is_valid_weight(weight) for weight in weights):
                        raise InvalidLayoutError(f"{path}.node.{key}", "weights must be finite and greater than 0")
                _check_tiling(len(node.rows), len(node.cols), node.cells, f"{path}.node")
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


_Rect = tuple[Fraction, Fraction, Fraction, Fraction]


def _cell_rects(root: Node) -> dict[str, _Rect]:
    """Exact rectangles of the cells (leaves and unknown nodes), so equal edges compare equal."""
    rects: dict[str, _Rect] = {}
    _place(root, (Fraction(0), Fraction(0), Fraction(1), Fraction(1)), rects)
    return rects


def _place(node: Node, rect: _Rect, rects: dict[str, _Rect]) -> None:
    x, y, width, height = rect
    match node:
        case Split():
            edges = _edges(child.weight for child in node.children)
            for child, (start, end) in zip(node.children, pairwise(edges), strict=True):
                if node.direction == Direction.ROW:
                    _place(child.node, (x + width * start, y, width * (end - start), height), rects)
                else:
                    _place(child.node, (x, y + height * start, width, height * (end - start)), rects)
        case Grid():
            row_edges, col_edges = _edges(node.rows), _edges(node.cols)
            for cell in node.cells:
                top, bottom = row_edges[cell.row], row_edges[cell.row + cell.row_span]
                left, right = col_edges[cell.col], col_edges[cell.col + cell.col_span]
                cell_rect = (x + width * left, y + height * top, width * (right - left), height * (bottom - top))
                _place(cell.node, cell_rect, rects)
        case _:
            rects[node.id] = rect


def _edges(weights: Iterable[float]) -> list[Fraction]:
    """Cumulative shares 0 .. 1 of consecutive weights."""
    exact = [Fraction(weight) for weight in weights]
    total = sum(exact, Fraction(0))
    edges = [Fraction(0)]
    for weight in exact:
        edges.append(edges[-1] + weight / total)
    return edges


def _float_rect(rect: _Rect) -> tuple[float, float, float, float]:
    x, y, width, height = rect
    return float(x), float(y), float(width), float(height)


def _children(node: Node) -> tuple[Node, ...]:
    match node:
        case Split():
            return tuple(child.node for child in node.children)
        case Grid():
            return tuple(cell.node for cell in node.cells)
        case _:
            return ()


def _leaves_in(node: Node) -> list[Leaf]:
    return [each for each in iter_nodes(node) if isinstance(each, Leaf)]


def _leaf_ids(node: Node) -> set[str]:
    return {leaf.id for leaf in _leaves_in(node)}


def _kind(node: Node) -> str:
    match node:
        case Leaf():
            return "cell"
        case Split():
            return "split"
        case Grid():
            return "grid"
        case _:
            return "cell of an unknown type"


# --------------------------------------------------------------------------------------------------- operations


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
            changed = _substitute(root, leaf.id, replace(leaf, agent_was_running=op.value))
        case ClearCell():
            leaf = find_leaf(root, op.target)
            changed = _substitute(root, leaf.id, Leaf(leaf.id, extra=leaf.extra))
        case Equalize():
            changed = _equalize(root, op.container)
        case _:
            raise invalid(f"unknown layout operation {type(op).__name__}")
    validate(changed)
    zoomed = layout.zoomed if layout.zoomed in _leaf_ids(changed) else None
    return Applied(replace(layout, root=changed, zoomed=zoomed), _displaced(root, changed))


def _displaced(before: Node, after: Node) -> tuple[Leaf, ...]:
    """Cells of `before` whose session or agent no longer appears anywhere in `after`."""
    remaining = _leaves_in(after)
    sessions = {leaf.session for leaf in remaining}
    agents = {leaf.agent for leaf in remaining}

    def gone(leaf: Leaf) -> bool:
        return (leaf.session is not None and leaf.session not in sessions) or (
            leaf.agent is not None and leaf.agent not in agents
        )

    if not any(gone(leaf) for leaf in _leaves_in(before)):
        return ()
    return tuple(leaf for leaf in leaves(before) if gone(leaf))


def _split_cell(root: Node, op: SplitCell, new_id: Callable[[], str]) -> Node:
    target = _cell(root, op.target)
    direction = _direction(op.direction)
    if op.position not in ("before", "after"):
        raise invalid(f'position must be "before" or "after", got {op.position!r}')
    new_leaf = Leaf(_unused_id(root, op.new_leaf_id) if op.new_leaf_id is not None else new_id())
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
        return _substitute(root, parent.id, replace(parent, children=tuple(children)))
    pair = [Weighted(target, 1.0), Weighted(new_leaf, 1.0)]
    ordered = tuple(pair if op.position == "after" else reversed(pair))
    return _substitute(root, target.id, Split(new_id(), direction, ordered))


def _close_cell(root: Node, target_id: str) -> Node:
    target = _cell(root, target_id)
    vacated = Leaf(target.id, extra=target.extra) if isinstance(target, Leaf) else Leaf(target.id)
    match parent_of(root, target.id):
        case None:
            return vacated
        case Split() as split:
            remaining = tuple(child for child in split.children if child.node.id != target.id)
            return _substitute(root, split.id, _split_or_only_child(split, remaining))
        case Grid() as grid:
            return _substitute(root, grid.id, _close_grid_cell(grid, target.id, vacated))


def _close_grid_cell(grid: Grid, target_id: str, vacated: Leaf) -> Node:
    closing = next(cell for cell in grid.cells if cell.node.id == target_id)
    others = tuple(cell for cell in grid.cells if cell is not closing)
    absorbed = _absorb(closing, others)
    if absorbed is None:
        cells = tuple(replace(cell, node=vacated) if cell is closing else cell for cell in grid.cells)
    else:
        neighbour_cell, grown = absorbed
        cells = tuple(grown if cell is neighbour_cell else cell for cell in others)
    return _normalised(replace(grid, cells=cells))


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
    split = _split(root, op.container)
    weights = _checked_weights(op.weights, len(split.children), f"split {split.id} has {len(split.children)} children")
    children = tuple(replace(child, weight=weight) for child, weight in zip(split.children, weights, strict=True))
    return _substitute(root, split.id, replace(split, children=children))


def _resize_grid(root: Node, op: ResizeGrid) -> Node:
    grid = _grid(root, op.grid)
    if op.rows is None and op.cols is None:
        raise invalid("resizeGrid needs row weights, column weights or both")
    rows = (
        grid.rows
        if op.rows is None
        else _checked_weights(op.rows, len(grid.rows), f"grid {grid.id} has {len(grid.rows)} rows")
    )
    cols = (
        grid.cols
        if op.cols is None
        else _checked_weights(op.cols, len(grid.cols), f"grid {grid.id} has {len(grid.cols)} columns")
    )
    return _substitute(root, grid.id, replace(grid, rows=rows, cols=cols))


def _set_count(root: Node, op: SetCount, new_id: Callable[[], str]) -> Node:
    _check_size(op.count, "count")
    direction = _direction(op.direction)
    node = find_node(root, op.container)
    match node:
        case Grid():
            raise invalid(f"grid {node.id} is resized with setGridSize, not setCount", nodeId=node.id)
        case Split() if node.direction == direction:
            removed = node.children[op.count :]
            if not all(_is_vacant(child.node) for child in removed):
                raise invalid("cannot remove occupied cells", nodeId=node.id)
            added = tuple(Weighted(Leaf(new_id()), 1.0) for _ in range(op.count - len(node.children)))
            kept = tuple(replace(child, weight=1.0) for child in node.children[: op.count])
            return _substitute(root, node.id, _split_or_only_child(node, kept + added))
        case _:
            if op.count == 1:
                return root
            split_id = new_id()
            added = tuple(Weighted(Leaf(new_id()), 1.0) for _ in range(op.count - 1))
            return _substitute(root, node.id, Split(split_id, direction, (Weighted(node, 1.0), *added)))


def _merge_children(root: Node, op: MergeChildren) -> Node:
    split = _split(root, op.container)
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
    return _substitute(root, split.id, _split_or_only_child(split, children))


def _merge_leaves(root: Node, op: MergeLeaves, new_id: Callable[[], str]) -> Node:
    selected = {find_leaf(root, leaf_id).id for leaf_id in op.leaf_ids}
    if len(selected) < 2:
        raise invalid("select at least two cells to merge")
    not_a_rectangle = invalid("the selected cells do not form a rectangle")
    match _lowest_common_container(root, selected):
        case Split() as split:
            touched = [index for index, child in enumerate(split.children) if _leaf_ids(child.node) & selected]
            start, end = touched[0], touched[-1]
            covered = set().union(*(_leaf_ids(child.node) for child in split.children[start : end + 1]))
            if covered != selected:
                raise not_a_rectangle
            keep = _kept_leaf(root, selected, op.keep, "among the selected cells", new_id)
            keep_index = next(index for index, child in enumerate(split.children) if keep.id in _leaf_ids(child.node))
            weight = sum(child.weight for child in split.children[start : end + 1])
            merged = replace(split.children[keep_index], node=keep, weight=weight)
            children = (*split.children[:start], merged, *split.children[end + 1 :])
            return _substitute(root, split.id, _split_or_only_child(split, children))
        case Grid() as grid:
            touched_cells = [cell for cell in grid.cells if _leaf_ids(cell.node) & selected]
            top = min(cell.row for cell in touched_cells)
            left = min(cell.col for cell in touched_cells)
            bottom = max(cell.row + cell.row_span for cell in touched_cells)
            right = max(cell.col + cell.col_span for cell in touched_cells)
            inside = _cells_in_rectangle(grid, top, left, bottom - top, right - left)
            if inside is None or set().union(*(_leaf_ids(cell.node) for cell in inside)) != selected:
                raise not_a_rectangle
            keep = _kept_leaf(root, selected, op.keep, "among the selected cells", new_id)
            merged_grid = _merged_rectangle(grid, inside, keep, top, left, bottom - top, right - left)
            return _substitute(root, grid.id, merged_grid)


def _merge_cells(root: Node, op: MergeCells, new_id: Callable[[], str]) -> Node:
    grid = _grid(root, op.grid)
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
    inside = _cells_in_rectangle(grid, op.row, op.col, op.row_span, op.col_span)
    if inside is None:
        raise invalid("the rectangle cuts through a merged cell")
    if len(inside) == 1:
        raise invalid("the rectangle is already a single cell")
    candidates = set().union(*(_leaf_ids(cell.node) for cell in inside))
    keep = _kept_leaf(root, candidates, op.keep, "inside the merged rectangle", new_id)
    merged_grid = _merged_rectangle(grid, inside, keep, op.row, op.col, op.row_span, op.col_span)
    return _substitute(root, grid.id, merged_grid)


def _merged_rectangle(
    grid: Grid, inside: tuple[GridCell, ...], keep: Leaf, row: int, col: int, row_span: int, col_span: int
) -> Node:
    top_left = next(cell for cell in inside if (cell.row, cell.col) == (row, col))
    merged = GridCell(row, col, keep, row_span, col_span, top_left.extra)
    merged_ids = {cell.node.id for cell in inside}
    outside = tuple(cell for cell in grid.cells if cell.node.id not in merged_ids)
    return _normalised(replace(grid, cells=(*outside, merged)))


def _unmerge_cell(root: Node, op: UnmergeCell, new_id: Callable[[], str]) -> Node:
    grid = _grid(root, op.grid)
    cell = next((cell for cell in grid.cells if (op.row, op.col) in set(_slots(cell))), None)
    if cell is None:
        raise invalid(f"row {op.row}, column {op.col} is outside grid {grid.id}")
    if cell.row_span == 1 and cell.col_span == 1:
        raise invalid(f"the cell at row {op.row}, column {op.col} of grid {grid.id} is not merged")
    pieces = [replace(cell, row_span=1, col_span=1)]
    pieces += [GridCell(row, col, Leaf(new_id())) for row, col in _slots(cell) if (row, col) != (cell.row, cell.col)]
    others = tuple(other for other in grid.cells if other is not cell)
    return _substitute(root, grid.id, _normalised(replace(grid, cells=(*others, *pieces))))


def _make_grid(root: Node, op: MakeGrid, new_id: Callable[[], str]) -> Node:
    target = _cell(root, op.target)
    _check_size(op.rows, "rows")
    _check_size(op.cols, "cols")
    grid_id = new_id()
    cells = tuple(
        GridCell(row, col, target if (row, col) == (0, 0) else Leaf(new_id()))
        for row in range(op.rows)
        for col in range(op.cols)
    )
    grid = Grid(grid_id, (1.0,) * op.rows, (1.0,) * op.cols, cells)
    return _substitute(root, target.id, _normalised(grid))


def _set_grid_size(root: Node, op: SetGridSize, new_id: Callable[[], str]) -> Node:
    grid = _grid(root, op.grid)
    _check_size(op.rows, "rows")
    _check_size(op.cols, "cols")
    removed = [cell for cell in grid.cells if cell.row + cell.row_span > op.rows or cell.col + cell.col_span > op.cols]
    if not all(_is_vacant(cell.node) for cell in removed):
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
    return _substitute(root, grid.id, _normalised(replace(grid, rows=rows, cols=cols, cells=kept + added)))


def _move_content(root: Node, op: MoveContent) -> Node:
    source, destination = find_leaf(root, op.source), find_leaf(root, op.destination)
    if source.id == destination.id:
        raise invalid("a cell cannot be moved onto itself", nodeId=source.id)
    swapped = _substitute(root, source.id, _with_content_of(source, destination))
    return _substitute(swapped, destination.id, _with_content_of(destination, source))


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
    return _substitute(root, leaf.id, replace(leaf, agent=op.agent, conversation_id=conversation_id))


def _set_session(root: Node, op: SetSession) -> Node:
    leaf = find_leaf(root, op.target)
    shown_elsewhere = None if op.session is None else leaf_showing_session(root, op.session)
    if shown_elsewhere is not None and shown_elsewhere.id != leaf.id:
        # A session is displayed by one cell at most: binding it here takes it from the other cell.
        root = _substitute(root, shown_elsewhere.id, replace(shown_elsewhere, session=None))
    return _substitute(root, leaf.id, replace(leaf, session=op.session))


def _equalize(root: Node, container_id: str | None) -> Node:
    if container_id is None:
        return _equalized(root, whole_subtree=True)
    node = find_node(root, container_id)
    if not isinstance(node, Split | Grid):
        raise invalid(f"node {container_id} is a {_kind(node)}, not a split or a grid", nodeId=container_id)
    return _substitute(root, node.id, _equalized(node, whole_subtree=False))


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


# ----------------------------------------------------------------------------------------- tree editing helpers


def _substitute(root: Node, node_id: str, replacement: Node) -> Node:
    """The tree with node `node_id` replaced; a split child keeps its weight, a grid cell its place."""
    match root:
        case _ if root.id == node_id:
            return replacement
        case Split():
            children = tuple(
                replace(child, node=_substitute(child.node, node_id, replacement)) for child in root.children
            )
            return replace(root, children=children)
        case Grid():
            cells = tuple(replace(cell, node=_substitute(cell.node, node_id, replacement)) for cell in root.cells)
            return replace(root, cells=cells)
        case _:
            return root


def _split_or_only_child(split: Split, children: tuple[Weighted, ...]) -> Node:
    """A split keeps two children or more; a lone child takes the split's place (and, in a parent, its weight)."""
    return children[0].node if len(children) == 1 else replace(split, children=children)


def _normalised(grid: Grid) -> Node:
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


def _cells_in_rectangle(grid: Grid, row: int, col: int, row_span: int, col_span: int) -> tuple[GridCell, ...] | None:
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


def _lowest_common_container(root: Node, leaf_ids: set[str]) -> Split | Grid:
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
    for child in _children(root):
        below = _ancestry(child, node_id)
        if below:
            return [root, *below]
    return []


def _kept_leaf(root: Node, candidates: set[str], keep: str | None, where: str, new_id: Callable[[], str]) -> Leaf:
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


def _is_vacant(node: Node) -> bool:
    """Nothing the user could lose: no session, no agent, no node of an unknown type."""
    return all(
        not isinstance(each, UnknownNode) and not (isinstance(each, Leaf) and not each.is_empty)
        for each in iter_nodes(node)
    )


def _cell(root: Node, node_id: str) -> Leaf | UnknownNode:
    node = find_node(root, node_id)
    if not isinstance(node, Leaf | UnknownNode):
        raise invalid(f"node {node_id} is a {_kind(node)}, not a cell", nodeId=node_id)
    return node


def _split(root: Node, node_id: str) -> Split:
    node = find_node(root, node_id)
    if not isinstance(node, Split):
        raise invalid(f"node {node_id} is a {_kind(node)}, not a split", nodeId=node_id)
    return node


def _grid(root: Node, node_id: str) -> Grid:
    node = find_node(root, node_id)
    if not isinstance(node, Grid):
        raise invalid(f"node {node_id} is a {_kind(node)}, not a grid", nodeId=node_id)
    return node


def _unused_id(root: Node, node_id: str) -> str:
    if any(node.id == node_id for node in iter_nodes(root)):
        raise invalid(f"node id {node_id} is already used in this layout", nodeId=node_id)
    return node_id


def _direction(value: str) -> Direction:
    try:
        return Direction(value)
    except ValueError:
        raise invalid(f'direction must be "row" or "column", got {value!r}') from None


def _check_size(value: int, what: str) -> None:
    if not _is_int(value) or not 1 <= value <= MAX_COUNT:
        raise invalid(f"{what} must be between 1 and {MAX_COUNT}, got {value!r}")


def _checked_weights(weights: tuple[float, ...], expected: int, what: str) -> tuple[float, ...]:
    if len(weights) != expected:
        raise invalid(f"{what} but {len(weights)} weights were given")
    if not all(_is_valid_weight(weight) for weight in weights):
        raise invalid("weights must be finite numbers greater than 0")
    return tuple(float(weight) for weight in weights)


# --------------------------------------------------------------------------------------------------- documents


def create_layout(document: LayoutDocument, layout_id: str, name: str, leaf_id: str) -> LayoutDocument:
    """Append a layout holding one empty cell; the active layout does not change."""
    _check_new_layout_id(document, layout_id)
    layout = Layout(layout_id, _checked_name(document, name), Leaf(leaf_id))
    return replace(document, layouts=(*document.layouts, layout))


def rename_layout(document: LayoutDocument, layout_id: str, name: str) -> LayoutDocument:
    layout = document.layout(layout_id)
    return _with_layout(document, replace(layout, name=_checked_name(document, name, renaming=layout_id)))


def duplicate_layout(
    document: LayoutDocument, layout_id: str, new_layout_id: str, name: str, new_id: Callable[[], str]
) -> LayoutDocument:
    """Append a copy with fresh node ids; agent pins and resume fields stay, live sessions do not."""
    source = document.layout(layout_id)
    _check_new_layout_id(document, new_layout_id)
    copy_of_source = replace(
        source,
        id=new_layout_id,
        name=_checked_name(document, name),
        root=_with_fresh_ids(source.root, new_id),
        zoomed=None,
    )
    return replace(document, layouts=(*document.layouts, copy_of_source))


def delete_layout(document: LayoutDocument, layout_id: str) -> LayoutDocument:
    document.layout(layout_id)
    if len(document.layouts) == 1:
        raise invalid("the last layout cannot be deleted", layoutId=layout_id)
    remaining = tuple(layout for layout in document.layouts if layout.id != layout_id)
    active_id = remaining[0].id if document.active_id == layout_id else document.active_id
    return replace(document, active_id=active_id, layouts=remaining)


def set_active(document: LayoutDocument, layout_id: str) -> LayoutDocument:
    document.layout(layout_id)
    return replace(document, active_id=layout_id)


def replace_layout(document: LayoutDocument, layout: Layout) -> LayoutDocument:
    """Store a changed layout (same id); its tree must be valid and a new name must be acceptable."""
    current = document.layout(layout.id)
    validate(layout.root)
    if layout.name != current.name:
        layout = replace(layout, name=_checked_name(document, layout.name, renaming=layout.id))
    return _with_layout(document, layout)


def _with_layout(document: LayoutDocument, changed: Layout) -> LayoutDocument:
    layouts = tuple(changed if layout.id == changed.id else layout for layout in document.layouts)
    return replace(document, layouts=layouts)


def _check_new_layout_id(document: LayoutDocument, layout_id: str) -> None:
    if any(layout.id == layout_id for layout in document.layouts):
        raise invalid(f"a layout with id {layout_id} already exists", layoutId=layout_id)


def _checked_name(document: LayoutDocument, name: str, renaming: str | None = None) -> str:
    """The stripped name, refused when empty, too long or already taken (ignoring case)."""
    stripped = name.strip()
    if not stripped:
        raise invalid("a layout name cannot be empty")
    if len(stripped) > MAX_NAME_LENGTH:
        raise invalid(f"a layout name has at most {MAX_NAME_LENGTH} characters; this one has {len(stripped)}")
    for layout in document.layouts:
        if layout.id != renaming and layout.name.strip().casefold() == stripped.casefold():
            raise invalid(f"a layout named {layout.name!r} already exists", layoutId=layout.id)
    return stripped


def _with_fresh_ids(node: Node, new_id: Callable[[], str]) -> Node:
    """A copy with new node ids (parents first, document order) and no live sessions."""
    fresh_id = new_id()
    match node:
        case Leaf():
            return replace(node, id=fresh_id, session=None)
        case Split():
            children = tuple(replace(child, node=_with_fresh_ids(child.node, new_id)) for child in node.children)
            return replace(node, id=fresh_id, children=children)
        case Grid():
            cells = tuple(replace(cell, node=_with_fresh_ids(cell.node, new_id)) for cell in node.cells)
            return replace(node, id=fresh_id, cells=cells)
        case UnknownNode():
            raw = copy.deepcopy(dict(node.raw))
            raw["node"] = {**raw["node"], "id": fresh_id}
            return UnknownNode(fresh_id, MappingProxyType(raw))
