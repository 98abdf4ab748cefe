"""Layout operations, queries and named-layout functions on small fixture trees, compared as `layouts.json`."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from idea.domain.errors import AppError, ErrorCode
from idea.domain.layout import (
    Applied,
    AssignAgent,
    ClearCell,
    CloseCell,
    Direction,
    Equalize,
    Grid,
    GridCell,
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
    Weighted,
    apply,
    create_layout,
    decode_document,
    default_document,
    delete_layout,
    duplicate_layout,
    encode_document,
    find_leaf,
    find_node,
    first_empty_leaf,
    leaf_pinning_agent,
    leaf_rects,
    leaf_showing_session,
    leaves,
    neighbour,
    op_from_json,
    parent_of,
    rename_layout,
    replace_layout,
    set_active,
    validate,
)

ROW, COLUMN = Direction.ROW, Direction.COLUMN

# ------------------------------------------------------------------------------------------- JSON builders


def leaf(node_id: str, **fields: Any) -> dict[str, Any]:
    return {"type": "leaf", "node": {"id": node_id, **fields}}


def weighted(child: Any) -> dict[str, Any]:
    node, weight = child if isinstance(child, tuple) else (child, 1.0)
    return {"node": node, "weight": weight}


def row(node_id: str, *children: Any) -> dict[str, Any]:
    return {"type": "split", "node": {"id": node_id, "direction": "row", "children": [weighted(c) for c in children]}}


def column(node_id: str, *children: Any) -> dict[str, Any]:
    return {
        "type": "split",
        "node": {"id": node_id, "direction": "column", "children": [weighted(c) for c in children]},
    }


def cell(row_: int, col: int, node: Any, row_span: int = 1, col_span: int = 1) -> dict[str, Any]:
    data: dict[str, Any] = {"row": row_, "col": col}
    if row_span != 1:
        data["rowSpan"] = row_span
    if col_span != 1:
        data["colSpan"] = col_span
    data["node"] = node
    return data


def grid(node_id: str, rows: list[float], cols: list[float], *cells: dict[str, Any]) -> dict[str, Any]:
    return {"type": "grid", "node": {"id": node_id, "rows": rows, "cols": cols, "cells": list(cells)}}


def unknown(node_id: str) -> dict[str, Any]:
    return {"type": "browser", "node": {"id": node_id, "url": "http://localhost"}}


def two_by_two(**contents: dict[str, Any]) -> dict[str, Any]:
    """Grid g with a b / c d; keyword arguments give a cell's leaf fields."""
    return grid(
        "g",
        [1.0, 1.0],
        [1.0, 1.0],
        *(
            cell(r, c, leaf(name, **contents.get(name, {})))
            for (r, c), name in zip([(0, 0), (0, 1), (1, 0), (1, 1)], "abcd", strict=True)
        ),
    )


# ------------------------------------------------------------------------------------------- harness


def layout_of(root: dict[str, Any], zoomed: str | None = None) -> Layout:
    data = {
        "version": 1,
        "activeId": "L",
        "layouts": [{"id": "L", "name": "Main", "kind": "terminal", "tree": {"root": root}}],
    }
    decoded = decode_document(data)
    assert all("unknown node type 'browser'" in repair for repair in decoded.repairs)
    layout = decoded.document.active
    return layout if zoomed is None else Layout(layout.id, layout.name, layout.root, zoomed=zoomed)


def ids(*names: str) -> Callable[[], str]:
    """Hands out exactly `names`, in order; asking for one more fails the test."""
    remaining: Iterator[str] = iter(names)

    def new_id() -> str:
        return next(remaining)

    return new_id


def tree_json(layout: Layout) -> dict[str, Any]:
    return encode_document(LayoutDocument(layout.id, (layout,)))["layouts"][0]["tree"]["root"]


def run(root: dict[str, Any], op: LayoutOp, *new_ids: str, zoomed: str | None = None) -> Applied:
    return apply(layout_of(root, zoomed), op, ids(*new_ids))


def check(
    root: dict[str, Any], op: LayoutOp, expected: dict[str, Any], *new_ids: str, displaced: tuple[str, ...] = ()
) -> Applied:
    applied = run(root, op, *new_ids)
    assert tree_json(applied.layout) == expected
    assert tuple(each.id for each in applied.displaced) == displaced
    return applied


def refused(root: dict[str, Any], op: LayoutOp, *new_ids: str) -> AppError:
    with pytest.raises(AppError) as raised:
        run(root, op, *new_ids)
    return raised.value


# ------------------------------------------------------------------------------------------- split


def test_split_root_leaf_makes_a_split_with_the_new_leaf_after() -> None:
    check(leaf("a"), SplitCell("a", ROW), row("n2", leaf("a"), leaf("n1")), "n1", "n2")


def test_split_before_puts_the_new_leaf_left_or_above() -> None:
    check(leaf("a"), SplitCell("a", COLUMN, "before"), column("n2", leaf("n1"), leaf("a")), "n1", "n2")


def test_split_in_a_same_direction_parent_inserts_a_sibling_with_half_the_weight() -> None:
    before = row("s", (leaf("a"), 1.0), (leaf("b"), 3.0))

    check(before, SplitCell("b", ROW, "after", "x"), row("s", (leaf("a"), 1.0), (leaf("b"), 1.5), (leaf("x"), 1.5)))
    check(before, SplitCell("b", ROW, "before", "x"), row("s", (leaf("a"), 1.0), (leaf("x"), 1.5), (leaf("b"), 1.5)))


def test_split_across_the_parent_direction_nests_a_split_that_keeps_the_weight() -> None:
    before = row("s", (leaf("a"), 1.0), (leaf("b", agent="x"), 3.0))

    check(
        before,
        SplitCell("b", COLUMN),
        row("s", (leaf("a"), 1.0), (column("n2", leaf("b", agent="x"), leaf("n1")), 3.0)),
        "n1",
        "n2",
    )


def test_split_a_grid_cell_turns_the_cell_node_into_a_split() -> None:
    before = grid("g", [1.0], [1.0, 1.0], cell(0, 0, leaf("a")), cell(0, 1, leaf("b")))

    expected = grid("g", [1.0], [1.0, 1.0], cell(0, 0, leaf("a")), cell(0, 1, column("n2", leaf("b"), leaf("n1"))))
    check(before, SplitCell("b", COLUMN), expected, "n1", "n2")


def test_split_refusals() -> None:
    before = row("s", leaf("a"), leaf("b"))

    assert refused(before, SplitCell("a", ROW, "after", "b")).message == "node id b is already used in this layout"
    assert refused(before, SplitCell("s", ROW)).message == "node s is a split, not a cell"
    assert refused(before, SplitCell("a", "diagonal")).message == (  # type: ignore[arg-type]
        'direction must be "row" or "column", got \'diagonal\''
    )
    assert refused(before, SplitCell("a", ROW, "inside")).message == (  # type: ignore[arg-type]
        'position must be "before" or "after", got \'inside\''
    )
    missing = refused(before, SplitCell("zz", ROW))
    assert (missing.code, missing.message) == (ErrorCode.NOT_FOUND, "node zz is not in this layout")


