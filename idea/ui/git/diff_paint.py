"""Drawing one row of the diff view: file and hunk headers, notes, a line (unified) or a pair of lines
(side by side) with numbers, background tint and syntax colours, and review comment lines."""

from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtGui import QColor, QFont, QPainter
from PySide6.QtWidgets import QWidget

from idea.domain.git.diff import Diff, DiffLine, LineKind
from idea.domain.git.model import display_path
from idea.domain.git.rows import Row, RowKind, note_for
from idea.ui.git.highlight import Highlighter, Spans
from idea.ui.theme import palette_colors

DRAWN_CHARS = 2000  # a longer line is cut when drawn (minified files)
NUMBER_CHARS = 6
CHANGE_LETTERS = {"new": "A", "modified": "M", "deleted": "D", "renamed": "R", "typechange": "T", "unreadable": "!"}


@dataclass(frozen=True)
class CommentLine:
    """One drawn line of a review comment, under the line it is anchored to."""

    comment_id: str
    text: str
    first: bool
    sent: bool


@dataclass(frozen=True)
class Tint:
    added: QColor
    removed: QColor
    empty: QColor
    hunk: QColor
    file: QColor
    comment: QColor
    sent: QColor
    text: QColor
    muted: QColor
    current: QColor


def tint_of(widget: QWidget) -> tuple[Tint, bool]:
    c = palette_colors(widget)
    dark = widget.palette().color(widget.backgroundRole()).lightness() < 128
    pick = (lambda d, light: QColor(d if dark else light))  # noqa: E731
    return Tint(
        added=pick("#1d3b2a", "#e6ffec"),
        removed=pick("#47262b", "#ffebe9"),
        empty=pick("#1a1c21", "#f4f4f5"),
        hunk=QColor(c.header),
        file=QColor(c.header_active),
        comment=pick("#3b3620", "#fff8c5"),
        sent=pick("#213245", "#ddf4ff"),
        text=QColor(c.text),
        muted=QColor(c.muted),
        current=QColor(c.accent),
    ), dark


