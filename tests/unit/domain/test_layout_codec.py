"""`layouts.json` decoding and encoding: byte-for-byte round trips, structural refusals with a JSON path, repairs.

Fixtures under tests/fixtures/layouts/:
- original_populated.json / original_default.json: the `-` and `+` sides of `.ideai/layouts.json` in
  reference 002 L470-544 (the last three closing lines sit outside the diff hunk).
- original_two_agents_before.json / _after.json: both sides of reference 004 L240-286; lines 25-28 and the
  closing lines lie outside the hunks and are the only text JSON allows there.
- spec_populated.json: the populated tree of spec 01 §5 (with `conversationId`).
- grid.json: the grid of spec 01 §5.1, a second layout, spans of 1 omitted as IdeA writes them.
- unknown_fields.json: unknown keys at every level and a node type this version does not know.
"""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest

from idea.domain.errors import ErrorCode
from idea.domain.layout import (
    Direction,
    Grid,
    GridCell,
    InvalidLayoutError,
    Layout,
    LayoutDocument,
    Leaf,
    Split,
    UnknownNode,
    Weighted,
    decode_document,
    default_document,
    encode_document,
    leaves,
)
from idea.infrastructure.fs import dump_json

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "layouts"
ALL_FIXTURES = sorted(path.name for path in FIXTURES.glob("*.json"))


def load(name: str) -> Any:
    return json.loads((FIXTURES / name).read_text(encoding="utf-8"))


def decode_fixture(name: str) -> LayoutDocument:
    return decode_document(load(name)).document


def leaf_json(node_id: str, **fields: Any) -> dict[str, Any]:
    return {"type": "leaf", "node": {"id": node_id, **fields}}


def split_json(node_id: str, direction: str, *children: Any) -> dict[str, Any]:
    return {"type": "split", "node": {"id": node_id, "direction": direction, "children": list(children)}}


def child(node: Any, weight: Any = 1.0) -> dict[str, Any]:
    return {"node": node, "weight": weight}


def document_with(root: Any) -> dict[str, Any]:
    return {
        "version": 1,
        "activeId": "L",
        "layouts": [{"id": "L", "name": "Default", "kind": "terminal", "tree": {"root": root}}],
    }


def grid_json(rows: list[float], cols: list[float], cells: list[Any]) -> dict[str, Any]:
    return {"type": "grid", "node": {"id": "g", "rows": rows, "cols": cols, "cells": cells}}


def cell_json(row: int, col: int, node_id: str, **spans: Any) -> dict[str, Any]:
    return {"row": row, "col": col, **spans, "node": leaf_json(node_id)}


# ------------------------------------------------------------------------------------------- round trips


def test_fixture_set_is_complete() -> None:
    assert ALL_FIXTURES == [
        "grid.json",
        "original_default.json",
        "original_populated.json",
        "original_two_agents_after.json",
        "original_two_agents_before.json",
        "spec_populated.json",
        "unknown_fields.json",
    ]


@pytest.mark.parametrize("name", ALL_FIXTURES)
def test_fixture_round_trips_byte_for_byte(name: str) -> None:
    text = (FIXTURES / name).read_text(encoding="utf-8")

    decoded = decode_document(json.loads(text))

    assert dump_json(encode_document(decoded.document)) == text


@pytest.mark.parametrize("name", [name for name in ALL_FIXTURES if name != "unknown_fields.json"])
def test_known_fixtures_need_no_repair(name: str) -> None:
    assert decode_document(load(name)).repairs == ()