# ------------------------------------------------------------------------------------------- close


def test_close_removes_the_leaf_and_reports_its_session() -> None:
    before = row("s", leaf("a"), leaf("b"), leaf("c", session="s1"))

    applied = check(before, CloseCell("c"), row("s", leaf("a"), leaf("b")), displaced=("c",))

    assert applied.displaced == (Leaf("c", session="s1"),)


def test_close_collapses_a_single_child_split_into_the_child_with_the_split_weight() -> None:
    before = row("s", (leaf("a"), 1.0), (column("t", (leaf("b"), 1.0), (leaf("c"), 5.0)), 3.0))

    check(before, CloseCell("b"), row("s", (leaf("a"), 1.0), (leaf("c"), 3.0)))


def test_close_the_root_leaf_empties_it() -> None:
    before = leaf("a", session="s1", agent="x", agentWasRunning=True, conversationId="c1")

    check(before, CloseCell("a"), leaf("a"), displaced=("a",))


def test_close_a_cell_of_an_unknown_type() -> None:
    check(row("s", leaf("a"), unknown("u")), CloseCell("u"), leaf("a"))


def test_close_in_a_grid_the_left_neighbour_absorbs_the_cell() -> None:
    expected = grid(
        "g", [1.0, 1.0], [1.0, 1.0], cell(0, 0, leaf("a"), col_span=2), cell(1, 0, leaf("c")), cell(1, 1, leaf("d"))
    )

    check(two_by_two(), CloseCell("b"), expected)


def test_close_in_a_grid_the_right_neighbour_absorbs_when_there_is_no_left_one() -> None:
    expected = grid(
        "g", [1.0, 1.0], [1.0, 1.0], cell(0, 0, leaf("b"), col_span=2), cell(1, 0, leaf("c")), cell(1, 1, leaf("d"))
    )

    check(two_by_two(), CloseCell("a"), expected)


def tall_left() -> dict[str, Any]:
    """a spans both rows on the left; b above c on the right."""
    return grid(
        "g", [1.0, 3.0], [1.0, 1.0], cell(0, 0, leaf("a"), row_span=2), cell(0, 1, leaf("b")), cell(1, 1, leaf("c"))
    )


def test_close_in_a_grid_the_upper_neighbour_absorbs_and_the_unused_row_line_goes() -> None:
    # a's row span differs from c's, so c goes to b above; no cell then uses the row line: rows merge (1 + 3).
    expected = grid("g", [4.0], [1.0, 1.0], cell(0, 0, leaf("a")), cell(0, 1, leaf("b")))

    check(tall_left(), CloseCell("c"), expected)


def test_close_in_a_grid_the_lower_neighbour_absorbs_last() -> None:
    expected = grid("g", [4.0], [1.0, 1.0], cell(0, 0, leaf("a")), cell(0, 1, leaf("c")))

    check(tall_left(), CloseCell("b"), expected)


def pinwheel() -> dict[str, Any]:
    """Four cells turning around the centre e: no neighbour of e shares a whole edge with it."""
    return grid(
        "g",
        [1.0, 1.0, 1.0],
        [1.0, 1.0, 1.0],
        cell(0, 0, leaf("a"), col_span=2),
        cell(0, 2, leaf("b"), row_span=2),
        cell(1, 0, leaf("d"), row_span=2),
        cell(1, 1, leaf("e", agent="x")),
        cell(2, 1, leaf("c"), col_span=2),
    )


def test_close_in_a_grid_without_a_matching_neighbour_leaves_an_empty_cell() -> None:
    expected = pinwheel()
    expected["node"]["cells"][3] = cell(1, 1, leaf("e"))

    check(pinwheel(), CloseCell("e"), expected, displaced=("e",))


def test_close_leaving_one_grid_cell_collapses_the_grid_into_it_with_the_grid_weight() -> None:
    before = row(
        "s", (leaf("a"), 1.0), (grid("g", [1.0], [1.0, 1.0], cell(0, 0, leaf("b")), cell(0, 1, leaf("c"))), 2.0)
    )

    check(before, CloseCell("c"), row("s", (leaf("a"), 1.0), (leaf("b"), 2.0)))


def test_closing_the_zoomed_leaf_clears_zoom_and_closing_another_keeps_it() -> None:
    before = row("s", leaf("a"), leaf("b"), leaf("c"))

    assert run(before, CloseCell("b"), zoomed="b").layout.zoomed is None
    assert run(before, CloseCell("c"), zoomed="b").layout.zoomed == "b"


def test_close_keeps_the_policy_for_the_caller() -> None:
    assert CloseCell("a", "stop").to_json() == {"op": "close", "target": "a", "sessionPolicy": "stop"}


# ------------------------------------------------------------------------------------------- resize


def test_resize_split_replaces_the_weights() -> None:
    check(row("s", leaf("a"), leaf("b")), ResizeSplit("s", (2.0, 0.5)), row("s", (leaf("a"), 2.0), (leaf("b"), 0.5)))


@pytest.mark.parametrize(
    ("weights", "message"),
    [
        ((1.0, 1.0, 1.0), "split s has 2 children but 3 weights were given"),
        ((1.0, 0.0), "weights must be finite numbers greater than 0"),
        ((1.0, -2.0), "weights must be finite numbers greater than 0"),
        ((float("nan"), 1.0), "weights must be finite numbers greater than 0"),
        ((float("inf"), 1.0), "weights must be finite numbers greater than 0"),
    ],
)
def test_resize_split_refusals(weights: tuple[float, ...], message: str) -> None:
    error = refused(row("s", leaf("a"), leaf("b")), ResizeSplit("s", weights))

    assert (error.code, error.message) == (ErrorCode.INVALID, message)


def test_resize_split_needs_a_split() -> None:
    assert refused(row("s", leaf("a"), leaf("b")), ResizeSplit("a", (1.0,))).message == "node a is a cell, not a split"


def test_resize_grid_rows_only() -> None:
    expected = two_by_two()
    expected["node"]["rows"] = [1.0, 3.0]

    check(two_by_two(), ResizeGrid("g", rows=(1.0, 3.0)), expected)


def test_resize_grid_refusals() -> None:
    assert (
        refused(two_by_two(), ResizeGrid("g", cols=(1.0,))).message == "grid g has 2 columns but 1 weights were given"
    )
    assert (
        refused(two_by_two(), ResizeGrid("g", rows=(1.0, 0.0))).message
        == "weights must be finite numbers greater than 0"
    )
    assert refused(two_by_two(), ResizeGrid("g")).message == "resizeGrid needs row weights, column weights or both"
    assert refused(two_by_two(), ResizeGrid("a", rows=(1.0,))).message == "node a is a cell, not a grid"