@dataclass
class RowPainter:
    """What one paint of the view needs; `unlexed` collects the chunks whose colours are still to compute."""

    diff: Diff
    font: QFont
    tint: Tint
    row_height: int
    char_width: int
    baseline: int
    gutter: int
    side_by_side: bool
    highlighter: Highlighter | None
    scroll_x: int
    unlexed: set[tuple[int, int, int]] = field(default_factory=set)

    def paint(self, painter: QPainter, rect: QRect, row: Row | CommentLine, current: bool) -> None:
        tint = self.tint
        if isinstance(row, CommentLine):
            painter.fillRect(rect, tint.sent if row.sent else tint.comment)
            prefix = ("✉ " if row.sent else "✎ ") if row.first else "  "
            painter.setPen(tint.text)
            painter.drawText(rect.adjusted(self.gutter, 0, 0, 0), Qt.AlignmentFlag.AlignVCenter, prefix + row.text)
            return
        file = self.diff.files[row.file]
        if row.kind is RowKind.FILE:
            painter.fillRect(rect, tint.file)
            bold = QFont(self.font)
            bold.setBold(True)
            painter.setFont(bold)
            painter.setPen(tint.text)
            letter = CHANGE_LETTERS.get(file.change.value, "M")
            title = display_path(file.path)
            if file.old_path and file.new_path and file.old_path != file.new_path:
                title = f"{display_path(file.old_path)} → {title}"
            painter.drawText(rect.adjusted(6, 0, -6, 0), Qt.AlignmentFlag.AlignVCenter,
                             f"{letter}  {title}   +{file.additions} −{file.deletions}")
            painter.setFont(self.font)
        elif row.kind is RowKind.NOTE:
            painter.setPen(tint.muted)
            painter.drawText(rect.adjusted(self.gutter, 0, 0, 0), Qt.AlignmentFlag.AlignVCenter, note_for(file))
        elif row.kind is RowKind.HUNK:
            painter.fillRect(rect, tint.hunk)
            painter.setPen(tint.muted)
            painter.drawText(rect.adjusted(self.gutter, 0, 0, 0), Qt.AlignmentFlag.AlignVCenter,
                             file.hunks[row.hunk].header)
        elif self.side_by_side:
            half = rect.width() // 2
            self._paint_side(painter, QRect(rect.x(), rect.y(), half, rect.height()), row, row.left, "old")
            self._paint_side(painter, QRect(rect.x() + half, rect.y(), rect.width() - half, rect.height()),
                             row, row.right, "new")
            painter.fillRect(QRect(rect.x() + half - 1, rect.y(), 1, rect.height()), tint.hunk.darker(130))
        else:
            self._paint_unified(painter, rect, row)
        if current:
            painter.fillRect(QRect(rect.x(), rect.y(), 3, rect.height()), tint.current)

    def _paint_unified(self, painter: QPainter, rect: QRect, row: Row) -> None:
        line = self.diff.files[row.file].hunks[row.hunk].lines[row.left]
        if line.kind is not LineKind.CONTEXT:
            painter.fillRect(rect, self.tint.added if line.kind is LineKind.ADDED else self.tint.removed)
        cw = self.char_width
        painter.setPen(self.tint.muted)
        numbers = f"{number_text(line.old)}{number_text(line.new)}"
        painter.drawText(rect.adjusted(2, 0, 0, 0), Qt.AlignmentFlag.AlignVCenter, numbers)
        painter.drawText(rect.adjusted(2 * NUMBER_CHARS * cw + 4, 0, 0, 0), Qt.AlignmentFlag.AlignVCenter,
                         line.kind.value)
        self._paint_text(painter, rect, self.gutter, row.file, row.hunk, row.left, line)

    def _paint_side(self, painter: QPainter, rect: QRect, row: Row, index: int, side: str) -> None:
        if index < 0:
            painter.fillRect(rect, self.tint.empty)
            return
        line = self.diff.files[row.file].hunks[row.hunk].lines[index]
        if line.kind is LineKind.ADDED:
            painter.fillRect(rect, self.tint.added)
        elif line.kind is LineKind.REMOVED:
            painter.fillRect(rect, self.tint.removed)
        painter.setPen(self.tint.muted)
        painter.drawText(rect.adjusted(2, 0, 0, 0), Qt.AlignmentFlag.AlignVCenter,
                         number_text(line.old if side == "old" else line.new))
        self._paint_text(painter, rect, self.gutter, row.file, row.hunk, index, line)

    def _paint_text(
        self, painter: QPainter, rect: QRect, gutter: int, file: int, hunk: int, index: int, line: DiffLine
    ) -> None:
        text = line.text[:DRAWN_CHARS]
        spans = self.highlighter.spans(file, hunk, index) if self.highlighter is not None else ()
        if spans is None:
            self.unlexed.add(Highlighter.chunk_of(file, hunk, index))
            spans = ()
        if "\t" in text:
            text, spans = expand_tabs(text, spans)
        painter.save()
        clip = QRect(rect.x() + gutter, rect.y(), rect.width() - gutter, rect.height())
        painter.setClipRect(clip)
        cw = self.char_width
        x0 = clip.x() - self.scroll_x
        baseline = rect.y() + self.baseline
        done = 0
        for start, length, color in spans:
            if start > done:
                painter.setPen(self.tint.text)
                painter.drawText(QPoint(x0 + done * cw, baseline), text[done:start])
            painter.setPen(color)
            painter.drawText(QPoint(x0 + start * cw, baseline), text[start : start + length])
            done = start + length
        if done < len(text):
            painter.setPen(self.tint.text)
            painter.drawText(QPoint(x0 + done * cw, baseline), text[done:])
        if line.no_newline:
            painter.setPen(self.tint.muted)
            painter.drawText(QPoint(x0 + len(text) * cw + cw, baseline), "(no newline at end of file)")
        painter.restore()


def number_text(value: int | None) -> str:
    return f"{value:>{NUMBER_CHARS - 1}} " if value is not None else " " * NUMBER_CHARS


def expand_tabs(text: str, spans: Spans) -> tuple[str, Spans]:
    """Tabs drawn as spaces to the next multiple of 4, with the colour spans moved along."""
    positions = []
    column = 0
    out = []
    for ch in text:
        positions.append(column)
        if ch == "\t":
            width = 4 - column % 4
            out.append(" " * width)
            column += width
        else:
            out.append(ch)
            column += 1
    positions.append(column)
    moved = tuple((positions[s], positions[min(s + n, len(text))] - positions[s], c) for s, n, c in spans)
    return "".join(out), moved
