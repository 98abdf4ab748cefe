"""A spreadsheet-like container: rows and columns with weights, cells spanning rectangles, and one
draggable separator per inner row or column boundary that moves that boundary across the whole grid.

QGridLayout has no draggable separators and QSplitter cannot keep boundaries aligned across rows, hence
this widget. Like the splitters, it resizes the cells only when a drag ends, so a drag costs each
terminal one resize instead of dozens.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from PySide6.QtCore import QPoint, QRect, Qt, Signal
from PySide6.QtGui import QMouseEvent, QResizeEvent
from PySide6.QtWidgets import QFrame, QWidget

HANDLE = 4
MIN_TRACK = 40


@dataclass(frozen=True)
class Placement:
    row: int
    col: int
    row_span: int
    col_span: int
    widget: QWidget


class _Handle(QFrame):
    """One segment of a boundary; dragging it moves the whole boundary."""

    def __init__(self, grid: SpreadsheetGrid, vertical: bool, boundary: int) -> None:
        super().__init__(grid)
        self.setObjectName("GridHandle")
        self.vertical = vertical  # a vertical handle separates columns
        self.boundary = boundary
        self.setCursor(Qt.CursorShape.SplitHCursor if vertical else Qt.CursorShape.SplitVCursor)
        self._grid = grid

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            self._grid._begin_drag(self)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        self._grid._drag_to(self.mapTo(self._grid, event.position().toPoint()))

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            self._grid._end_drag(self.mapTo(self._grid, event.position().toPoint()))


class SpreadsheetGrid(QWidget):
    """Emits `resized(rows, cols)` with the new weights when the user finishes dragging a separator."""

    resized = Signal(list, list)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._rows: list[float] = [1.0]
        self._cols: list[float] = [1.0]
        self._placements: list[Placement] = []
        self._handles: list[_Handle] = []
        self._dragging: _Handle | None = None
        self._preview = QFrame(self)
        self._preview.setObjectName("GridHandle")
        self._preview.setProperty("preview", True)
        self._preview.hide()

    # -- content --

    def set_structure(self, rows: Sequence[float], cols: Sequence[float], placements: list[Placement]) -> None:
        self._rows, self._cols = list(rows), list(cols)
        self._placements = placements
        for placement in placements:
            placement.widget.setParent(self)
            placement.widget.show()
        for handle in self._handles:
            handle.deleteLater()
        self._handles = self._build_handles()
        self._relayout()

    def set_weights(self, rows: Sequence[float], cols: Sequence[float]) -> None:
        self._rows, self._cols = list(rows), list(cols)
        self._relayout()

    @property
    def weights(self) -> tuple[list[float], list[float]]:
        return list(self._rows), list(self._cols)

    # -- geometry --

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._relayout()

    def _tracks(self, weights: Sequence[float], extent: int) -> list[tuple[int, int]]:
        """(start, size) of each row or column in pixels, separators included between them."""
        available = max(0, extent - HANDLE * (len(weights) - 1))
        total = sum(weights)
        tracks, position, used = [], 0, 0
        for index, weight in enumerate(weights):
            size = available - used if index == len(weights) - 1 else round(available * weight / total)
            tracks.append((position, size))
            position += size + HANDLE
            used += size
        return tracks

    def _relayout(self) -> None:
        rows = self._tracks(self._rows, self.height())
        cols = self._tracks(self._cols, self.width())
        for p in self._placements:
            top, left = rows[p.row][0], cols[p.col][0]
            bottom_start, bottom_size = rows[p.row + p.row_span - 1]
            right_start, right_size = cols[p.col + p.col_span - 1]
            p.widget.setGeometry(QRect(left, top, right_start + right_size - left, bottom_start + bottom_size - top))
        for handle in self._handles:
            handle.setGeometry(self._handle_rect(handle, rows, cols))

    def _handle_rect(self, handle: _Handle, rows: list[tuple[int, int]], cols: list[tuple[int, int]]) -> QRect:
        first, last = handle.property("span")
        if handle.vertical:
            x = cols[handle.boundary][0] - HANDLE
            top = rows[first][0]
            bottom = rows[last][0] + rows[last][1]
            return QRect(x, top, HANDLE, bottom - top)
        y = rows[handle.boundary][0] - HANDLE
        left = cols[first][0]
        right = cols[last][0] + cols[last][1]
        return QRect(left, y, right - left, HANDLE)

    def _owner(self) -> dict[tuple[int, int], int]:
        owner = {}
        for index, p in enumerate(self._placements):
            for r in range(p.row, p.row + p.row_span):
                for c in range(p.col, p.col + p.col_span):
                    owner[(r, c)] = index
        return owner

    def _build_handles(self) -> list[_Handle]:
        """One handle per run of slots where a boundary is not crossed by a spanning cell."""
        owner = self._owner()
        handles = []
        for boundary in range(1, len(self._cols)):
            cut = [owner.get((r, boundary - 1)) != owner.get((r, boundary)) for r in range(len(self._rows))]
            handles += [self._handle(True, boundary, run) for run in _runs(cut)]
        for boundary in range(1, len(self._rows)):
            cut = [owner.get((boundary - 1, c)) != owner.get((boundary, c)) for c in range(len(self._cols))]
            handles += [self._handle(False, boundary, run) for run in _runs(cut)]
        return handles

    def _handle(self, vertical: bool, boundary: int, run: tuple[int, int]) -> _Handle:
        handle = _Handle(self, vertical, boundary)
        handle.setProperty("span", run)
        handle.show()
        return handle

    # -- dragging a boundary --

    def _begin_drag(self, handle: _Handle) -> None:
        self._dragging = handle
        self._preview.raise_()
        self._preview.show()
        self._drag_to(handle.geometry().center())

    def _drag_to(self, point: QPoint) -> None:
        handle = self._dragging
        if handle is None:
            return
        if handle.vertical:
            x = self._clamped_boundary(point.x(), self._cols, self.width(), handle.boundary)
            self._preview.setGeometry(x - HANDLE // 2, 0, HANDLE, self.height())
        else:
            y = self._clamped_boundary(point.y(), self._rows, self.height(), handle.boundary)
            self._preview.setGeometry(0, y - HANDLE // 2, self.width(), HANDLE)

    def _end_drag(self, point: QPoint) -> None:
        handle, self._dragging = self._dragging, None
        self._preview.hide()
        if handle is None:
            return
        if handle.vertical:
            self._cols = self._moved(self._cols, self.width(), handle.boundary, point.x())
        else:
            self._rows = self._moved(self._rows, self.height(), handle.boundary, point.y())
        self._relayout()
        self.resized.emit(list(self._rows), list(self._cols))

    def _clamped_boundary(self, position: int, weights: list[float], extent: int, boundary: int) -> int:
        tracks = self._tracks(weights, extent)
        low = tracks[boundary - 1][0] + MIN_TRACK
        high = tracks[boundary][0] + tracks[boundary][1] - MIN_TRACK
        return max(low, min(high, position)) if low <= high else (low + high) // 2

    def _moved(self, weights: list[float], extent: int, boundary: int, position: int) -> list[float]:
        """New weights after moving `boundary` to `position`: only the two adjacent tracks change."""
        tracks = self._tracks(weights, extent)
        position = self._clamped_boundary(position, weights, extent, boundary)
        before_start = tracks[boundary - 1][0]
        after_end = tracks[boundary][0] + tracks[boundary][1]
        before = max(1, position - HANDLE // 2 - before_start)
        after = max(1, after_end - (position + HANDLE - HANDLE // 2))
        pair = weights[boundary - 1] + weights[boundary]
        updated = list(weights)
        updated[boundary - 1] = round(pair * before / (before + after), 4)
        updated[boundary] = round(pair - updated[boundary - 1], 4)
        return updated


def _runs(flags: list[bool]) -> list[tuple[int, int]]:
    """Inclusive (first, last) index ranges of consecutive True values."""
    runs, start = [], None
    for index, flag in enumerate([*flags, False]):
        if flag and start is None:
            start = index
        elif not flag and start is not None:
            runs.append((start, index - 1))
            start = None
    return runs