# ------------------------------------------------------------------------------------------- setCount


def test_set_count_on_a_leaf_makes_a_split_with_the_leaf_first() -> None:
    check(
        leaf("a", agent="x"),
        SetCount("a", ROW, 3),
        row("n1", leaf("a", agent="x"), leaf("n2"), leaf("n3")),
        "n1",
        "n2",
        "n3",
    )


def test_set_count_on_a_same_direction_split_appends_empty_leaves_with_equal_weights() -> None:
    before = row("s", (leaf("a"), 2.0), (leaf("b"), 1.0))

    check(before, SetCount("s", ROW, 4), row("s", leaf("a"), leaf("b"), leaf("n1"), leaf("n2")), "n1", "n2")


def test_set_count_removes_empty_leaves_from_the_end() -> None:
    before = row("s", (leaf("a", agent="x"), 3.0), leaf("b"), leaf("c"), leaf("d"))

    check(before, SetCount("s", ROW, 2), row("s", leaf("a", agent="x"), leaf("b")))


def test_set_count_may_remove_an_empty_nested_split() -> None:
    check(row("s", leaf("a"), column("t", leaf("b"), leaf("c"))), SetCount("s", ROW, 1), leaf("a"))


@pytest.mark.parametrize(
    "last",
    [leaf("b", session="s1"), leaf("b", agent="x"), column("t", leaf("b"), leaf("c", session="s1")), unknown("u")],
    ids=["session", "agent", "nested session", "unknown node"],
)
def test_set_count_refuses_to_remove_occupied_cells(last: dict[str, Any]) -> None:
    error = refused(row("s", leaf("a"), last), SetCount("s", ROW, 1))

    assert (error.code, error.message) == (ErrorCode.INVALID, "cannot remove occupied cells")


def test_set_count_one_collapses_the_split() -> None:
    check(row("s", leaf("a", agent="x"), leaf("b")), SetCount("s", ROW, 1), leaf("a", agent="x"))


def test_set_count_one_on_a_leaf_changes_nothing() -> None:
    check(row("s", leaf("a"), leaf("b")), SetCount("a", COLUMN, 1), row("s", leaf("a"), leaf("b")))


def test_set_count_across_the_split_direction_wraps_it() -> None:
    before = row("s", leaf("a"), leaf("b"))

    check(before, SetCount("s", COLUMN, 2), column("n1", row("s", leaf("a"), leaf("b")), leaf("n2")), "n1", "n2")


@pytest.mark.parametrize("count", [0, 13, -1])
def test_set_count_range(count: int) -> None:
    assert refused(leaf("a"), SetCount("a", ROW, count)).message == f"count must be between 1 and 12, got {count}"


def test_set_count_on_a_grid_is_refused() -> None:
    assert refused(two_by_two(), SetCount("g", ROW, 2)).message == "grid g is resized with setGridSize, not setCount"


# ------------------------------------------------------------------------------------------- merge (split children)


def test_merge_keeps_the_chosen_child_with_the_summed_weight() -> None:
    before = row("s", (leaf("a"), 1.0), (leaf("b", session="s1"), 2.0), (leaf("c", agent="x"), 3.0), (leaf("d"), 1.0))

    applied = check(
        before,
        MergeChildren("s", 1, 2, 2),
        row("s", (leaf("a"), 1.0), (leaf("c", agent="x"), 5.0), (leaf("d"), 1.0)),
        displaced=("b",),
    )

    assert applied.displaced == (Leaf("b", session="s1"),)


def test_merge_of_all_children_is_the_original_merge_and_collapses() -> None:
    before = row("s", leaf("a", agent="x"), column("t", leaf("b", agent="y"), leaf("c")))

    check(before, MergeChildren("s", 0, 1, 1), column("t", leaf("b", agent="y"), leaf("c")), displaced=("a",))


@pytest.mark.parametrize(
    ("op", "message"),
    [
        (MergeChildren("s", 2, 5, 3), "children 2..5 are not a range of split s, which has 4"),
        (MergeChildren("s", 2, 1, 1), "children 2..1 are not a range of split s, which has 4"),
        (MergeChildren("s", 1, 1, 1), "a merge needs at least two children"),
        (MergeChildren("s", 0, 1, 3), "keep index 3 is outside the merged range 0..1"),
        (MergeChildren("a", 0, 1, 0), "node a is a cell, not a split"),
    ],
)
def test_merge_refusals(op: MergeChildren, message: str) -> None:
    assert refused(row("s", leaf("a"), leaf("b"), leaf("c"), leaf("d")), op).message == message


def test_merge_away_the_zoomed_leaf_clears_zoom() -> None:
    applied = run(row("s", leaf("a"), leaf("b"), leaf("c")), MergeChildren("s", 0, 1, 1), zoomed="a")

    assert applied.layout.zoomed is None


# ------------------------------------------------------------------------------------------- merge selected leaves


def test_merge_leaves_in_a_split_keeps_the_first_occupied_in_reading_order() -> None:
    before = row("s", leaf("a"), (leaf("b", agent="x"), 2.0), leaf("c"))

    check(before, MergeLeaves(("a", "b")), row("s", (leaf("b", agent="x"), 3.0), (leaf("c"), 1.0)))


def test_merge_leaves_covering_a_nested_child_become_one_leaf() -> None:
    before = row("s", leaf("a"), column("t", leaf("b"), leaf("c", session="s1")), leaf("d"))

    check(
        before, MergeLeaves(("c", "a", "b"), keep="a"), row("s", (leaf("a"), 2.0), (leaf("d"), 1.0)), displaced=("c",)
    )


def test_merge_leaves_meeting_in_a_nested_container() -> None:
    before = row("s", leaf("a"), (grid("g", [1.0], [1.0, 1.0], cell(0, 0, leaf("b")), cell(0, 1, leaf("c"))), 2.0))

    check(before, MergeLeaves(("b", "c")), row("s", (leaf("a"), 1.0), (leaf("b"), 2.0)))


def test_merge_leaves_in_a_grid_rectangle() -> None:
    expected = grid(
        "g", [1.0, 1.0], [1.0, 1.0], cell(0, 0, leaf("c"), row_span=2), cell(0, 1, leaf("b")), cell(1, 1, leaf("d"))
    )

    check(two_by_two(a={"session": "s1"}), MergeLeaves(("a", "c"), keep="c"), expected, displaced=("a",))


def test_merge_all_leaves_of_a_grid_collapses_it() -> None:
    check(two_by_two(d={"agent": "x"}), MergeLeaves(("a", "b", "c", "d")), leaf("d", agent="x"))


