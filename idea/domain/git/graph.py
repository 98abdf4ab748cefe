"""The lanes of the history graph (spec 07 §1): for each commit of a topologically sorted log, the column of
its dot and the line segments that join it to its children above and its parents below.

Pages of the log continue the same lanes: `layout` takes the lanes left open by the previous page.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

Lanes = tuple[str | None, ...]  # lane i waits for the commit id it holds (None: a free lane)


@dataclass(frozen=True, slots=True)
class GraphRow:
    column: int  # where the commit's dot is
    top: tuple[tuple[int, int], ...]  # segments from the row's top edge (lane) to its middle (lane)
    bottom: tuple[tuple[int, int], ...]  # segments from the row's middle (lane) to its bottom edge (lane)
    width: int  # lanes in use in this row

    @property
    def merge(self) -> bool:
        return sum(1 for start, _ in self.bottom if start == self.column) > 1


def layout(commits: Sequence[tuple[str, Sequence[str]]], lanes: Lanes = ()) -> tuple[list[GraphRow], Lanes]:
    """Rows for `commits` (id, parent ids), newest first in topological order, starting from `lanes`."""
    rows: list[GraphRow] = []
    current: list[str | None] = list(lanes)
    for oid, parents in commits:
        column = _column_for(current, oid)
        top = tuple(
            (i, column if expected == oid else i) for i, expected in enumerate(current) if expected is not None
        )
        following = [None if expected == oid else expected for expected in current]
        if column >= len(following):
            following.extend([None] * (column + 1 - len(following)))
        bottom: list[tuple[int, int]] = []
        started = {column}  # lanes that begin at this dot carry no line from above
        for number, parent in enumerate(parents):
            # The first parent continues the commit's own lane, even when another lane already waits for
            # it: the two lanes join where that parent is drawn, as `git log --graph` shows a fork.
            lane = column if number == 0 else _index(following, parent)
            if lane is None:
                lane = _free(following)
            if following[lane] != parent:
                following[lane] = parent
                started.add(lane)
            bottom.append((column, lane))
        bottom.extend((i, i) for i, expected in enumerate(following) if expected is not None and i not in started)
        while following and following[-1] is None:
            following.pop()
        width = max([column + 1, len(current), len(following), *(b + 1 for _, b in bottom)])
        rows.append(GraphRow(column, top, tuple(sorted(set(bottom))), width))
        current = following
    return rows, tuple(current)


def _column_for(lanes: list[str | None], oid: str) -> int:
    found = _index(lanes, oid)
    if found is not None:
        return found
    return _free(lanes)


def _index(lanes: list[str | None], oid: str) -> int | None:
    for i, expected in enumerate(lanes):
        if expected == oid:
            return i
    return None


def _free(lanes: list[str | None]) -> int:
    for i, expected in enumerate(lanes):
        if expected is None:
            return i
    lanes.append(None)
    return len(lanes) - 1
