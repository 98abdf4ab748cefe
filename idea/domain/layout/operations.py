"""Layout operations as values: what the user, a macro or a test asks a layout to do, and their JSON form.

Each command is a frozen dataclass with `to_json()` (the `{"op": ...}` form of spec 01 §6) and is read back by
`op_from_json`. Applying a command is `applying.apply`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from idea.domain.errors import AppError, invalid
from idea.domain.layout.tree import Direction


Position = Literal["before", "after"]
SessionPolicy = Literal["background", "stop"]


@dataclass(frozen=True)
class SplitCell:
    """Add an empty cell next to `target`: "after" is right/down, "before" is left/up."""

    target: str
    direction: Direction
    position: Position = "after"
    new_leaf_id: str | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "op": "split",
            "target": self.target,
            "direction": str(self.direction),
            "position": self.position,
        }
        if self.new_leaf_id is not None:
            data["newLeafId"] = self.new_leaf_id
        return data


@dataclass(frozen=True)
class CloseCell:
    """Remove a cell. `session_policy` is for the caller: the layout only reports what it displaced."""

    target: str
    session_policy: SessionPolicy = "background"

    def to_json(self) -> dict[str, Any]:
        return {"op": "close", "target": self.target, "sessionPolicy": self.session_policy}


@dataclass(frozen=True)
class ResizeSplit:
    container: str
    weights: tuple[float, ...]

    def to_json(self) -> dict[str, Any]:
        return {"op": "resize", "container": self.container, "weights": list(self.weights)}


@dataclass(frozen=True)
class ResizeGrid:
    grid: str
    rows: tuple[float, ...] | None = None
    cols: tuple[float, ...] | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"op": "resizeGrid", "grid": self.grid}
        if self.rows is not None:
            data["rows"] = list(self.rows)
        if self.cols is not None:
            data["cols"] = list(self.cols)
        return data


@dataclass(frozen=True)
class SetCount:
    """Set "N columns in this row" or "N rows in this column"."""

    container: str
    direction: Direction
    count: int

    def to_json(self) -> dict[str, Any]:
        return {"op": "setCount", "container": self.container, "direction": str(self.direction), "count": self.count}


@dataclass(frozen=True)
class MergeChildren:
    """Replace the children `start..end` (inclusive) of a split by the child at index `keep`."""

    container: str
    start: int
    end: int
    keep: int

    def to_json(self) -> dict[str, Any]:
        return {"op": "merge", "container": self.container, "from": self.start, "to": self.end, "keep": self.keep}


@dataclass(frozen=True)
class MergeLeaves:
    """Merge the selected cells into one; they must tile a contiguous range of a split or a grid rectangle."""

    leaf_ids: tuple[str, ...]
    keep: str | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"op": "mergeLeaves", "leaves": list(self.leaf_ids)}
        if self.keep is not None:
            data["keep"] = self.keep
        return data


@dataclass(frozen=True)
class MergeCells:
    grid: str
    row: int
    col: int
    row_span: int
    col_span: int
    keep: str | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "op": "mergeCells",
            "grid": self.grid,
            "row": self.row,
            "col": self.col,
            "rowSpan": self.row_span,
            "colSpan": self.col_span,
        }
        if self.keep is not None:
            data["keep"] = self.keep
        return data


@dataclass(frozen=True)
class UnmergeCell:
    """Split the merged cell covering (row, col) back into 1x1 cells; its content stays top-left."""

    grid: str
    row: int
    col: int

    def to_json(self) -> dict[str, Any]:
        return {"op": "unmergeCell", "grid": self.grid, "row": self.row, "col": self.col}


@dataclass(frozen=True)
class MakeGrid:
    target: str
    rows: int
    cols: int

    def to_json(self) -> dict[str, Any]:
        return {"op": "makeGrid", "target": self.target, "rows": self.rows, "cols": self.cols}


@dataclass(frozen=True)
class SetGridSize:
    grid: str
    rows: int
    cols: int

    def to_json(self) -> dict[str, Any]:
        return {"op": "setGridSize", "grid": self.grid, "rows": self.rows, "cols": self.cols}


@dataclass(frozen=True)
class MoveContent:
    """Swap what two cells hold (session, agent and resume fields)."""

    source: str
    destination: str

    def to_json(self) -> dict[str, Any]:
        return {"op": "moveSession", "from": self.source, "to": self.destination}


@dataclass(frozen=True)
class AssignAgent:
    target: str
    agent: str
    conversation_id: str | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"op": "assign", "target": self.target, "agent": self.agent}
        if self.conversation_id is not None:
            data["conversationId"] = self.conversation_id
        return data


@dataclass(frozen=True)
class SetSession:
    """Bind (or with None unbind) the live session a cell displays."""

    target: str
    session: str | None

    def to_json(self) -> dict[str, Any]:
        return {"op": "setSession", "target": self.target, "session": self.session}


@dataclass(frozen=True)
class SetAgentWasRunning:
    target: str
    value: bool

    def to_json(self) -> dict[str, Any]:
        return {"op": "setAgentWasRunning", "target": self.target, "value": self.value}


@dataclass(frozen=True)
class ClearCell:
    target: str

    def to_json(self) -> dict[str, Any]:
        return {"op": "clear", "target": self.target}


@dataclass(frozen=True)
class Equalize:
    """Give every child of a split or grid the same size; None equalises the whole tree."""

    container: str | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"op": "equalize"}
        if self.container is not None:
            data["container"] = self.container
        return data


@dataclass(frozen=True)
class ToggleZoom:
    target: str

    def to_json(self) -> dict[str, Any]:
        return {"op": "toggleZoom", "target": self.target}


LayoutOp = (
    SplitCell
    | CloseCell
    | ResizeSplit
    | ResizeGrid
    | SetCount
    | MergeChildren
    | MergeLeaves
    | MergeCells
    | UnmergeCell
    | MakeGrid
    | SetGridSize
    | MoveContent
    | AssignAgent
    | SetSession
    | SetAgentWasRunning
    | ClearCell
    | Equalize
    | ToggleZoom
)


class _Fields:
    """Typed access to the fields of one operation object; every field read is remembered."""

    def __init__(self, op: str, data: Mapping[str, Any]) -> None:
        self._op = op
        self._data = data
        self._read = {"op"}

    def _value(self, key: str) -> Any:
        self._read.add(key)
        return self._data.get(key)

    def _refuse(self, key: str, expected: str) -> AppError:
        return invalid(f"{self._op}.{key}: must be {expected}", field=key)

    def text(self, key: str) -> str:
        value = self._value(key)
        if not isinstance(value, str) or not value:
            raise self._refuse(key, "a non-empty string")
        return value

    def optional_text(self, key: str) -> str | None:
        return None if self._value(key) is None else self.text(key)

    def integer(self, key: str) -> int:
        value = self._value(key)
        if not isinstance(value, int) or isinstance(value, bool):
            raise self._refuse(key, "an integer")
        return value

    def boolean(self, key: str) -> bool:
        value = self._value(key)
        if not isinstance(value, bool):
            raise self._refuse(key, "true or false")
        return value

    def numbers(self, key: str) -> tuple[float, ...]:
        value = self._value(key)
        if not isinstance(value, list) or not all(
            isinstance(item, int | float) and not isinstance(item, bool) for item in value
        ):
            raise self._refuse(key, "an array of numbers")
        return tuple(float(item) for item in value)

    def optional_numbers(self, key: str) -> tuple[float, ...] | None:
        return None if self._value(key) is None else self.numbers(key)

    def texts(self, key: str) -> tuple[str, ...]:
        value = self._value(key)
        if not isinstance(value, list) or not all(isinstance(item, str) and item for item in value):
            raise self._refuse(key, "an array of non-empty strings")
        return tuple(value)

    def direction(self, key: str) -> Direction:
        value = self._value(key)
        if value not in (Direction.ROW, Direction.COLUMN):
            raise self._refuse(key, '"row" or "column"')
        return Direction(value)

    def choice(self, key: str, allowed: tuple[str, ...]) -> Any:
        """One of `allowed`; the first one when the field is absent."""
        value = self._value(key)
        if value is None:
            return allowed[0]
        if value not in allowed:
            raise self._refuse(key, " or ".join(f'"{option}"' for option in allowed))
        return value

    def refuse_unknown(self) -> None:
        unknown = [key for key in self._data if key not in self._read]
        if unknown:
            raise invalid(f"{self._op}: unknown field {unknown[0]!r}", field=unknown[0])


_PARSERS: dict[str, Callable[[_Fields], LayoutOp]] = {
    "split": lambda f: SplitCell(
        f.text("target"),
        f.direction("direction"),
        f.choice("position", ("after", "before")),
        f.optional_text("newLeafId"),
    ),
    "close": lambda f: CloseCell(f.text("target"), f.choice("sessionPolicy", ("background", "stop"))),
    "resize": lambda f: ResizeSplit(f.text("container"), f.numbers("weights")),
    "resizeGrid": lambda f: ResizeGrid(f.text("grid"), f.optional_numbers("rows"), f.optional_numbers("cols")),
    "setCount": lambda f: SetCount(f.text("container"), f.direction("direction"), f.integer("count")),
    "merge": lambda f: MergeChildren(f.text("container"), f.integer("from"), f.integer("to"), f.integer("keep")),
    "mergeLeaves": lambda f: MergeLeaves(f.texts("leaves"), f.optional_text("keep")),
    "mergeCells": lambda f: MergeCells(
        f.text("grid"),
        f.integer("row"),
        f.integer("col"),
        f.integer("rowSpan"),
        f.integer("colSpan"),
        f.optional_text("keep"),
    ),
    "unmergeCell": lambda f: UnmergeCell(f.text("grid"), f.integer("row"), f.integer("col")),
    "makeGrid": lambda f: MakeGrid(f.text("target"), f.integer("rows"), f.integer("cols")),
    "setGridSize": lambda f: SetGridSize(f.text("grid"), f.integer("rows"), f.integer("cols")),
    "moveSession": lambda f: MoveContent(f.text("from"), f.text("to")),
    "assign": lambda f: AssignAgent(f.text("target"), f.text("agent"), f.optional_text("conversationId")),
    "setSession": lambda f: SetSession(f.text("target"), f.optional_text("session")),
    "setAgentWasRunning": lambda f: SetAgentWasRunning(f.text("target"), f.boolean("value")),
    "clear": lambda f: ClearCell(f.text("target")),
    "equalize": lambda f: Equalize(f.optional_text("container")),
    "toggleZoom": lambda f: ToggleZoom(f.text("target")),
}


def op_from_json(data: Any) -> LayoutOp:
    """The command for one `{"op": ...}` object; INVALID names the offending field."""
    if not isinstance(data, Mapping):
        raise invalid("a layout operation must be a JSON object")
    name = data.get("op")
    parser = _PARSERS.get(name) if isinstance(name, str) else None
    if parser is None:
        raise invalid(f"unknown layout operation {name!r}")
    fields = _Fields(name, data)
    op = parser(fields)
    fields.refuse_unknown()
    return op