@pytest.mark.parametrize(
    ("root", "selection"),
    [
        (row("s", leaf("a"), leaf("b"), leaf("c")), ("a", "c")),
        (row("s", leaf("a"), column("t", leaf("b"), leaf("c"))), ("a", "b")),
        (two_by_two(), ("a", "b", "c")),
        (two_by_two(), ("a", "d")),
        (pinwheel(), ("a", "e")),
    ],
    ids=["gap in a split", "part of a nested split", "L shape", "diagonal", "cuts a merged cell"],
)
def test_merge_leaves_refuses_what_is_not_a_rectangle(root: dict[str, Any], selection: tuple[str, ...]) -> None:
    assert refused(root, MergeLeaves(selection)).message == "the selected cells do not form a rectangle"


def test_merge_leaves_other_refusals() -> None:
    assert refused(two_by_two(), MergeLeaves(("a",))).message == "select at least two cells to merge"
    assert refused(two_by_two(), MergeLeaves(("a", "a"))).message == "select at least two cells to merge"
    assert refused(two_by_two(), MergeLeaves(("a", "b"), keep="d")).message == "cell d is not among the selected cells"
    assert refused(two_by_two(), MergeLeaves(("a", "g"))).message == "node g is a grid, not a leaf"


# ------------------------------------------------------------------------------------------- grid operations


def test_merge_cells_keeps_the_first_occupied_cell_by_default() -> None:
    expected = grid(
        "g",
        [1.0, 1.0],
        [1.0, 1.0],
        cell(0, 0, leaf("b", agent="x"), col_span=2),
        cell(1, 0, leaf("c")),
        cell(1, 1, leaf("d")),
    )

    check(two_by_two(b={"agent": "x"}), MergeCells("g", 0, 0, 1, 2), expected)


def test_merge_cells_with_an_explicit_keep_reports_the_others() -> None:
    expected = grid(
        "g", [1.0, 1.0], [1.0, 1.0], cell(0, 0, leaf("a"), col_span=2), cell(1, 0, leaf("c")), cell(1, 1, leaf("d"))
    )

    check(two_by_two(b={"agent": "x"}), MergeCells("g", 0, 0, 1, 2, keep="a"), expected, displaced=("b",))


def test_merge_cells_holding_a_split_keeps_only_the_kept_leaf() -> None:
    before = grid(
        "g", [1.0], [1.0, 1.0], cell(0, 0, leaf("a")), cell(0, 1, column("t", leaf("b"), leaf("c", session="s1")))
    )

    check(before, MergeCells("g", 0, 0, 1, 2), leaf("c", session="s1"))


def test_merging_two_columns_drops_the_row_line_no_cell_uses() -> None:
    left_merged = grid(
        "g", [1.0, 2.0], [1.0, 1.0], cell(0, 0, leaf("a"), row_span=2), cell(0, 1, leaf("b")), cell(1, 1, leaf("d"))
    )

    check(
        left_merged,
        MergeCells("g", 0, 1, 2, 1),
        grid("g", [3.0], [1.0, 1.0], cell(0, 0, leaf("a")), cell(0, 1, leaf("b"))),
    )


@pytest.mark.parametrize(
    ("op", "message"),
    [
        (MergeCells("g", 0, 1, 2, 1), "the rectangle cuts through a merged cell"),
        (
            MergeCells("g", 1, 1, 2, 1),
            "the rectangle at row 1, column 1 spanning 2x1 is outside grid g (2 rows, 2 columns)",
        ),
        (
            MergeCells("g", 0, 0, 0, 1),
            "the rectangle at row 0, column 0 spanning 0x1 is outside grid g (2 rows, 2 columns)",
        ),
        (MergeCells("g", 0, 0, 1, 2), "the rectangle is already a single cell"),
        (MergeCells("g", 1, 0, 1, 2, keep="a"), "cell a is not inside the merged rectangle"),
        (MergeCells("s", 0, 0, 1, 2), "node s is a split, not a grid"),
    ],
)
def test_merge_cells_refusals(op: MergeCells, message: str) -> None:
    top_merged = grid(
        "g",
        [1.0, 1.0],
        [1.0, 1.0],
        cell(0, 0, leaf("a"), col_span=2),
        cell(1, 0, leaf("c")),
        cell(1, 1, row("s", leaf("d"), leaf("e"))),
    )

    assert refused(top_merged, op).message == message


def test_unmerge_keeps_the_content_top_left_and_adds_empty_leaves() -> None:
    top_merged = grid(
        "g",
        [1.0, 1.0],
        [1.0, 1.0],
        cell(0, 0, leaf("a", agent="x"), col_span=2),
        cell(1, 0, leaf("c")),
        cell(1, 1, leaf("d")),
    )

    expected = grid(
        "g",
        [1.0, 1.0],
        [1.0, 1.0],
        cell(0, 0, leaf("a", agent="x")),
        cell(0, 1, leaf("n1")),
        cell(1, 0, leaf("c")),
        cell(1, 1, leaf("d")),
    )
    check(top_merged, UnmergeCell("g", 0, 1), expected, "n1")


def test_unmerge_refusals() -> None:
    assert (
        refused(two_by_two(), UnmergeCell("g", 1, 0)).message == "the cell at row 1, column 0 of grid g is not merged"
    )
    assert refused(two_by_two(), UnmergeCell("g", 5, 0)).message == "row 5, column 0 is outside grid g"


def test_make_grid_puts_the_content_in_the_first_cell() -> None:
    expected = grid(
        "n1",
        [1.0, 1.0],
        [1.0, 1.0, 1.0],
        cell(0, 0, leaf("a", agent="x")),
        cell(0, 1, leaf("n2")),
        cell(0, 2, leaf("n3")),
        cell(1, 0, leaf("n4")),
        cell(1, 1, leaf("n5")),
        cell(1, 2, leaf("n6")),
    )

    check(leaf("a", agent="x"), MakeGrid("a", 2, 3), expected, "n1", "n2", "n3", "n4", "n5", "n6")


def test_make_grid_in_a_split_keeps_the_weight() -> None:
    before = row("s", (leaf("a"), 1.0), (leaf("b"), 2.0))

    expected = row(
        "s", (leaf("a"), 1.0), (grid("n1", [1.0, 1.0], [1.0], cell(0, 0, leaf("b")), cell(1, 0, leaf("n2"))), 2.0)
    )
    check(before, MakeGrid("b", 2, 1), expected, "n1", "n2")


def test_make_grid_refusals() -> None:
    assert refused(leaf("a"), MakeGrid("a", 0, 2)).message == "rows must be between 1 and 12, got 0"
    assert refused(leaf("a"), MakeGrid("a", 2, 13)).message == "cols must be between 1 and 12, got 13"
    assert refused(two_by_two(), MakeGrid("g", 2, 2)).message == "node g is a grid, not a cell"


