"""Random sequences of layout operations keep every invariant and never lose a session or an agent silently."""

from __future__ import annotations

import copy
import itertools
import json
import math
from collections import Counter
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from idea.domain.errors import AppError, ErrorCode
from idea.domain.layout import (
    AssignAgent,
    ClearCell,
    CloseCell,
    Direction,
    Equalize,
    Grid,
    InvalidLayoutError,
    Layout,
    LayoutDocument,
    LayoutOp,
    Leaf,
    MakeGrid,
    MergeCells,
    MergeChildren,
    MergeLeaves,
    MoveContent,
    Node,
    ResizeGrid,
    ResizeSplit,
    SetAgentWasRunning,
    SetCount,
    SetGridSize,
    SetSession,
    Split,
    SplitCell,
    ToggleZoom,
    UnmergeCell,
    UnknownNode,
    apply,
    decode_document,
    default_document,
    encode_document,
    iter_nodes,
    leaf_rects,
    leaves,
    op_from_json,
    validate,
)

AGENTS = ("agent-1", "agent-2", "agent-3", "agent-4")
SESSIONS = ("session-1", "session-2", "session-3", "session-4", "session-5")
MAX_LEAVES = 40  # beyond this, only operations that do not add cells are drawn
weights = st.floats(min_value=0.05, max_value=20.0, allow_nan=False, allow_infinity=False)
directions = st.sampled_from([Direction.ROW, Direction.COLUMN])


def draw_op(data: st.DataObject, layout: Layout) -> LayoutOp:
    root = layout.root
    leaf_ids = [node.id for node in iter_nodes(root) if isinstance(node, Leaf)]
    splits = [node for node in iter_nodes(root) if isinstance(node, Split)]
    grids = [node for node in iter_nodes(root) if isinstance(node, Grid)]
    containers = [node.id for node in splits + grids]
    a_leaf = st.sampled_from(leaf_ids)

    kinds = ["close", "assign", "assign", "session", "session", "running", "clear", "zoom", "equalize"]
    if len(leaf_ids) >= 2:
        kinds += ["move", "merge-leaves"]
    if len(leaf_ids) < MAX_LEAVES:
        kinds += ["split", "split", "split", "count", "make-grid", "make-grid"]
    if splits:
        kinds += ["resize", "merge"]
    if grids:
        kinds += ["resize-grid", "merge-cells", "unmerge", "grid-size"]
    kind = data.draw(st.sampled_from(kinds), label="kind")

    match kind:
        case "split":
            return SplitCell(data.draw(a_leaf), data.draw(directions), data.draw(st.sampled_from(["before", "after"])))
        case "close":
            return CloseCell(data.draw(a_leaf))
        case "count":
            target = data.draw(st.sampled_from(leaf_ids + [split.id for split in splits]))
            return SetCount(target, data.draw(directions), data.draw(st.integers(1, 4)))
        case "make-grid":
            return MakeGrid(data.draw(a_leaf), data.draw(st.integers(1, 3)), data.draw(st.integers(1, 3)))
        case "assign":
            conversation = data.draw(st.none() | st.sampled_from(["c-1", "c-2"]))
            return AssignAgent(data.draw(a_leaf), data.draw(st.sampled_from(AGENTS)), conversation)
        case "session":
            return SetSession(data.draw(a_leaf), data.draw(st.none() | st.sampled_from(SESSIONS)))
        case "running":
            return SetAgentWasRunning(data.draw(a_leaf), data.draw(st.booleans()))
        case "clear":
            return ClearCell(data.draw(a_leaf))
        case "move":
            source, destination = data.draw(st.lists(a_leaf, min_size=2, max_size=2, unique=True))
            return MoveContent(source, destination)
        case "zoom":
            return ToggleZoom(data.draw(a_leaf))
        case "equalize":
            return Equalize(data.draw(st.none() | st.sampled_from(containers)) if containers else None)
        case "merge-leaves":
            return MergeLeaves(_draw_selection(data, root, leaf_ids))
        case "resize":
            split = data.draw(st.sampled_from(splits))
            count = len(split.children)
            return ResizeSplit(split.id, tuple(data.draw(st.lists(weights, min_size=count, max_size=count))))
        case "merge":
            split = data.draw(st.sampled_from(splits))
            start = data.draw(st.integers(0, len(split.children) - 2))
            end = data.draw(st.integers(start + 1, len(split.children) - 1))
            return MergeChildren(split.id, start, end, data.draw(st.integers(start, end)))
        case "resize-grid":
            grid = data.draw(st.sampled_from(grids))
            rows = data.draw(st.lists(weights, min_size=len(grid.rows), max_size=len(grid.rows)))
            cols = data.draw(st.lists(weights, min_size=len(grid.cols), max_size=len(grid.cols)))
            return ResizeGrid(grid.id, tuple(rows), tuple(cols))
        case "merge-cells":
            # The rectangle around two cells: often mergeable, sometimes cutting through a merged cell.
            grid = data.draw(st.sampled_from(grids))
            first, second = data.draw(st.lists(st.sampled_from(grid.cells), min_size=2, max_size=2, unique=True))
            top, left = min(first.row, second.row), min(first.col, second.col)
            bottom = max(first.row + first.row_span, second.row + second.row_span)
            right = max(first.col + first.col_span, second.col + second.col_span)
            return MergeCells(grid.id, top, left, bottom - top, right - left)
        case "unmerge":
            grid = data.draw(st.sampled_from(grids))
            merged = [cell for cell in grid.cells if cell.row_span > 1 or cell.col_span > 1] or list(grid.cells)
            chosen = data.draw(st.sampled_from(merged))
            return UnmergeCell(grid.id, chosen.row + chosen.row_span - 1, chosen.col + chosen.col_span - 1)
        case _:
            grid = data.draw(st.sampled_from(grids))
            return SetGridSize(grid.id, data.draw(st.integers(1, 4)), data.draw(st.integers(1, 4)))