def test_original_populated_sample_decodes_to_the_tree_it_shows() -> None:
    document = decode_fixture("original_populated.json")

    assert document.active_id == "1af250f0-65ef-4b78-8905-b1746673aee0"
    assert document.version == 1
    layout = document.active
    assert (layout.name, layout.kind, layout.zoomed) == ("Default", "terminal", None)
    assert layout.root == Split(
        "56ffe1e4-636c-458d-9ab2-7e278fd45897",
        Direction.ROW,
        (
            Weighted(
                Leaf(
                    "c3319a9a-1345-4fa2-b64e-5f3fe00d13d8",
                    session="4965c71a-f69f-4c06-90de-ecb81acff710",
                    agent="a6ced819-b893-4213-b003-9e9dc79b9641",
                    agent_was_running=True,
                ),
                1.0,
            ),
            Weighted(
                Split(
                    "8cf1c06e-2654-45a3-bf17-a9c2507da935",
                    Direction.COLUMN,
                    (
                        Weighted(
                            Leaf(
                                "69dc2e23-86f5-4770-84c4-b1b4b2c25299",
                                session="11fbf6b4-eb62-4420-95e9-feb2ff667c43",
                                agent="c932c770-cf36-4fb2-a966-71bb1644e4b4",
                                agent_was_running=True,
                            ),
                            1.0,
                        ),
                        Weighted(
                            Leaf(
                                "b9251e74-3bd5-43ee-90e5-e6bb87faab38",
                                session="69a3bf52-05ef-45c0-badf-26b0d8224f0e",
                                agent="aefdbd61-e3d4-4bc1-9f42-c259446a97b5",
                                agent_was_running=True,
                            ),
                            1.0,
                        ),
                    ),
                ),
                1.0,
            ),
        ),
    )


def test_original_default_sample_is_what_default_document_writes() -> None:
    expected = load("original_default.json")

    document = default_document("49c6b0fc-13c1-40f5-9464-d3248ab54597", "852f5128-5b98-4d36-9a18-e49a57fc4940")

    assert encode_document(document) == expected


def test_leaf_without_agent_was_running_reads_false_and_is_written_without_it() -> None:
    document = decode_fixture("original_two_agents_after.json")

    second = leaves(document.active.root)[1]

    assert second == Leaf(
        "71f5cc81-9bef-4b2b-b7dc-2e0a5a4eafcb",
        session="bb08a08e-71f3-4ab2-842c-71a8da5c74b4",
        agent="cd0b4cf1-1bef-4fae-ade5-f0a6b49bbaf5",
    )


def test_conversation_id_is_read_and_written_last() -> None:
    document = decode_fixture("spec_populated.json")
    qa = leaves(document.active.root)[2]

    encoded = encode_document(document)["layouts"][0]["tree"]["root"]["node"]["children"][1]["node"]["node"]

    assert qa.conversation_id == "aefdbd61-e3d4-4bc1-9f42-c259446a97b5"
    assert list(encoded["children"][1]["node"]["node"]) == [
        "id",
        "session",
        "agent",
        "agentWasRunning",
        "conversationId",
    ]


def test_key_order_matches_the_original_at_every_level() -> None:
    encoded = encode_document(decode_fixture("spec_populated.json"))
    layout = encoded["layouts"][0]
    root = layout["tree"]["root"]

    assert list(encoded) == ["version", "activeId", "layouts"]
    assert list(layout) == ["id", "name", "kind", "tree"]
    assert list(root) == ["type", "node"]
    assert list(root["node"]) == ["id", "direction", "children"]
    assert list(root["node"]["children"][0]) == ["node", "weight"]


def test_grid_document_decodes_spans_and_nested_split() -> None:
    document = decode_fixture("grid.json")
    grid = document.active.root

    assert isinstance(grid, Grid)
    assert (grid.id, grid.rows, grid.cols) == ("7d1e2c55-0a4b-4c1e-9d3f-5b8a6c2e1f00", (1.0, 1.0), (2.0, 1.0, 1.0))
    assert [(cell.row, cell.col, cell.row_span, cell.col_span) for cell in grid.cells] == [
        (0, 0, 2, 1),
        (0, 1, 1, 2),
        (1, 1, 1, 1),
        (1, 2, 1, 1),
    ]
    nested = grid.cells[3].node
    assert isinstance(nested, Split)
    assert [child.weight for child in nested.children] == [2.0, 1.0]
    assert [leaf.id[-2:] for leaf in leaves(grid)] == ["01", "02", "03", "05", "06"]
    assert document.layouts[1].root == Leaf("3c9e2f1a-0b4d-4e5f-a6b7-c8d9e0f1a2b3")