def test_set_grid_size_grows_with_empty_cells_and_equal_weights() -> None:
    before = grid("g", [2.0], [1.0, 3.0], cell(0, 0, leaf("a")), cell(0, 1, leaf("b")))

    expected = grid(
        "g",
        [2.0, 1.0],
        [1.0, 3.0, 1.0],
        cell(0, 0, leaf("a")),
        cell(0, 1, leaf("b")),
        cell(0, 2, leaf("n1")),
        cell(1, 0, leaf("n2")),
        cell(1, 1, leaf("n3")),
        cell(1, 2, leaf("n4")),
    )
    check(before, SetGridSize("g", 2, 3), expected, "n1", "n2", "n3", "n4")


def test_set_grid_size_removes_trailing_empty_rows() -> None:
    before = two_by_two(a={"agent": "x"}, b={"session": "s1"})

    check(
        before,
        SetGridSize("g", 1, 2),
        grid("g", [1.0], [1.0, 1.0], cell(0, 0, leaf("a", agent="x")), cell(0, 1, leaf("b", session="s1"))),
    )


def test_set_grid_size_to_one_cell_collapses_the_grid() -> None:
    check(two_by_two(a={"agent": "x"}), SetGridSize("g", 1, 1), leaf("a", agent="x"))


def test_set_grid_size_refusals() -> None:
    assert refused(two_by_two(d={"session": "s1"}), SetGridSize("g", 2, 1)).message == "cannot remove occupied cells"
    assert refused(two_by_two(), SetGridSize("g", 0, 1)).message == "rows must be between 1 and 12, got 0"
    assert (
        refused(tall_left(), SetGridSize("g", 1, 2)).message == "cannot remove rows or columns crossed by merged cells"
    )


# ------------------------------------------------------------------------------------------- cell content


def test_move_session_preserves_resume_fields_on_both_leaves() -> None:
    before = row(
        "s",
        leaf("a", session="s1", agent="x", agentWasRunning=True, conversationId="c1"),
        leaf("b", agent="y", conversationId="c2"),
    )

    expected = row(
        "s",
        leaf("a", agent="y", conversationId="c2"),
        leaf("b", session="s1", agent="x", agentWasRunning=True, conversationId="c1"),
    )
    check(before, MoveContent("a", "b"), expected)


def test_move_content_to_an_empty_cell_keeps_its_extra_fields() -> None:
    before = row("s", leaf("a", agent="x", title="Main"), leaf("b", title="Spare"))

    check(before, MoveContent("a", "b"), row("s", leaf("a", title="Main"), leaf("b", agent="x", title="Spare")))


def test_move_content_refusals() -> None:
    assert (
        refused(row("s", leaf("a"), leaf("b")), MoveContent("a", "a")).message == "a cell cannot be moved onto itself"
    )
    assert refused(row("s", leaf("a"), leaf("b")), MoveContent("a", "s")).message == "node s is a split, not a leaf"


def test_assign_pins_an_agent_to_an_empty_leaf() -> None:
    check(
        row("s", leaf("a"), leaf("b")),
        AssignAgent("b", "x", "c1"),
        row("s", leaf("a"), leaf("b", agent="x", conversationId="c1")),
    )


def test_assign_an_agent_pinned_elsewhere_is_refused_with_the_host_cell() -> None:
    error = refused(row("s", leaf("a", agent="x"), leaf("b")), AssignAgent("b", "x"))

    assert (error.code, error.message, error.data) == (
        ErrorCode.AGENT_ALREADY_RUNNING,
        "agent x is already in cell a",
        {"nodeId": "a"},
    )


def test_assign_to_an_occupied_cell_is_refused() -> None:
    assert refused(row("s", leaf("a"), leaf("b", session="s1")), AssignAgent("b", "x")).message == "cell b is not empty"


def test_assign_again_to_the_same_cell_updates_the_conversation() -> None:
    before = leaf("a", agent="x", session="s1", conversationId="c1")

    check(before, AssignAgent("a", "x", "c2"), leaf("a", session="s1", agent="x", conversationId="c2"))
    check(before, AssignAgent("a", "x"), before)


def test_set_session_binds_a_session_and_takes_it_from_the_other_cell() -> None:
    before = row("s", leaf("a", session="s1", agent="x"), leaf("b"))

    check(before, SetSession("b", "s1"), row("s", leaf("a", agent="x"), leaf("b", session="s1")))


def test_set_session_replacing_a_session_reports_the_replaced_one() -> None:
    before = row("s", leaf("a", session="s1"), leaf("b", session="s2"))

    applied = check(before, SetSession("b", "s1"), row("s", leaf("a"), leaf("b", session="s1")), displaced=("b",))

    assert applied.displaced == (Leaf("b", session="s2"),)


def test_set_session_none_unbinds_and_reports() -> None:
    check(leaf("a", session="s1", agent="x"), SetSession("a", None), leaf("a", agent="x"), displaced=("a",))


def test_set_agent_was_running() -> None:
    check(leaf("a", agent="x"), SetAgentWasRunning("a", True), leaf("a", agent="x", agentWasRunning=True))
    check(leaf("a", agent="x", agentWasRunning=True), SetAgentWasRunning("a", False), leaf("a", agent="x"))
    check(leaf("a"), SetAgentWasRunning("a", False), leaf("a"))
    assert refused(leaf("a"), SetAgentWasRunning("a", True)).message == "cell a has no agent"


def test_clear_unpins_everything_but_keeps_unknown_fields() -> None:
    before = row(
        "s", leaf("a", session="s1", agent="x", agentWasRunning=True, conversationId="c1", title="Main"), leaf("b")
    )

    applied = check(before, ClearCell("a"), row("s", leaf("a", title="Main"), leaf("b")), displaced=("a",))

    assert applied.displaced[0].conversation_id == "c1"


def test_clear_an_empty_cell_displaces_nothing() -> None:
    check(leaf("a"), ClearCell("a"), leaf("a"))


# ------------------------------------------------------------------------------------------- equalize and zoom


def uneven() -> dict[str, Any]:
    inner = grid("g", [1.0, 2.0], [3.0], cell(0, 0, leaf("c")), cell(1, 0, leaf("d")))
    return row("s", (leaf("a"), 2.0), (column("t", (leaf("b"), 4.0), (inner, 5.0)), 3.0))


def test_equalize_one_container() -> None:
    expected = row(
        "s",
        leaf("a"),
        column(
            "t", (leaf("b"), 4.0), (grid("g", [1.0, 2.0], [3.0], cell(0, 0, leaf("c")), cell(1, 0, leaf("d"))), 5.0)
        ),
    )

    check(uneven(), Equalize("s"), expected)


