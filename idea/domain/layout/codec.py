"""The JSON codec of `layouts.json` (spec 01 §5): nodes adjacently tagged (`{"type": ..., "node": ...}`),
camelCase keys, absent optional keys omitted, unknown keys and node types kept. Benign problems are repaired
and listed; structural ones raise `InvalidLayoutError` with the JSON path of the problem.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Any

from idea.domain.layout.documents import LayoutDocument
from idea.domain.layout.tree import (
    NO_EXTRA,
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
from idea.domain.layout.validation import check_tiling, is_int, is_number, is_valid_weight


@dataclass(frozen=True)
class DecodedDocument:
    document: LayoutDocument
    repairs: tuple[str, ...]  # one sentence per benign problem fixed while loading
    # The repairs the person should hear of (an id re-issued): the file is saved repaired and they are told.
    notices: tuple[str, ...] = ()


IdSource = Callable[[], str]


_DOCUMENT_KEYS = ("version", "activeId", "layouts")
_LAYOUT_KEYS = ("id", "name", "kind", "tree")
_TREE_KEYS = ("root",)
_WRAPPER_KEYS = ("type", "node")
_LEAF_KEYS = ("id", "session", "agent", "agentWasRunning", "conversationId")
_SPLIT_KEYS = ("id", "direction", "children")
_WEIGHTED_KEYS = ("node", "weight")
_GRID_KEYS = ("id", "rows", "cols", "cells")
_CELL_KEYS = ("row", "col", "rowSpan", "colSpan", "node")


def decode_document(data: Any, new_id: IdSource | None = None) -> DecodedDocument:
    """Read a parsed `layouts.json`; benign problems are repaired and listed, structural ones raise.

    With `new_id`, a layout or node id used twice is repaired too: the later one gets a new id (a cell keeps
    its terminal and its agent), and the repair is a notice. Without it, a duplicate id raises."""
    repairs: list[str] = []
    notices: list[str] = []
    document = _decode_document(data, repairs, _Ids(new_id, notices))
    return DecodedDocument(document, (*repairs, *notices), tuple(notices))


class _Ids:
    """Where ids used twice are re-issued (or refused when no id source is given)."""

    def __init__(self, new_id: IdSource | None, notices: list[str]) -> None:
        self._new_id = new_id
        self._notices = notices

    def reissue(self, path: str, what: str, used: str) -> str:
        if self._new_id is None:
            raise InvalidLayoutError(path, f"duplicate {what} {used}")
        fresh = self._new_id()
        self._notices.append(f"{path}: {what} {used} was used twice; the later one is now {fresh}")
        return fresh


def encode_document(document: LayoutDocument) -> dict[str, Any]:
    data = {
        "version": document.version,
        "activeId": document.active_id,
        "layouts": [_encode_layout(layout) for layout in document.layouts],
    }
    return _with_extra(data, document.extra)


def _decode_document(data: Any, repairs: list[str], ids: _Ids) -> LayoutDocument:
    if not isinstance(data, Mapping):
        raise InvalidLayoutError("", "the layouts document must be a JSON object")
    version = data.get("version")
    if version is None:
        repairs.append("version: missing; set to 1")
        version = 1
    elif not is_int(version):
        raise InvalidLayoutError("version", "must be an integer")
    raw_layouts = data.get("layouts")
    if not isinstance(raw_layouts, list) or not raw_layouts:
        raise InvalidLayoutError("layouts", "must be a non-empty array of layouts")
    layouts: list[Layout] = []
    for index, raw in enumerate(raw_layouts):
        path = f"layouts[{index}]"
        layout = _decode_layout(raw, path, repairs, ids)
        if any(known.id == layout.id for known in layouts):
            layout = replace(layout, id=ids.reissue(f"{path}.id", "layout id", layout.id))
        layouts.append(layout)
    active_id = data.get("activeId")
    if not any(layout.id == active_id for layout in layouts):
        repairs.append(f"activeId: {active_id!r} names no layout; the first layout {layouts[0].id} is active")
        active_id = layouts[0].id
    return LayoutDocument(active_id, tuple(layouts), version, _extra_of(data, _DOCUMENT_KEYS))


def _decode_layout(raw: Any, path: str, repairs: list[str], ids: _Ids) -> Layout:
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
    root = _TreeDecoder(repairs, ids).node(tree.get("root"), f"{path}.tree.root")
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

    def __init__(self, repairs: list[str], ids: _Ids) -> None:
        self._repairs = repairs
        self._ids = ids
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
            node_id = self._ids.reissue(path, "node id", node_id)
        self._node_ids.add(node_id)
        if node_type not in ("leaf", "split", "grid"):
            self._repairs.append(f"{path}: unknown node type {node_type!r} kept as an empty cell")
            kept = copy.deepcopy(dict(wrapper))
            kept["node"]["id"] = node_id  # re-issued when it was a duplicate
            return UnknownNode(node_id, MappingProxyType(kept))
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
        check_tiling(len(rows), len(cols), cells, f"{path}.node")
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
        if not is_number(value):
            raise InvalidLayoutError(path, "must be a number")
        if not is_valid_weight(value):
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
    return MappingProxyType(extra) if extra else NO_EXTRA


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
    if not is_int(value):
        raise InvalidLayoutError(f"{path}.{key}", "must be an integer")
    return int(value)