def test_grid_spans_of_one_are_written_without_span_keys() -> None:
    data = document_with(
        grid_json([1.0], [1.0, 1.0], [cell_json(0, 0, "a", rowSpan=1, colSpan=1), cell_json(0, 1, "b")])
    )

    cells = encode_document(decode_document(data).document)["layouts"][0]["tree"]["root"]["node"]["cells"]

    assert cells == [
        {"row": 0, "col": 0, "node": leaf_json("a")},
        {"row": 0, "col": 1, "node": leaf_json("b")},
    ]


def test_grid_built_in_code_encodes_in_the_spec_form() -> None:
    grid = Grid(
        "g",
        (1.0, 1.0),
        (1.0, 1.0),
        (
            GridCell(0, 0, Leaf("a", agent="x"), row_span=2),
            GridCell(0, 1, Leaf("b")),
            GridCell(1, 1, Leaf("c")),
        ),
    )
    document = LayoutDocument("L", (Layout("L", "Default", grid),))

    root = encode_document(document)["layouts"][0]["tree"]["root"]

    assert root == {
        "type": "grid",
        "node": {
            "id": "g",
            "rows": [1.0, 1.0],
            "cols": [1.0, 1.0],
            "cells": [
                {"row": 0, "col": 0, "rowSpan": 2, "node": leaf_json("a", agent="x")},
                {"row": 0, "col": 1, "node": leaf_json("b")},
                {"row": 1, "col": 1, "node": leaf_json("c")},
            ],
        },
    }
    assert decode_document(encode_document(document)).document == document


def test_unknown_keys_and_node_types_are_kept() -> None:
    decoded = decode_document(load("unknown_fields.json"))
    document = decoded.document
    root = document.active.root

    assert decoded.repairs == (
        "layouts[0].tree.root.node.children[1].node: unknown node type 'browser' kept as an empty cell",
    )
    assert document.extra == {"savedBy": "IdeA 0.9"}
    assert document.active.extra == {"color": "blue"}
    assert document.active.tree_extra == {"focus": "7a8b9c0d-1e2f-4a3b-c4d5-e6f7a8b9c0d1"}
    assert isinstance(root, Split)
    assert root.extra == {"resizable": False}
    assert root.children[0].extra == {"locked": True}
    assert root.children[0].node == Leaf(
        "7a8b9c0d-1e2f-4a3b-c4d5-e6f7a8b9c0d1",
        agent="a6ced819-b893-4213-b003-9e9dc79b9641",
        extra={"title": "Main", "colour": {"accent": "#88c0d0"}},
    )
    assert root.children[1].node == UnknownNode(
        "8b9c0d1e-2f3a-4b4c-d5e6-f7a8b9c0d1e2",
        {
            "type": "browser",
            "node": {"id": "8b9c0d1e-2f3a-4b4c-d5e6-f7a8b9c0d1e2", "url": "http://localhost:5173"},
            "since": 2,
        },
    )
    grid = root.children[2].node
    assert isinstance(grid, Grid)
    assert grid.extra == {"gap": 4}
    assert grid.cells[0].extra == {"label": "left"}


def test_encoded_output_does_not_share_state_with_the_document() -> None:
    document = decode_fixture("unknown_fields.json")

    encode_document(document)["layouts"][0]["tree"]["root"]["node"]["children"][0]["node"]["node"]["colour"][
        "accent"
    ] = "changed"

    assert encode_document(document) == load("unknown_fields.json")


def test_decoding_does_not_keep_references_to_the_input() -> None:
    data = load("unknown_fields.json")
    document = decode_document(data).document

    data["layouts"][0]["tree"]["root"]["node"]["children"][1]["node"]["node"]["url"] = "changed"

    assert encode_document(document) == load("unknown_fields.json")


def test_extra_is_read_only() -> None:
    leaf = leaves(decode_fixture("unknown_fields.json").active.root)[0]

    assert isinstance(leaf.extra, MappingProxyType)
    with pytest.raises(TypeError):
        leaf.extra["title"] = "other"  # type: ignore[index]


# ------------------------------------------------------------------------------------------- structural errors


def good() -> dict[str, Any]:
    return load("original_populated.json")


def mutate(change: Any) -> dict[str, Any]:
    data = good()
    change(data)
    return data


def root_of(data: dict[str, Any]) -> dict[str, Any]:
    return data["layouts"][0]["tree"]["root"]