def test_equalize_a_grid_and_the_whole_tree() -> None:
    flat_grid = grid("g", [1.0, 1.0], [1.0], cell(0, 0, leaf("c")), cell(1, 0, leaf("d")))

    check(uneven(), Equalize(), row("s", leaf("a"), column("t", leaf("b"), flat_grid)))
    check(uneven(), Equalize("g"), row("s", (leaf("a"), 2.0), (column("t", (leaf("b"), 4.0), (flat_grid, 5.0)), 3.0)))
    assert refused(uneven(), Equalize("a")).message == "node a is a cell, not a split or a grid"


def test_toggle_zoom() -> None:
    before = row("s", leaf("a"), leaf("b"))

    zoomed = run(before, ToggleZoom("a")).layout
    assert zoomed.zoomed == "a"
    assert apply(zoomed, ToggleZoom("a"), ids()).layout.zoomed is None
    assert apply(zoomed, ToggleZoom("b"), ids()).layout.zoomed == "b"
    assert apply(zoomed, ResizeSplit("s", (1.0, 2.0)), ids()).layout.zoomed == "a"
    assert refused(before, ToggleZoom("s")).message == "node s is a split, not a leaf"


def test_zoom_is_not_saved() -> None:
    layout = run(leaf("a"), ToggleZoom("a")).layout

    assert tree_json(layout) == leaf("a")
    assert "zoomed" not in encode_document(LayoutDocument("L", (layout,)))["layouts"][0]


def test_apply_does_not_change_its_input() -> None:
    layout = layout_of(row("s", leaf("a", session="s1"), leaf("b")))

    apply(layout, CloseCell("a"), ids())

    assert tree_json(layout) == row("s", leaf("a", session="s1"), leaf("b"))


def test_apply_refuses_an_invalid_tree() -> None:
    broken = Layout("L", "Main", Split("s", ROW, (Weighted(Leaf("a"), 1.0), Weighted(Leaf("a"), 1.0))))

    with pytest.raises(InvalidLayoutError) as raised:
        apply(broken, ClearCell("a"), ids())

    assert raised.value.message == "root.node.children[1].node: duplicate node id a"


# ------------------------------------------------------------------------------------------- queries


def sample() -> Layout:
    """a | (b over c), widths 1:3, heights 1:3."""
    return layout_of(
        row("s", (leaf("a", session="s1"), 1.0), (column("t", (leaf("b", agent="x"), 1.0), (leaf("c"), 3.0)), 3.0))
    )


def test_leaves_follow_reading_order() -> None:
    root = layout_of(row("s", column("t", leaf("a"), leaf("b")), leaf("c"))).root

    assert [each.id for each in leaves(root)] == ["a", "c", "b"]


def test_leaf_rects_from_weights() -> None:
    assert leaf_rects(sample().root) == {
        "a": (0.0, 0.0, 0.25, 1.0),
        "b": (0.25, 0.0, 0.75, 0.25),
        "c": (0.25, 0.25, 0.75, 0.75),
    }


def test_leaf_rects_of_a_grid_with_spans() -> None:
    root = layout_of(pinwheel()).root
    third = 1 / 3

    rects = leaf_rects(root)

    assert list(rects) == ["a", "b", "d", "e", "c"]
    assert rects["e"] == pytest.approx((third, third, third, third))
    assert rects["b"] == pytest.approx((2 * third, 0.0, third, 2 * third))


@pytest.mark.parametrize(
    ("start", "towards", "expected"),
    [
        ("a", "right", "c"),
        ("a", "left", None),
        ("a", "up", None),
        ("b", "left", "a"),
        ("b", "down", "c"),
        ("c", "up", "b"),
        ("c", "left", "a"),
        ("c", "down", None),
    ],
)
def test_neighbour_moves_focus_geometrically(start: str, towards: Any, expected: str | None) -> None:
    assert neighbour(sample().root, start, towards) == expected


def test_neighbour_level_with_a_boundary_prefers_the_upper_or_left_cell() -> None:
    root = layout_of(row("s", leaf("a"), column("t", leaf("b"), leaf("c")))).root

    assert neighbour(root, "a", "right") == "b"


def test_neighbour_in_a_grid_skips_nothing_and_crosses_spans() -> None:
    root = layout_of(pinwheel()).root

    assert [neighbour(root, "e", towards) for towards in ("left", "right", "up", "down")] == ["d", "b", "a", "c"]
    assert neighbour(root, "a", "down") == "d"


def test_neighbour_refusals() -> None:
    assert pytest.raises(AppError, neighbour, sample().root, "a", "sideways").value.message == (
        "unknown direction 'sideways'; expected left, right, up or down"
    )
    assert (
        pytest.raises(AppError, neighbour, sample().root, "t", "left").value.message == "node t is a split, not a leaf"
    )


def test_find_node_and_find_leaf() -> None:
    root = sample().root

    assert isinstance(find_node(root, "t"), Split)
    assert find_leaf(root, "b") == Leaf("b", agent="x")
    assert pytest.raises(AppError, find_node, root, "zz").value.code == ErrorCode.NOT_FOUND
    error = pytest.raises(AppError, find_leaf, root, "t").value
    assert (error.code, error.message) == (ErrorCode.INVALID, "node t is a split, not a leaf")


def test_parent_of() -> None:
    root = sample().root

    assert parent_of(root, "s") is None
    assert parent_of(root, "b") == find_node(root, "t")
    assert parent_of(root, "t") == root
    assert pytest.raises(AppError, parent_of, root, "zz").value.code == ErrorCode.NOT_FOUND


def test_content_lookups() -> None:
    root = sample().root

    assert leaf_showing_session(root, "s1") == Leaf("a", session="s1")
    assert leaf_showing_session(root, "s9") is None
    assert leaf_pinning_agent(root, "x") == Leaf("b", agent="x")
    assert leaf_pinning_agent(root, "y") is None
    assert first_empty_leaf(root) == Leaf("c")
    assert first_empty_leaf(Leaf("a", agent="x")) is None


def test_leaf_emptiness() -> None:
    assert Leaf("a").is_empty
    assert Leaf("a", conversation_id="c", agent_was_running=True).is_empty
    assert not Leaf("a", session="s").is_empty
    assert not Leaf("a", agent="x").is_empty


