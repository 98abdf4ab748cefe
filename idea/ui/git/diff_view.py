"""The diff itself: a scroll area that paints only the rows on screen, in unified or side-by-side layout,
with syntax colours, line numbers, and review comments drawn under the lines they are anchored to.

A 10,000-line diff is a list of small row tuples; nothing per line is created until it is drawn."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from PySide6.QtCore import QPoint, QRect, Qt, QTimer, Signal
from PySide6.QtGui import QContextMenuEvent, QFont, QKeyEvent, QMouseEvent, QPainter, QPaintEvent, QResizeEvent
from PySide6.QtWidgets import QAbstractScrollArea, QApplication, QMenu, QWidget

from idea.domain.git.diff import Diff
from idea.domain.git.review import ReviewComment
from idea.domain.git.rows import (
    Row,
    RowKind,
    anchor_rows,
    file_row_index,
    line_of,
    side_by_side_rows,
    unified_rows,
)
from idea.ui.git.diff_paint import DRAWN_CHARS, NUMBER_CHARS, CommentLine, RowPainter, tint_of
from idea.ui.git.highlight import Highlighter
from idea.ui.theme import monospace_font, whole_pixel_font


@dataclass(frozen=True)
class Anchor:
    """A line a person comments on: what the review records (spec 07 §3)."""

    file_index: int
    hunk_index: int
    path: str
    side: str  # "old" | "new"
    line: int
    hunk_header: str
    text: str


class DiffView(QAbstractScrollArea):
    commentRequested = Signal(object)  # Anchor
    commentEditRequested = Signal(str)  # comment id
    commentDeleteRequested = Signal(str)
    hunkActionRequested = Signal(int, int)  # file index, hunk index
    currentFileChanged = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFont(monospace_font())
        self.viewport().setCursor(Qt.CursorShape.IBeamCursor)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self._diff: Diff | None = None
        self._side_by_side = False
        self._rows: list[Row] = []
        self._lines: list[Row | CommentLine] = []
        self._comments: Sequence[ReviewComment] = ()
        self._highlighter: Highlighter | None = None
        self._current = -1
        self._file = -1
        self._longest = 0
        self._unlexed: set[tuple[int, int, int]] = set()
        self._measured: tuple[QFont, tuple[int, int, int], QFont] | None = None  # font, metrics, font drawn
        self.hunk_action_text: str | None = None  # "Stage this hunk", "Unstage this hunk", or None
        self._tint, self._dark = tint_of(self)
        self.verticalScrollBar().valueChanged.connect(self._scrolled)
        self.horizontalScrollBar().valueChanged.connect(lambda _v: self.viewport().update())

    # -- content --

    def set_diff(self, diff: Diff, side_by_side: bool | None = None) -> None:
        self._diff = diff
        if side_by_side is not None:
            self._side_by_side = side_by_side
        self._tint, self._dark = tint_of(self)
        self._highlighter = Highlighter(diff, self._dark)
        self._unlexed = set()  # chunks noted while the previous diff was drawn mean nothing now
        self._longest = max((len(line.text) for f in diff.files for h in f.hunks for line in h.lines), default=0)
        self._rebuild(keep_top=False)

    def set_side_by_side(self, side_by_side: bool) -> None:
        if side_by_side != self._side_by_side and self._diff is not None:
            file = self._file_at(self.verticalScrollBar().value())
            self._side_by_side = side_by_side
            self._rebuild(keep_top=False)
            self.scroll_to_file(file)

    @property
    def side_by_side(self) -> bool:
        return self._side_by_side

    def set_comments(self, comments: Sequence[ReviewComment]) -> None:
        self._comments = comments
        self._rebuild(keep_top=True)

    def _rebuild(self, *, keep_top: bool) -> None:
        top = self.verticalScrollBar().value()
        diff = self._diff
        self._rows = [] if diff is None else (side_by_side_rows(diff) if self._side_by_side else unified_rows(diff))
        self._lines = list(self._rows)
        if self._comments and diff is not None:
            where = anchor_rows(diff, self._rows)
            placed: dict[int, list[ReviewComment]] = {}
            for comment in self._comments:
                index = where.get((comment.path, comment.side, comment.line))
                if index is not None:
                    placed.setdefault(index, []).append(comment)
            for row_index in sorted(placed, reverse=True):
                extra: list[Row | CommentLine] = []
                for comment in placed[row_index]:
                    text_lines = comment.text.splitlines() or [""]
                    extra.extend(
                        CommentLine(comment.id or "", text, number == 0, comment.sent)
                        for number, text in enumerate(text_lines)
                    )
                self._lines[row_index + 1 : row_index + 1] = extra
        self._update_scrollbars()
        self.verticalScrollBar().setValue(top if keep_top else 0)
        self.viewport().update()

    def placed_comment_ids(self) -> set[str]:
        return {line.comment_id for line in self._lines if isinstance(line, CommentLine)}

    # -- queries (tests, the viewer) --

    def row_count(self) -> int:
        return len(self._lines)

    def line_at(self, index: int) -> Row | CommentLine:
        return self._lines[index]

    def first_visible_row(self) -> int:
        return self.verticalScrollBar().value()

    def visible_rows(self) -> int:
        return max(1, self.viewport().height() // self._row_height())

    def scroll_to_file(self, file_index: int) -> None:
        if self._diff is None or not self._diff.files:
            return
        target = file_row_index(self._rows, max(0, min(file_index, len(self._diff.files) - 1)))
        row = self._rows[target]
        self.verticalScrollBar().setValue(self._lines.index(row) if row in self._lines else target)

    def anchor_for(self, index: int, side: str | None = None) -> Anchor | None:
        """The commentable line drawn at display row `index` (`side` chooses in side-by-side layout)."""
        if self._diff is None or not 0 <= index < len(self._lines):
            return None
        row = self._lines[index]
        if not isinstance(row, Row) or row.kind is not RowKind.LINE:
            return None
        file = self._diff.files[row.file]
        chosen, number, line = line_of(self._diff, row, side if self._side_by_side else None)
        return Anchor(row.file, row.hunk, file.path, chosen, number, file.hunks[row.hunk].range_header, line.text)

    # -- geometry --

    def _row_height(self) -> int:
        return self._metrics()[0]

    def _char_width(self) -> int:
        return self._metrics()[1]

    def _metrics(self) -> tuple[int, int, int]:
        """(row height, character width, text baseline offset), measured once per font."""
        font = self.font()
        if self._measured is None or self._measured[0] != font:
            metrics = self.fontMetrics()
            height = metrics.height() + 4
            baseline = (height + metrics.ascent() - metrics.descent()) // 2
            painted, width = whole_pixel_font(font)
            self._measured = (QFont(font), (height, width, baseline), painted)
        return self._measured[1]

    def _painted_font(self) -> QFont:
        """The font the text is drawn in: each character exactly one column wide (`whole_pixel_font`)."""
        self._metrics()
        assert self._measured is not None
        return self._measured[2]

    def _gutter(self) -> int:
        numbers = (1 if self._side_by_side else 2) * NUMBER_CHARS
        return (numbers + 2) * self._char_width()

    def _update_scrollbars(self) -> None:
        visible = self.visible_rows()
        self.verticalScrollBar().setRange(0, max(0, len(self._lines) - visible + 1))
        self.verticalScrollBar().setPageStep(visible)
        width = min(self._longest, DRAWN_CHARS) * self._char_width() + self._gutter()
        half = self.viewport().width() // (2 if self._side_by_side else 1)
        self.horizontalScrollBar().setRange(0, max(0, width - half))
        self.horizontalScrollBar().setPageStep(half)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._update_scrollbars()

    def _scrolled(self, value: int) -> None:
        self.viewport().update()
        file = self._file_at(value)
        if file != self._file and file >= 0:
            self._file = file
            self.currentFileChanged.emit(file)

    def _file_at(self, index: int) -> int:
        for line in reversed(self._lines[: index + 1]):
            if isinstance(line, Row):
                return line.file
        return 0 if self._lines else -1

    # -- painting --

    def paintEvent(self, event: QPaintEvent) -> None:
        if self._diff is None:
            return
        height, char_width, baseline = self._metrics()
        font = self._painted_font()
        rows = RowPainter(
            self._diff, font, self._tint, height, char_width, baseline, self._gutter(), self._side_by_side,
            self._highlighter, self.horizontalScrollBar().value(), self._unlexed,
        )
        painter = QPainter(self.viewport())
        painter.setFont(font)
        first = self.verticalScrollBar().value()
        width = self.viewport().width()
        for offset in range(self.visible_rows() + 1):
            index = first + offset
            if index >= len(self._lines):
                break
            rows.paint(painter, QRect(0, offset * height, width, height), self._lines[index], index == self._current)
        painter.end()
        if self._unlexed:
            QTimer.singleShot(0, self, self._lex_unlexed)  # colours follow the first screen at once

    def _lex_unlexed(self) -> None:
        highlighter, pending = self._highlighter, self._unlexed
        self._unlexed = set()
        if highlighter is not None and pending:
            for key in sorted(pending):
                highlighter.lex(key)
            self.viewport().update()

    # -- interaction --

    def _index_at(self, point: QPoint) -> int:
        return self.verticalScrollBar().value() + point.y() // self._row_height()

    def _side_at(self, point: QPoint) -> str | None:
        if not self._side_by_side:
            return None
        return "old" if point.x() < self.viewport().width() // 2 else "new"

    def mousePressEvent(self, event: QMouseEvent) -> None:
        self._current = self._index_at(event.position().toPoint())
        self.viewport().update()
        super().mousePressEvent(event)

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:
        point = event.position().toPoint()
        index = self._index_at(point)
        line = self._lines[index] if 0 <= index < len(self._lines) else None
        if isinstance(line, CommentLine):
            self.commentEditRequested.emit(line.comment_id)
            return
        anchor = self.anchor_for(index, self._side_at(point))
        if anchor is not None:
            self.commentRequested.emit(anchor)

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:
        index = self._index_at(event.pos())
        if not 0 <= index < len(self._lines):
            return
        self._current = index
        self.viewport().update()
        menu = QMenu(self)
        line = self._lines[index]
        if isinstance(line, CommentLine):
            menu.addAction("Edit comment…", lambda: self.commentEditRequested.emit(line.comment_id))
            menu.addAction("Delete comment", lambda: self.commentDeleteRequested.emit(line.comment_id))
        else:
            anchor = self.anchor_for(index, self._side_at(event.pos()))
            if anchor is not None:
                menu.addAction("Comment on this line…", lambda: self.commentRequested.emit(anchor))
                menu.addAction("Copy line", lambda: QApplication.clipboard().setText(anchor.text))
            if self.hunk_action_text and line.kind in (RowKind.LINE, RowKind.HUNK):
                menu.addAction(self.hunk_action_text, lambda: self.hunkActionRequested.emit(line.file, line.hunk))
        if not menu.isEmpty():
            menu.exec(event.globalPos())

    def keyPressEvent(self, event: QKeyEvent) -> None:
        bar = self.verticalScrollBar()
        steps = {
            Qt.Key.Key_Down: 1, Qt.Key.Key_Up: -1,
            Qt.Key.Key_PageDown: bar.pageStep(), Qt.Key.Key_PageUp: -bar.pageStep(),
        }
        if event.key() in steps:
            bar.setValue(bar.value() + steps[event.key()])
        elif event.key() == Qt.Key.Key_Home:
            bar.setValue(0)
        elif event.key() == Qt.Key.Key_End:
            bar.setValue(bar.maximum())
        else:
            super().keyPressEvent(event)