def children_of(data: dict[str, Any]) -> list[dict[str, Any]]:
    return root_of(data)["node"]["children"]


def right_column(data: dict[str, Any]) -> list[dict[str, Any]]:
    return children_of(data)[1]["node"]["node"]["children"]


def second_layout(data: dict[str, Any]) -> None:
    copy_ = copy.deepcopy(data["layouts"][0])
    data["layouts"].append(copy_)


INVALID_DOCUMENTS: list[tuple[str, Any, str]] = [
    ("not an object", lambda: [1, 2], "the layouts document must be a JSON object"),
    ("no layouts", lambda: mutate(lambda d: d.pop("layouts")), "layouts: must be a non-empty array of layouts"),
    ("empty layouts", lambda: mutate(lambda d: d.update(layouts=[])), "layouts: must be a non-empty array of layouts"),
    ("version text", lambda: mutate(lambda d: d.update(version="1")), "version: must be an integer"),
    ("layout not object", lambda: mutate(lambda d: d.update(layouts=["x"])), "layouts[0]: must be a layout"),
    ("layout id missing", lambda: mutate(lambda d: d["layouts"][0].pop("id")), "layouts[0].id: missing layout id"),
    (
        "layout id empty",
        lambda: mutate(lambda d: d["layouts"][0].update(id="")),
        "layouts[0].id: layout id must be a non-empty string",
    ),
    (
        "duplicate layout id",
        lambda: mutate(second_layout),
        "layouts[1].id: duplicate layout id 1af250f0-65ef-4b78-8905-b1746673aee0",
    ),
    ("name number", lambda: mutate(lambda d: d["layouts"][0].update(name=3)), "layouts[0].name: must be a string"),
    (
        "tree missing",
        lambda: mutate(lambda d: d["layouts"][0].pop("tree")),
        "layouts[0].tree: must be an object holding the root node",
    ),
    (
        "root missing",
        lambda: mutate(lambda d: d["layouts"][0]["tree"].pop("root")),
        "layouts[0].tree.root: must be a node",
    ),
    (
        "node type missing",
        lambda: mutate(lambda d: root_of(d).pop("type")),
        "layouts[0].tree.root.type: must be a string naming the node type",
    ),
    (
        "node body not object",
        lambda: mutate(lambda d: root_of(d).update(node=[])),
        "layouts[0].tree.root.node: must be an object",
    ),
    (
        "node id missing",
        lambda: mutate(lambda d: right_column(d)[1]["node"]["node"].pop("id")),
        "layouts[0].tree.root.node.children[1].node.node.children[1].node.node.id: missing node id",
    ),
    (
        "node id number",
        lambda: mutate(lambda d: children_of(d)[0]["node"]["node"].update(id=7)),
        "layouts[0].tree.root.node.children[0].node.node.id: node id must be a non-empty string",
    ),
    (
        "duplicate node id",
        lambda: mutate(lambda d: right_column(d)[1]["node"]["node"].update(id="c3319a9a-1345-4fa2-b64e-5f3fe00d13d8")),
        "layouts[0].tree.root.node.children[1].node.node.children[1].node: "
        "duplicate node id c3319a9a-1345-4fa2-b64e-5f3fe00d13d8",
    ),
    (
        "split id reused by a leaf",
        lambda: mutate(lambda d: children_of(d)[0]["node"]["node"].update(id="56ffe1e4-636c-458d-9ab2-7e278fd45897")),
        "layouts[0].tree.root.node.children[0].node: duplicate node id 56ffe1e4-636c-458d-9ab2-7e278fd45897",
    ),
    (
        "bad direction",
        lambda: mutate(lambda d: root_of(d)["node"].update(direction="diagonal")),
        'layouts[0].tree.root.node.direction: must be "row" or "column"',
    ),
    (
        "children not array",
        lambda: mutate(lambda d: root_of(d)["node"].update(children={})),
        "layouts[0].tree.root.node.children: must be an array",
    ),
    (
        "weighted child not object",
        lambda: mutate(lambda d: children_of(d).__setitem__(0, "leaf")),
        "layouts[0].tree.root.node.children[0]: must be an object with a node and a weight",
    ),
    (
        "weight text",
        lambda: mutate(lambda d: children_of(d)[0].update(weight="1.0")),
        "layouts[0].tree.root.node.children[0].weight: must be a number",
    ),
    (
        "weight boolean",
        lambda: mutate(lambda d: children_of(d)[0].update(weight=True)),
        "layouts[0].tree.root.node.children[0].weight: must be a number",
    ),
    (
        "session number",
        lambda: mutate(lambda d: children_of(d)[0]["node"]["node"].update(session=12)),
        "layouts[0].tree.root.node.children[0].node.node.session: must be a non-empty string",
    ),
    (
        "agent empty",
        lambda: mutate(lambda d: children_of(d)[0]["node"]["node"].update(agent="")),
        "layouts[0].tree.root.node.children[0].node.node.agent: must be a non-empty string",
    ),
    (
        "agentWasRunning text",
        lambda: mutate(lambda d: children_of(d)[0]["node"]["node"].update(agentWasRunning="yes")),
        "layouts[0].tree.root.node.children[0].node.node.agentWasRunning: must be true or false",
    ),
]


