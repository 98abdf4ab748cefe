"""Where each cell of a layout sits in the unit square: exact rectangles, so equal edges compare equal."""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from itertools import pairwise

from idea.domain.layout.tree import Direction, Grid, Node, Split

Rect = tuple[Fraction, Fraction, Fraction, Fraction]


def cell_rects(root: Node) -> dict[str, Rect]:
    """Exact rectangles of the cells (leaves and unknown nodes), so equal edges compare equal."""
    rects: dict[str, Rect] = {}
    _place(root, (Fraction(0), Fraction(0), Fraction(1), Fraction(1)), rects)
    return rects


def _place(node: Node, rect: Rect, rects: dict[str, Rect]) -> None:
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


def float_rect(rect: Rect) -> tuple[float, float, float, float]:
    x, y, width, height = rect
    return float(x), float(y), float(width), float(height)