def _draw_selection(data: st.DataObject, root: Node, leaf_ids: list[str]) -> tuple[str, ...]:
    """Mostly a whole contiguous run of a split's children (mergeable), sometimes any leaves (often refused)."""
    splits = [node for node in iter_nodes(root) if isinstance(node, Split)]
    if splits and data.draw(st.booleans()):
        split = data.draw(st.sampled_from(splits))
        start = data.draw(st.integers(0, len(split.children) - 2))
        end = data.draw(st.integers(start + 1, len(split.children) - 1))
        chosen = [
            node.id
            for child in split.children[start : end + 1]
            for node in iter_nodes(child.node)
            if isinstance(node, Leaf)
        ]
        if len(chosen) >= 2:
            return tuple(chosen)
    return tuple(data.draw(st.lists(st.sampled_from(leaf_ids), min_size=2, max_size=4, unique=True)))


# ------------------------------------------------------------------------------------------- checks


def assert_invariants(layout: Layout) -> None:
    root = layout.root
    nodes = list(iter_nodes(root))
    node_ids = [node.id for node in nodes]
    assert len(node_ids) == len(set(node_ids)), "node ids are unique"
    for node in nodes:
        match node:
            case Split():
                assert node.direction in (Direction.ROW, Direction.COLUMN)
                assert len(node.children) >= 2, "a split has two children or more"
                assert all(math.isfinite(child.weight) and child.weight > 0 for child in node.children)
            case Grid():
                assert_grid_tiles(node)
            case Leaf() | UnknownNode():
                pass
    cells = leaves(root)
    agents = [leaf.agent for leaf in cells if leaf.agent is not None]
    sessions = [leaf.session for leaf in cells if leaf.session is not None]
    assert len(agents) == len(set(agents)), "an agent is pinned to one cell at most"
    assert len(sessions) == len(set(sessions)), "a session is shown by one cell at most"
    assert math.isclose(sum(w * h for _, _, w, h in leaf_rects(root).values()), 1.0), "cells fill the whole area"
    assert layout.zoomed is None or layout.zoomed in {leaf.id for leaf in cells}


def assert_grid_tiles(grid: Grid) -> None:
    assert len(grid.cells) >= 2, "a one-cell grid collapses"
    assert all(math.isfinite(weight) and weight > 0 for weight in grid.rows + grid.cols)
    slots = Counter(
        (row, col)
        for cell in grid.cells
        for row in range(cell.row, cell.row + cell.row_span)
        for col in range(cell.col, cell.col + cell.col_span)
    )
    expected = {(row, col) for row in range(len(grid.rows)) for col in range(len(grid.cols))}
    assert set(slots) == expected and set(slots.values()) == {1}, "every slot is covered exactly once"
    # Operations keep grids normalised: every inner line is the edge of some cell.
    assert set(range(1, len(grid.rows))) <= {cell.row for cell in grid.cells}
    assert set(range(1, len(grid.cols))) <= {cell.col for cell in grid.cells}