@pytest.mark.parametrize(
    ("data", "message"),
    [(make, message) for _, make, message in INVALID_DOCUMENTS],
    ids=[name for name, _, _ in INVALID_DOCUMENTS],
)
def test_structural_problems_raise_with_their_path(data: Any, message: str) -> None:
    with pytest.raises(InvalidLayoutError) as raised:
        decode_document(data())

    assert raised.value.code == ErrorCode.INVALID
    assert raised.value.message == message
    assert message.startswith(raised.value.path)


INVALID_GRIDS: list[tuple[str, Any, str]] = [
    (
        "overlap",
        grid_json([1.0], [1.0, 1.0], [cell_json(0, 0, "a", colSpan=2), cell_json(0, 1, "b")]),
        "layouts[0].tree.root.node.cells[1]: overlaps cells[0] at row 0, column 1",
    ),
    (
        "gap",
        grid_json([1.0, 1.0], [1.0, 1.0], [cell_json(0, 0, "a", colSpan=2), cell_json(1, 0, "b")]),
        "layouts[0].tree.root.node: no cell covers row 1, column 1",
    ),
    (
        "span beyond the grid",
        grid_json([1.0], [1.0, 1.0], [cell_json(0, 0, "a"), cell_json(0, 1, "b", colSpan=2)]),
        "layouts[0].tree.root.node.cells[1]: reaches beyond the grid's 1 row and 2 columns",
    ),
    (
        "zero span",
        grid_json([1.0], [1.0, 1.0], [cell_json(0, 0, "a", rowSpan=0), cell_json(0, 1, "b")]),
        "layouts[0].tree.root.node.cells[0]: rowSpan and colSpan must be 1 or more",
    ),
    (
        "negative row",
        grid_json([1.0], [1.0, 1.0], [cell_json(-1, 0, "a"), cell_json(0, 1, "b")]),
        "layouts[0].tree.root.node.cells[0]: row and col must be 0 or more",
    ),
    (
        "row missing",
        grid_json([1.0], [1.0, 1.0], [{"col": 0, "node": leaf_json("a")}, cell_json(0, 1, "b")]),
        "layouts[0].tree.root.node.cells[0].row: must be an integer",
    ),
    (
        "span text",
        grid_json([1.0], [1.0, 1.0], [cell_json(0, 0, "a", colSpan="1"), cell_json(0, 1, "b")]),
        "layouts[0].tree.root.node.cells[0].colSpan: must be an integer",
    ),
    (
        "no rows",
        grid_json([], [1.0, 1.0], [cell_json(0, 0, "a"), cell_json(0, 1, "b")]),
        "layouts[0].tree.root.node.rows: must be a non-empty array of weights",
    ),
    (
        "cells not array",
        {"type": "grid", "node": {"id": "g", "rows": [1.0], "cols": [1.0], "cells": {}}},
        "layouts[0].tree.root.node.cells: must be an array",
    ),
    (
        "cell not object",
        grid_json([1.0], [1.0, 1.0], [cell_json(0, 0, "a"), 5]),
        "layouts[0].tree.root.node.cells[1]: must be a grid cell object",
    ),
    (
        "duplicate id inside a cell",
        grid_json([1.0], [1.0, 1.0], [cell_json(0, 0, "a"), cell_json(0, 1, "g")]),
        "layouts[0].tree.root.node.cells[1].node: duplicate node id g",
    ),
]


