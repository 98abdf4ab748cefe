"""The layout tree of a project tab (spec 01 §4): cells (leaves) inside splits and spreadsheet grids,
immutable values. Unknown JSON keys ride along in `extra` and unknown node types in `UnknownNode`, so a
round trip through `layouts.json` keeps them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType
from typing import Any

from idea.domain.errors import AppError, ErrorCode

TERMINAL_KIND = "terminal"

NO_EXTRA: Mapping[str, Any] = MappingProxyType({})


def no_extra() -> Mapping[str, Any]:
    return NO_EXTRA


class Direction(StrEnum):
    ROW = "row"  # children side by side, left to right
    COLUMN = "column"  # children stacked, top to bottom


@dataclass(frozen=True)
class Leaf:
    """A cell: empty, or showing a live session and/or pinning an agent."""

    id: str
    session: str | None = None
    agent: str | None = None
    conversation_id: str | None = None
    agent_was_running: bool = False
    extra: Mapping[str, Any] = field(default_factory=no_extra, hash=False)  # unknown JSON keys, kept

    @property
    def is_empty(self) -> bool:
        return self.agent is None and self.session is None


@dataclass(frozen=True)
class Weighted:
    node: Node
    weight: float  # relative: the child's share is weight / sum of its siblings' weights
    extra: Mapping[str, Any] = field(default_factory=no_extra, hash=False)


@dataclass(frozen=True)
class Split:
    id: str
    direction: Direction
    children: tuple[Weighted, ...]
    extra: Mapping[str, Any] = field(default_factory=no_extra, hash=False)


@dataclass(frozen=True)
class GridCell:
    row: int
    col: int
    node: Node
    row_span: int = 1
    col_span: int = 1
    extra: Mapping[str, Any] = field(default_factory=no_extra, hash=False)


@dataclass(frozen=True)
class Grid:
    """Spreadsheet container: separators stay aligned across the grid; cells may span rectangles."""

    id: str
    rows: tuple[float, ...]
    cols: tuple[float, ...]
    cells: tuple[GridCell, ...]
    extra: Mapping[str, Any] = field(default_factory=no_extra, hash=False)


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
    tree_extra: Mapping[str, Any] = field(default_factory=no_extra, hash=False)
    extra: Mapping[str, Any] = field(default_factory=no_extra, hash=False)


class InvalidLayoutError(AppError):
    """A layout breaks a structural rule; the message starts with the JSON path of the problem."""

    def __init__(self, path: str, problem: str) -> None:
        super().__init__(ErrorCode.INVALID, f"{path}: {problem}" if path else problem, data={"path": path})
        self.path = path
        self.problem = problem
