"""The history: commits of HEAD, newest first, 100 at a time, with the graph of lanes drawn beside them."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QAbstractListModel, QModelIndex, QPersistentModelIndex, QPointF, QRect, QSize, Qt, Signal
from PySide6.QtGui import QColor, QPainter, QPen
from PySide6.QtWidgets import (
    QListView,
    QPushButton,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QVBoxLayout,
    QWidget,
)

from idea.application.git.service import LogPage
from idea.domain.git.graph import GraphRow, Lanes
from idea.domain.git.model import CommitInfo
from idea.ui.git.git_client import GitClient
from idea.ui.theme import palette_colors

LANE_WIDTH = 14
LANE_COLORS = ("#5aa2f0", "#e5b94e", "#6cc070", "#e86671", "#c678dd", "#56b6c2", "#d19a66")
COMMIT_ROLE = Qt.ItemDataRole.UserRole
ROW_ROLE = Qt.ItemDataRole.UserRole + 1


class LogModel(QAbstractListModel):
    def __init__(self) -> None:
        super().__init__()
        self.commits: list[CommitInfo] = []
        self.rows: list[GraphRow] = []
        self.lanes: Lanes = ()
        self.next_skip = 0
        self.has_more = False

    def reset_with(self, page: LogPage) -> None:
        self.beginResetModel()
        self.commits, self.rows = list(page.commits), list(page.rows)
        self._remember(page)
        self.endResetModel()

    def extend(self, page: LogPage) -> None:
        if not page.commits:
            self._remember(page)
            return
        start = len(self.commits)
        self.beginInsertRows(QModelIndex(), start, start + len(page.commits) - 1)
        self.commits.extend(page.commits)
        self.rows.extend(page.rows)
        self._remember(page)
        self.endInsertRows()

    def _remember(self, page: LogPage) -> None:
        self.lanes, self.next_skip, self.has_more = page.lanes, page.next_skip, page.has_more

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.commits)

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        commit = self.commits[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return commit.summary
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"{commit.oid}\n{commit.author} <{commit.email}>\n\n{commit.message.strip()}"
        if role == COMMIT_ROLE:
            return commit
        if role == ROW_ROLE:
            return self.rows[index.row()]
        return None


class GraphDelegate(QStyledItemDelegate):
    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> QSize:
        return QSize(200, option.fontMetrics.height() + 8)

    def paint(
        self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> None:
        commit: CommitInfo = index.data(COMMIT_ROLE)
        row: GraphRow = index.data(ROW_ROLE)
        rect = option.rect
        colors = palette_colors(option.widget) if option.widget is not None else None
        if option.state & QStyle.StateFlag.State_Selected:
            painter.fillRect(rect, option.palette.highlight())
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        top, mid, bottom = rect.top(), rect.center().y(), rect.bottom() + 1
        x = lambda lane: rect.left() + 8 + lane * LANE_WIDTH  # noqa: E731
        for start, end in row.top:
            painter.setPen(QPen(QColor(LANE_COLORS[start % len(LANE_COLORS)]), 2))
            painter.drawLine(QPointF(x(start), top), QPointF(x(end), mid))
        for start, end in row.bottom:
            painter.setPen(QPen(QColor(LANE_COLORS[end % len(LANE_COLORS)]), 2))
            painter.drawLine(QPointF(x(start), mid), QPointF(x(end), bottom))
        dot = QColor(LANE_COLORS[row.column % len(LANE_COLORS)])
        painter.setPen(QPen(dot, 2))
        painter.setBrush(option.palette.base() if row.merge else dot)
        painter.drawEllipse(QPointF(x(row.column), mid), 4, 4)
        painter.restore()
        text_left = rect.left() + 8 + row.width * LANE_WIDTH + 6
        muted = QColor(colors.muted) if colors is not None else option.palette.placeholderText().color()
        meta = f"{commit.short}  {commit.author}  {_age(commit.time_ms)}"
        meta_width = option.fontMetrics.horizontalAdvance(meta) + 8
        text_rect = QRect(text_left, rect.top(), max(0, rect.right() - meta_width - text_left), rect.height())
        painter.setPen(option.palette.highlightedText().color() if option.state & QStyle.StateFlag.State_Selected
                       else option.palette.text().color())
        summary = option.fontMetrics.elidedText(commit.summary, Qt.TextElideMode.ElideRight, text_rect.width())
        painter.drawText(text_rect, Qt.AlignmentFlag.AlignVCenter, summary)
        painter.setPen(muted)
        painter.drawText(QRect(rect.right() - meta_width, rect.top(), meta_width, rect.height()),
                         Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignRight, meta)


class LogView(QListView):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.log = LogModel()
        self.setModel(self.log)
        self.setItemDelegate(GraphDelegate(self))
        self.setUniformItemSizes(True)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)

    def commit_at(self, index: QModelIndex) -> CommitInfo | None:
        return index.data(COMMIT_ROLE) if index.isValid() else None


class HistoryPage(QWidget):
    """The History tab: the first 100 commits when shown (again after HEAD moved), 100 more on demand."""

    commitOpened = Signal(object)  # CommitInfo

    def __init__(self, client: Callable[[], GitClient | None], failed: Callable[[BaseException], None],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._client = client
        self._failed = failed
        self.loaded_head: str | None = None  # the HEAD the list shows; None: read it again when shown
        self.log = LogView()
        self.log.doubleClicked.connect(self._open)
        self.more_button = QPushButton("Load 100 more")
        self.more_button.clicked.connect(self.load_more)
        self.more_button.hide()
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 4, 0, 0)
        column.addWidget(self.log, 1)
        column.addWidget(self.more_button, 0, Qt.AlignmentFlag.AlignLeft)

    def clear(self) -> None:
        self.loaded_head = None
        self.log.log.reset_with(LogPage((), (), (), 0))
        self.more_button.hide()

    def load(self, head: str) -> None:
        git = self._client()
        if git is None:
            return
        self.loaded_head = head

        def shown(page: LogPage) -> None:
            if git is self._client():
                self.log.log.reset_with(page)
                self.more_button.setVisible(page.has_more)

        git.call(lambda ws: ws.git.log(), shown, self._failed)

    def load_more(self) -> None:
        git, model = self._client(), self.log.log
        if git is None or not model.has_more:
            return
        skip, lanes = model.next_skip, model.lanes

        def shown(page: LogPage) -> None:
            if git is self._client():
                model.extend(page)
                self.more_button.setVisible(page.has_more)

        git.call(lambda ws: ws.git.log(skip, lanes), shown, self._failed)

    def _open(self, index: QModelIndex) -> None:
        commit = self.log.commit_at(index)
        if commit is not None:
            self.commitOpened.emit(commit)


def _age(time_ms: int) -> str:
    seconds = max(0, int(time.time() - time_ms / 1000))
    for unit, size in (("y", 365 * 86400), ("mo", 30 * 86400), ("d", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{seconds // size} {unit} ago"
    return "just now"