INVALID_TREES: list[tuple[str, Any, str]] = [
    (
        "duplicate id",
        Split("s", ROW, (Weighted(Leaf("a"), 1.0), Weighted(Leaf("s"), 1.0))),
        "root.node.children[1].node: duplicate node id s",
    ),
    ("lone child", Split("s", ROW, (Weighted(Leaf("a"), 1.0),)), "root: split s has fewer than two children"),
    (
        "zero weight",
        Split("s", ROW, (Weighted(Leaf("a"), 0.0), Weighted(Leaf("b"), 1.0))),
        "root.node.children[0].weight: must be a finite number greater than 0",
    ),
    (
        "bad direction",
        Split("s", "up", (Weighted(Leaf("a"), 1.0), Weighted(Leaf("b"), 1.0))),  # type: ignore[arg-type]
        'root.node.direction: must be "row" or "column"',
    ),
    ("empty id", Leaf(""), "root.node.id: node id must be a non-empty string"),
    ("not a node", "leaf", "root: not a layout node: str"),
    (
        "agent twice",
        Split("s", ROW, (Weighted(Leaf("a", agent="x"), 1.0), Weighted(Leaf("b", agent="x"), 1.0))),
        "root.node.children[1].node.node.agent: agent x is pinned to two cells",
    ),
    (
        "session twice",
        Split("s", ROW, (Weighted(Leaf("a", session="q"), 1.0), Weighted(Leaf("b", session="q"), 1.0))),
        "root.node.children[1].node.node.session: session q is shown by two cells",
    ),
    (
        "grid gap",
        Grid("g", (1.0,), (1.0, 1.0), (GridCell(0, 0, Leaf("a")),)),
        "root.node: no cell covers row 0, column 1",
    ),
    (
        "grid overlap",
        Grid("g", (1.0,), (1.0, 1.0), (GridCell(0, 0, Leaf("a"), col_span=2), GridCell(0, 1, Leaf("b")))),
        "root.node.cells[1]: overlaps cells[0] at row 0, column 1",
    ),
    ("grid one cell", Grid("g", (1.0,), (1.0,), (GridCell(0, 0, Leaf("a")),)), "root: grid g has a single cell"),
    ("grid no rows", Grid("g", (), (1.0,), ()), "root.node: a grid needs at least one row and one column"),
    (
        "grid weight",
        Grid("g", (1.0, -1.0), (1.0,), (GridCell(0, 0, Leaf("a")), GridCell(1, 0, Leaf("b")))),
        "root.node.rows: weights must be finite and greater than 0",
    ),
]


@pytest.mark.parametrize(
    ("root", "message"),
    [(root, message) for _, root, message in INVALID_TREES],
    ids=[name for name, _, _ in INVALID_TREES],
)
def test_validate_names_the_broken_invariant(root: Any, message: str) -> None:
    with pytest.raises(InvalidLayoutError) as raised:
        validate(root)

    assert raised.value.message == message


def test_validate_accepts_unknown_nodes_and_grids() -> None:
    validate(layout_of(row("s", unknown("u"), pinwheel())).root)


# ------------------------------------------------------------------------------------------- named layouts


def two_layouts() -> LayoutDocument:
    document = create_layout(default_document("L1", "a"), "L2", "Review", "b")
    return replace_layout(document, apply(document.layout("L1"), AssignAgent("a", "x", "c1"), ids()).layout)


def test_create_layout_appends_without_activating() -> None:
    document = create_layout(default_document("L1", "a"), "L2", "  Review  ", "b")

    assert document.active_id == "L1"
    assert [(layout.id, layout.name, layout.root) for layout in document.layouts] == [
        ("L1", "Default", Leaf("a")),
        ("L2", "Review", Leaf("b")),
    ]


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("   ", "a layout name cannot be empty"),
        ("x" * 65, "a layout name has at most 64 characters; this one has 65"),
        (" default ", "a layout named 'Default' already exists"),
        ("REVIEW", "a layout named 'Review' already exists"),
    ],
)
def test_layout_name_rules(name: str, message: str) -> None:
    assert pytest.raises(AppError, create_layout, two_layouts(), "L3", name, "c").value.message == message


def test_layout_name_of_64_characters_is_accepted() -> None:
    assert create_layout(two_layouts(), "L3", "é" * 64, "c").layouts[2].name == "é" * 64


def test_create_layout_with_a_taken_id_is_refused() -> None:
    assert pytest.raises(AppError, create_layout, two_layouts(), "L2", "Other", "c").value.message == (
        "a layout with id L2 already exists"
    )


def test_rename_layout() -> None:
    document = rename_layout(two_layouts(), "L2", "review ")

    assert document.layout("L2").name == "review"
    assert pytest.raises(AppError, rename_layout, document, "L2", "DEFAULT").value.message == (
        "a layout named 'Default' already exists"
    )
    assert pytest.raises(AppError, rename_layout, document, "L9", "x").value.code == ErrorCode.NOT_FOUND


def test_duplicate_layout_gets_fresh_ids_keeps_pins_and_drops_sessions() -> None:
    source = layout_of(
        row(
            "s",
            leaf("a", session="s1", agent="x", agentWasRunning=True, conversationId="c1"),
            grid("g", [1.0], [1.0, 1.0], cell(0, 0, leaf("b", session="s2")), cell(0, 1, unknown("u"))),
        )
    )
    document = LayoutDocument("L", (source,))

    copied = duplicate_layout(document, "L", "L2", "Copy", ids("n1", "n2", "n3", "n4", "n5")).layout("L2")

    assert tree_json(copied) == row(
        "n1",
        leaf("n2", agent="x", agentWasRunning=True, conversationId="c1"),
        grid(
            "n3",
            [1.0],
            [1.0, 1.0],
            cell(0, 0, leaf("n4")),
            cell(0, 1, {"type": "browser", "node": {"id": "n5", "url": "http://localhost"}}),
        ),
    )
    assert (copied.name, copied.kind) == ("Copy", "terminal")


def test_duplicate_layout_refusals() -> None:
    document = two_layouts()

    assert pytest.raises(AppError, duplicate_layout, document, "L1", "L2", "Copy", ids()).value.message == (
        "a layout with id L2 already exists"
    )
    assert pytest.raises(AppError, duplicate_layout, document, "L1", "L3", "review", ids()).value.message == (
        "a layout named 'Review' already exists"
    )


def test_delete_layout() -> None:
    document = set_active(two_layouts(), "L2")

    after_active = delete_layout(document, "L2")
    after_other = delete_layout(document, "L1")

    assert (after_active.active_id, [layout.id for layout in after_active.layouts]) == ("L1", ["L1"])
    assert (after_other.active_id, [layout.id for layout in after_other.layouts]) == ("L2", ["L2"])
    assert (
        pytest.raises(AppError, delete_layout, after_active, "L1").value.message == "the last layout cannot be deleted"
    )


def test_set_active_and_lookup() -> None:
    document = set_active(two_layouts(), "L2")

    assert document.active.name == "Review"
    error = pytest.raises(AppError, set_active, document, "L9").value
    assert (error.code, error.message) == (ErrorCode.NOT_FOUND, "layout L9 not found")


def test_replace_layout() -> None:
    document = two_layouts()
    changed = apply(document.layout("L2"), SplitCell("b", ROW), ids("n1", "n2")).layout

    replaced = replace_layout(document, changed)

    assert replaced.layout("L2") == changed
    assert replaced.layout("L1") == document.layout("L1")
    assert (
        pytest.raises(AppError, replace_layout, replaced, Layout("L9", "x", Leaf("a"))).value.code
        == ErrorCode.NOT_FOUND
    )
    with pytest.raises(InvalidLayoutError):
        replace_layout(replaced, Layout("L2", "Review", Split("s", ROW, (Weighted(Leaf("a"), 1.0),))))
    assert pytest.raises(AppError, replace_layout, replaced, Layout("L2", "default", Leaf("b"))).value.message == (
        "a layout named 'Default' already exists"
    )