def assert_nothing_lost(before: Layout, op: LayoutOp, after: Layout, displaced: tuple[Leaf, ...]) -> None:
    before_cells = [node for node in iter_nodes(before.root) if isinstance(node, Leaf)]
    after_cells = [node for node in iter_nodes(after.root) if isinstance(node, Leaf)]
    assert all(leaf in before_cells for leaf in displaced), "displaced cells are reported as they were"
    reported_sessions = {leaf.session for leaf in displaced}
    reported_agents = {leaf.agent for leaf in displaced}
    sessions_before = {leaf.session for leaf in before_cells} - {None}
    sessions_after = {leaf.session for leaf in after_cells} - {None}
    agents_before = {leaf.agent for leaf in before_cells} - {None}
    agents_after = {leaf.agent for leaf in after_cells} - {None}
    assert sessions_before - sessions_after <= reported_sessions, "a session left the screen unreported"
    assert agents_before - agents_after <= reported_agents, "an agent pin vanished unreported"
    new_session = {op.session} if isinstance(op, SetSession) else set()
    new_agent = {op.agent} if isinstance(op, AssignAgent) else set()
    assert sessions_after <= sessions_before | new_session, "no session appears from nowhere"
    assert agents_after <= agents_before | new_agent, "no agent appears from nowhere"


def assert_round_trips(layout: Layout) -> None:
    document = LayoutDocument(layout.id, (layout,))
    decoded = decode_document(encode_document(document))
    assert decoded.repairs == ()
    assert decoded.document.active == Layout(layout.id, layout.name, layout.root, layout.kind)


@settings(
    max_examples=200,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=st.data(), steps=st.integers(min_value=1, max_value=30))
def test_random_operation_sequences_keep_the_invariants(data: st.DataObject, steps: int) -> None:
    counter = itertools.count(1)
    layout = default_document("L", "root-leaf").active

    for _ in range(steps):
        op = draw_op(data, layout)
        assert op_from_json(op.to_json()) == op
        try:
            applied = apply(layout, op, lambda: f"n{next(counter)}")
        except InvalidLayoutError as error:  # an operation must never produce a broken tree
            raise AssertionError(f"{op} broke the tree: {error.message}") from error
        except AppError as error:
            assert error.code in (ErrorCode.INVALID, ErrorCode.AGENT_ALREADY_RUNNING), error
            continue
        assert_invariants(applied.layout)
        assert_nothing_lost(layout, op, applied.layout, applied.displaced)
        assert_round_trips(applied.layout)
        layout = applied.layout


FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "layouts"
SAMPLES = [json.loads(path.read_text(encoding="utf-8")) for path in sorted(FIXTURES.glob("*.json"))]
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.floats() | st.sampled_from(["", "row", "leaf", "grid", "x"]),
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.sampled_from(["id", "node", "type"]), inner, max_size=3),
    max_leaves=6,
)


def _locations(value: Any) -> list[tuple[Any, Any]]:
    """Every (container, key) inside a JSON value, so that one of them can be replaced."""
    found: list[tuple[Any, Any]] = []
    keys = value.keys() if isinstance(value, dict) else range(len(value)) if isinstance(value, list) else []
    for key in keys:
        found.append((value, key))
        found.extend(_locations(value[key]))
    return found


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(data=st.data(), sample=st.sampled_from(SAMPLES))
def test_decoding_a_damaged_document_either_succeeds_or_names_the_problem(data: st.DataObject, sample: Any) -> None:
    document = copy.deepcopy(sample)
    for _ in range(data.draw(st.integers(1, 3))):
        container, key = data.draw(st.sampled_from(_locations(document)))
        if data.draw(st.booleans()):
            container[key] = data.draw(json_values)
        else:
            del container[key]
    try:
        decoded = decode_document(document)
    except InvalidLayoutError as error:
        assert error.code == ErrorCode.INVALID and error.message.startswith(error.path)
        return
    for layout in decoded.document.layouts:
        validate(layout.root)
    again = decode_document(encode_document(decoded.document))
    assert all("unknown node type" in repair for repair in again.repairs)
    assert again.document == decoded.document