@pytest.mark.parametrize(
    ("root", "message"),
    [(root, message) for _, root, message in INVALID_GRIDS],
    ids=[name for name, _, _ in INVALID_GRIDS],
)
def test_grid_problems_raise_with_their_path(root: Any, message: str) -> None:
    with pytest.raises(InvalidLayoutError) as raised:
        decode_document(document_with(root))

    assert raised.value.message == message


# ------------------------------------------------------------------------------------------- repairs


def test_invalid_weights_are_reset_and_reported() -> None:
    root = split_json(
        "s",
        "row",
        child(leaf_json("a"), -1),
        child(leaf_json("b"), math.nan),
        child(leaf_json("c"), 0),
        {"node": leaf_json("d")},
        child(leaf_json("e"), 2),
    )

    decoded = decode_document(document_with(root))

    assert decoded.repairs == (
        "layouts[0].tree.root.node.children[0].weight: invalid weight -1 reset to 1.0",
        "layouts[0].tree.root.node.children[1].weight: invalid weight nan reset to 1.0",
        "layouts[0].tree.root.node.children[2].weight: invalid weight 0 reset to 1.0",
        "layouts[0].tree.root.node.children[3].weight: missing weight set to 1.0",
    )
    split = decoded.document.active.root
    assert isinstance(split, Split)
    assert [child.weight for child in split.children] == [1.0, 1.0, 1.0, 1.0, 2.0]


def test_infinite_grid_weights_are_reset() -> None:
    root = grid_json([math.inf], [1.0, 1e400], [cell_json(0, 0, "a"), cell_json(0, 1, "b")])

    decoded = decode_document(document_with(root))

    assert decoded.repairs == (
        "layouts[0].tree.root.node.rows[0]: invalid weight inf reset to 1.0",
        "layouts[0].tree.root.node.cols[1]: invalid weight inf reset to 1.0",
    )
    grid = decoded.document.active.root
    assert isinstance(grid, Grid)
    assert (grid.rows, grid.cols) == ((1.0,), (1.0, 1.0))


def test_single_child_split_collapses_into_the_child_which_keeps_the_split_weight() -> None:
    root = split_json(
        "outer",
        "row",
        child(leaf_json("a"), 1.0),
        child(split_json("lonely", "column", child(leaf_json("b"), 5.0)), 3.0),
    )

    decoded = decode_document(document_with(root))

    assert decoded.repairs == (
        "layouts[0].tree.root.node.children[1].node: split lonely has a single child; collapsed into it",
    )
    assert decoded.document.active.root == Split(
        "outer", Direction.ROW, (Weighted(Leaf("a"), 1.0), Weighted(Leaf("b"), 3.0))
    )


def test_empty_split_becomes_an_empty_leaf_with_its_id() -> None:
    decoded = decode_document(document_with(split_json("s", "row")))

    assert decoded.repairs == ("layouts[0].tree.root: split s has no children; replaced by an empty cell",)
    assert decoded.document.active.root == Leaf("s")


def test_single_cell_grid_collapses_into_its_node() -> None:
    decoded = decode_document(document_with(grid_json([1.0], [1.0], [cell_json(0, 0, "a")])))

    assert decoded.repairs == ("layouts[0].tree.root: grid g has a single cell; collapsed into it",)
    assert decoded.document.active.root == Leaf("a")


def test_later_duplicate_agent_pins_and_sessions_are_cleared() -> None:
    root = split_json(
        "s",
        "row",
        child(leaf_json("a", agent="x", session="s1")),
        child(leaf_json("b", agent="x", session="s2", agentWasRunning=True, conversationId="c")),
        child(leaf_json("c", session="s1", agent="y")),
    )

    decoded = decode_document(document_with(root))

    assert decoded.repairs == (
        "layouts[0].tree.root.node.children[1].node.node.agent: "
        "agent x is already pinned in this layout; pin cleared",
        "layouts[0].tree.root.node.children[2].node.node.session: "
        "session s1 is already shown in this layout; cleared",
    )
    assert leaves(decoded.document.active.root) == [
        Leaf("a", session="s1", agent="x"),
        Leaf("b", session="s2"),
        Leaf("c", agent="y"),
    ]