def test_replace_layout_keeps_a_long_name_loaded_from_disk() -> None:
    long_name = "n" * 80
    document = LayoutDocument("L", (Layout("L", long_name, Leaf("a")),))

    changed = apply(document.active, SplitCell("a", ROW), ids("n1", "n2")).layout

    assert replace_layout(document, changed).active.name == long_name


# ------------------------------------------------------------------------------------------- operation JSON

SPEC_EXAMPLES: list[tuple[dict[str, Any], LayoutOp]] = [
    (
        {"op": "split", "target": "l", "direction": "row", "position": "after", "newLeafId": "n"},
        SplitCell("l", ROW, "after", "n"),
    ),
    ({"op": "close", "target": "l", "sessionPolicy": "background"}, CloseCell("l")),
    ({"op": "resize", "container": "s", "weights": [2.0, 1.0, 1.0]}, ResizeSplit("s", (2.0, 1.0, 1.0))),
    ({"op": "setCount", "container": "s", "direction": "row", "count": 3}, SetCount("s", ROW, 3)),
    ({"op": "merge", "container": "s", "from": 0, "to": 1, "keep": 1}, MergeChildren("s", 0, 1, 1)),
    ({"op": "moveSession", "from": "a", "to": "b"}, MoveContent("a", "b")),
    ({"op": "assign", "target": "l", "agent": "x"}, AssignAgent("l", "x")),
    ({"op": "clear", "target": "l"}, ClearCell("l")),
    ({"op": "makeGrid", "target": "l", "rows": 2, "cols": 3}, MakeGrid("l", 2, 3)),
    ({"op": "setGridSize", "grid": "g", "rows": 3, "cols": 3}, SetGridSize("g", 3, 3)),
    (
        {"op": "mergeCells", "grid": "g", "row": 0, "col": 1, "rowSpan": 1, "colSpan": 2, "keep": "l"},
        MergeCells("g", 0, 1, 1, 2, "l"),
    ),
    ({"op": "unmergeCell", "grid": "g", "row": 0, "col": 1}, UnmergeCell("g", 0, 1)),
    (
        {"op": "resizeGrid", "grid": "g", "rows": [1.0, 2.0], "cols": [1.0, 1.0, 1.0]},
        ResizeGrid("g", (1.0, 2.0), (1.0, 1.0, 1.0)),
    ),
]

IDEA_EXAMPLES: list[tuple[dict[str, Any], LayoutOp]] = [
    ({"op": "split", "target": "l", "direction": "column", "position": "before"}, SplitCell("l", COLUMN, "before")),
    ({"op": "close", "target": "l", "sessionPolicy": "stop"}, CloseCell("l", "stop")),
    ({"op": "mergeLeaves", "leaves": ["a", "b"], "keep": "b"}, MergeLeaves(("a", "b"), "b")),
    ({"op": "mergeLeaves", "leaves": ["a", "b"]}, MergeLeaves(("a", "b"))),
    ({"op": "mergeCells", "grid": "g", "row": 0, "col": 0, "rowSpan": 2, "colSpan": 1}, MergeCells("g", 0, 0, 2, 1)),
    ({"op": "resizeGrid", "grid": "g", "cols": [1.0, 3.0]}, ResizeGrid("g", cols=(1.0, 3.0))),
    ({"op": "assign", "target": "l", "agent": "x", "conversationId": "c"}, AssignAgent("l", "x", "c")),
    ({"op": "setSession", "target": "l", "session": "s1"}, SetSession("l", "s1")),
    ({"op": "setSession", "target": "l", "session": None}, SetSession("l", None)),
    ({"op": "setAgentWasRunning", "target": "l", "value": True}, SetAgentWasRunning("l", True)),
    ({"op": "equalize", "container": "s"}, Equalize("s")),
    ({"op": "equalize"}, Equalize()),
    ({"op": "toggleZoom", "target": "l"}, ToggleZoom("l")),
]


@pytest.mark.parametrize(
    ("data", "op"), SPEC_EXAMPLES + IDEA_EXAMPLES, ids=lambda value: value.get("op") if isinstance(value, dict) else ""
)
def test_operation_json_round_trip(data: dict[str, Any], op: LayoutOp) -> None:
    assert op_from_json(data) == op
    assert op.to_json() == data


def test_operation_json_defaults() -> None:
    assert op_from_json({"op": "split", "target": "l", "direction": "row"}) == SplitCell("l", ROW, "after", None)
    assert op_from_json({"op": "close", "target": "l"}) == CloseCell("l", "background")
    assert op_from_json({"op": "split", "target": "l", "direction": "row", "newLeafId": None}) == SplitCell("l", ROW)
    assert op_from_json({"op": "resize", "container": "s", "weights": [2, 1]}) == ResizeSplit("s", (2.0, 1.0))


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([], "a layout operation must be a JSON object"),
        ({"target": "l"}, "unknown layout operation None"),
        ({"op": "explode"}, "unknown layout operation 'explode'"),
        ({"op": "clear"}, "clear.target: must be a non-empty string"),
        ({"op": "clear", "target": ""}, "clear.target: must be a non-empty string"),
        ({"op": "clear", "target": "l", "force": True}, "clear: unknown field 'force'"),
        ({"op": "setCount", "container": "s", "direction": "row", "count": "3"}, "setCount.count: must be an integer"),
        ({"op": "setCount", "container": "s", "direction": "row", "count": True}, "setCount.count: must be an integer"),
        (
            {"op": "setCount", "container": "s", "direction": "up", "count": 3},
            'setCount.direction: must be "row" or "column"',
        ),
        (
            {"op": "split", "target": "l", "direction": "row", "position": "inside"},
            'split.position: must be "after" or "before"',
        ),
        (
            {"op": "close", "target": "l", "sessionPolicy": "kill"},
            'close.sessionPolicy: must be "background" or "stop"',
        ),
        ({"op": "resize", "container": "s", "weights": [1, "2"]}, "resize.weights: must be an array of numbers"),
        ({"op": "resize", "container": "s", "weights": [1, False]}, "resize.weights: must be an array of numbers"),
        ({"op": "mergeLeaves", "leaves": "a,b"}, "mergeLeaves.leaves: must be an array of non-empty strings"),
        ({"op": "setAgentWasRunning", "target": "l", "value": 1}, "setAgentWasRunning.value: must be true or false"),
    ],
)
def test_operation_json_refusals(data: Any, message: str) -> None:
    error = pytest.raises(AppError, op_from_json, data).value

    assert (error.code, error.message) == (ErrorCode.INVALID, message)
