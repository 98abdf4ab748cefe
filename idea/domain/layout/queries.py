"""Questions about a layout tree: its nodes and cells in reading order, finding a node or a leaf, its
parent, which leaf shows a session or pins an agent, the first empty cell, cell rectangles, and the
neighbour focus moves to.
"""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction
from typing import Literal

from idea.domain.errors import invalid, not_found
from idea.domain.layout.geometry import cell_rects, float_rect
from idea.domain.layout.tree import Grid, Leaf, Node, Split


def iter_nodes(root: Node) -> Iterator[Node]:
    """Every node, parents before children, in document order."""
    yield root
    for child in children(root):
        yield from iter_nodes(child)


def leaves(root: Node) -> list[Leaf]:
    """The leaves as read on screen: top to bottom, then left to right."""
    rects = cell_rects(root)
    return sorted(leaves_in(root), key=lambda leaf: (rects[leaf.id][1], rects[leaf.id][0]))


def find_node(root: Node, node_id: str) -> Node:
    for node in iter_nodes(root):
        if node.id == node_id:
            return node
    raise not_found(f"node {node_id} is not in this layout", nodeId=node_id)


def find_leaf(root: Node, leaf_id: str) -> Leaf:
    node = find_node(root, leaf_id)
    if not isinstance(node, Leaf):
        raise invalid(f"node {leaf_id} is a {node_kind(node)}, not a leaf", nodeId=leaf_id)
    return node


def parent_of(root: Node, node_id: str) -> Split | Grid | None:
    find_node(root, node_id)
    for node in iter_nodes(root):
        if isinstance(node, Split | Grid) and any(child.id == node_id for child in children(node)):
            return node
    return None


def leaf_showing_session(root: Node, session_id: str) -> Leaf | None:
    return next((leaf for leaf in leaves_in(root) if leaf.session == session_id), None)


def leaf_pinning_agent(root: Node, agent_id: str) -> Leaf | None:
    return next((leaf for leaf in leaves_in(root) if leaf.agent == agent_id), None)


def first_empty_leaf(root: Node) -> Leaf | None:
    return next((leaf for leaf in leaves(root) if leaf.is_empty), None)


def leaf_rects(root: Node) -> dict[str, tuple[float, float, float, float]]:
    """(x, y, width, height) of every leaf in the unit square, in reading order."""
    rects = cell_rects(root)
    return {leaf.id: float_rect(rects[leaf.id]) for leaf in leaves(root)}


def neighbour(root: Node, leaf_id: str, towards: Literal["left", "right", "up", "down"]) -> str | None:
    """The leaf focus moves to: the nearest one on that side level with the middle of `leaf_id`."""
    if towards not in ("left", "right", "up", "down"):
        raise invalid(f"unknown direction {towards!r}; expected left, right, up or down")
    find_leaf(root, leaf_id)
    every_cell = cell_rects(root)
    rects = {leaf.id: every_cell[leaf.id] for leaf in leaves_in(root)}
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


def children(node: Node) -> tuple[Node, ...]:
    match node:
        case Split():
            return tuple(child.node for child in node.children)
        case Grid():
            return tuple(cell.node for cell in node.cells)
        case _:
            return ()


def leaves_in(node: Node) -> list[Leaf]:
    return [each for each in iter_nodes(node) if isinstance(each, Leaf)]


def leaf_ids(node: Node) -> set[str]:
    return {leaf.id for leaf in leaves_in(node)}


def node_kind(node: Node) -> str:
    match node:
        case Leaf():
            return "cell"
        case Split():
            return "split"
        case Grid():
            return "grid"
        case _:
            return "cell of an unknown type"