def test_the_same_agent_may_be_pinned_in_two_layouts() -> None:
    data = document_with(leaf_json("a", agent="x"))
    data["layouts"].append(
        {"id": "M", "name": "Other", "kind": "terminal", "tree": {"root": leaf_json("a", agent="x")}}
    )

    assert decode_document(data).repairs == ()


def test_active_id_naming_no_layout_activates_the_first() -> None:
    data = document_with(leaf_json("a"))
    data["activeId"] = "gone"

    decoded = decode_document(data)

    assert decoded.repairs == ("activeId: 'gone' names no layout; the first layout L is active",)
    assert decoded.document.active_id == "L"


def test_unknown_or_missing_kind_loads_as_terminal() -> None:
    data = document_with(leaf_json("a"))
    data["layouts"][0]["kind"] = "browser"
    data["layouts"].append({"id": "M", "name": "Other", "tree": {"root": leaf_json("b")}})

    decoded = decode_document(data)

    assert decoded.repairs == (
        "layouts[0].kind: unknown kind 'browser' loaded as \"terminal\"",
        'layouts[1].kind: missing; set to "terminal"',
    )
    assert [layout.kind for layout in decoded.document.layouts] == ["terminal", "terminal"]


def test_missing_version_is_set_to_one() -> None:
    data = document_with(leaf_json("a"))
    del data["version"]

    decoded = decode_document(data)

    assert decoded.repairs == ("version: missing; set to 1",)
    assert decoded.document.version == 1


def test_null_optional_leaf_fields_read_as_absent() -> None:
    decoded = decode_document(document_with(leaf_json("a", session=None, agent=None, agentWasRunning=None)))

    assert decoded.repairs == ()
    assert decoded.document.active.root == Leaf("a")


def test_unknown_keys_on_a_node_wrapper_are_dropped_and_reported() -> None:
    root = leaf_json("a")
    root["hint"] = 1

    decoded = decode_document(document_with(root))

    assert decoded.repairs == ("layouts[0].tree.root: dropped unknown keys 'hint'",)
    assert encode_document(decoded.document)["layouts"][0]["tree"]["root"] == leaf_json("a")


def test_a_repaired_document_encodes_to_a_document_needing_no_repair() -> None:
    root = split_json(
        "s", "row", child(split_json("t", "column", child(leaf_json("a"), 0)), math.nan), child(leaf_json("b"), 2)
    )
    first = decode_document(document_with(root))

    second = decode_document(encode_document(first.document))

    assert len(first.repairs) == 3
    assert second.repairs == ()
    assert second.document == first.document


def test_ids_used_twice_are_reissued_when_an_id_source_is_given() -> None:
    data = mutate(second_layout)
    right_column(data)[1]["node"]["node"]["id"] = "c3319a9a-1345-4fa2-b64e-5f3fe00d13d8"
    fresh = iter(f"fresh-{n}" for n in range(1, 10))

    decoded = decode_document(data, new_id=lambda: next(fresh))

    first, second = decoded.document.layouts
    assert first.id == "1af250f0-65ef-4b78-8905-b1746673aee0" and second.id == "fresh-2"
    assert "fresh-1" in [leaf.id for leaf in leaves(first.root)]  # the later leaf, kept with a new id
    assert "c3319a9a-1345-4fa2-b64e-5f3fe00d13d8" in [leaf.id for leaf in leaves(first.root)]
    assert len(decoded.notices) == 2 and all(n in decoded.repairs for n in decoded.notices)
    assert decoded.notices[-1] == (
        "layouts[1].id: layout id 1af250f0-65ef-4b78-8905-b1746673aee0 was used twice; the later one is now fresh-2"
    )
    again = decode_document(encode_document(decoded.document), new_id=lambda: next(fresh))
    assert again.notices == () and again.document == decoded.document
