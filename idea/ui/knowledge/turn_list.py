"""The loaded turns of the conversation viewer: a list model that grows by pages at either end (each turn
once), and a delegate that lays out a turn's Markdown only when the row is measured or painted, keeping a
bounded cache of documents. Very long turns are folded until the person asks for all of it."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any

from PySide6.QtCore import QAbstractListModel, QEvent, QModelIndex, QPersistentModelIndex, QRect, QSize, Qt
from PySide6.QtGui import QColor, QFont, QMouseEvent, QPainter, QTextDocument
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem, QWidget

from idea.domain.knowledge.conversation_log import ConversationTurn, TurnRole
from idea.domain.orchestration.tickets import AgentSource
from idea.ui.knowledge.common import clock_time, theme_of

TURN_ROLE = Qt.ItemDataRole.UserRole + 1
EXPANDED_ROLE = Qt.ItemDataRole.UserRole + 2
FOLD_LINES = 200
FOLD_CHARS = 12_000
TOOL_FOLD_LINES = 1
DOCUMENTS_KEPT = 300
PADDING = 8
HEADER_GAP = 4
AnyIndex = QModelIndex | QPersistentModelIndex


def folded_text(turn: ConversationTurn) -> str | None:
    """What a folded turn shows, None when it is short enough to show whole."""
    limit_lines = TOOL_FOLD_LINES if turn.role is TurnRole.TOOL_ACTIVITY else FOLD_LINES
    lines = turn.text.split("\n")
    if len(lines) <= limit_lines and len(turn.text) <= FOLD_CHARS:
        return None
    shown = "\n".join(lines[:limit_lines])
    if len(shown) > FOLD_CHARS:
        cut = shown.rfind("\n", 0, FOLD_CHARS)
        shown = shown[: cut if cut > FOLD_CHARS // 2 else FOLD_CHARS]
    return shown


def with_hard_breaks(text: str) -> str:
    """Markdown as agents write it: a single line break is meant as one (outside code fences), so each line
    followed by another ends with a hard break instead of being joined into one paragraph."""
    lines = text.split("\n")
    fence = ""
    shown: list[str] = []
    for position, line in enumerate(lines):
        stripped = line.lstrip()
        if stripped.startswith(("```", "~~~")):
            marker = stripped[:3]
            fence = "" if fence == marker else (fence or marker)
            shown.append(line)
            continue
        following = lines[position + 1] if position + 1 < len(lines) else ""
        if not fence and line.strip() and following.strip() and not following.lstrip().startswith(("```", "~~~")):
            line = line.rstrip() + "  "
        shown.append(line)
    return "\n".join(shown)


class TurnListModel(QAbstractListModel):
    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._turns: list[ConversationTurn] = []
        self._ids: set[str] = set()
        self._expanded: set[str] = set()

    def rowCount(self, parent: AnyIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._turns)

    def data(self, index: AnyIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._turns):
            return None
        turn = self._turns[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return turn.text
        if role == TURN_ROLE:
            return turn
        if role == EXPANDED_ROLE:
            return turn.id in self._expanded
        return None

    @property
    def turns(self) -> Sequence[ConversationTurn]:
        return self._turns

    def reset(self, turns: Sequence[ConversationTurn] = ()) -> None:
        self.beginResetModel()
        self._turns = []
        self._ids = set()
        self._expanded = set()
        for turn in turns:
            if turn.id not in self._ids:
                self._ids.add(turn.id)
                self._turns.append(turn)
        self.endResetModel()

    def prepend(self, turns: Sequence[ConversationTurn]) -> int:
        """Older turns at the top; returns how many were new."""
        fresh = self._fresh(turns)
        if fresh:
            self.beginInsertRows(QModelIndex(), 0, len(fresh) - 1)
            self._turns[0:0] = fresh
            self.endInsertRows()
        return len(fresh)

    def append(self, turns: Sequence[ConversationTurn]) -> int:
        fresh = self._fresh(turns)
        if fresh:
            self.beginInsertRows(QModelIndex(), len(self._turns), len(self._turns) + len(fresh) - 1)
            self._turns.extend(fresh)
            self.endInsertRows()
        return len(fresh)

    def toggle_expanded(self, row: int) -> None:
        turn = self._turns[row]
        self._expanded.symmetric_difference_update({turn.id})
        index = self.index(row)
        self.dataChanged.emit(index, index, [EXPANDED_ROLE])

    def row_of(self, turn_id: str) -> int | None:
        return next((row for row, turn in enumerate(self._turns) if turn.id == turn_id), None)

    def _fresh(self, turns: Sequence[ConversationTurn]) -> list[ConversationTurn]:
        fresh = []
        for turn in turns:
            if turn.id not in self._ids:
                self._ids.add(turn.id)
                fresh.append(turn)
        return fresh


class TurnDelegate(QStyledItemDelegate):
    """Header (author, time, marks) over the turn's Markdown; a "Show all" strip under a folded turn."""

    def __init__(self, names: Callable[[ConversationTurn], str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._names = names
        self._documents: OrderedDict[tuple[str, bool], QTextDocument] = OrderedDict()
        self._heights: dict[tuple[str, bool, int], int] = {}
        self.highlight = ""  # text searched for: matching turns get a marker

    def clear(self) -> None:
        self._documents.clear()
        self._heights.clear()

    # ------------------------------------------------------------------ layout

    def sizeHint(self, option: QStyleOptionViewItem, index: AnyIndex) -> QSize:
        turn: ConversationTurn = index.data(TURN_ROLE)
        expanded = bool(index.data(EXPANDED_ROLE))
        width = max(200, option.rect.width() or self._view_width())
        key = (turn.id, expanded, width)
        height = self._heights.get(key)
        if height is None:
            document = self._document(turn, expanded, option.font)
            document.setTextWidth(width - 2 * PADDING)
            height = int(document.size().height()) + self._header_height(option) + 2 * PADDING
            if folded_text(turn) is not None:
                height += self._header_height(option)
            self._heights[key] = height
        return QSize(width, height)

    def _view_width(self) -> int:
        parent = self.parent()
        viewport = getattr(parent, "viewport", None)
        return viewport().width() if callable(viewport) else 600

    @staticmethod
    def _header_height(option: QStyleOptionViewItem) -> int:
        return option.fontMetrics.height() + HEADER_GAP

    def _document(self, turn: ConversationTurn, expanded: bool, font: QFont) -> QTextDocument:
        key = (turn.id, expanded)
        document = self._documents.get(key)
        if document is None:
            document = QTextDocument()
            document.setDefaultFont(font)
            document.setDocumentMargin(0)
            shown = turn.text if expanded else (folded_text(turn) or turn.text)
            document.setMarkdown(with_hard_breaks(shown))
            self._documents[key] = document
            while len(self._documents) > DOCUMENTS_KEPT:
                self._documents.popitem(last=False)
        else:
            self._documents.move_to_end(key)
        return document

    # ------------------------------------------------------------------ painting

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: AnyIndex) -> None:
        turn: ConversationTurn = index.data(TURN_ROLE)
        expanded = bool(index.data(EXPANDED_ROLE))
        theme = theme_of(self.parent()) if isinstance(self.parent(), QWidget) else None
        rect = option.rect
        painter.save()
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        background = option.palette.highlight().color() if selected else option.palette.base().color()
        if selected:
            background.setAlpha(60)
        painter.fillRect(rect, background)
        accent = QColor(theme.accent if theme else "#5aa2f0")
        if isinstance(turn.source, AgentSource):
            accent = QColor(theme.ok if theme else "#6cc070") if turn.role is TurnRole.RESPONSE else accent
        else:
            accent = QColor(theme.warn if theme else "#e5b94e")
        painter.fillRect(QRect(rect.left(), rect.top() + 4, 3, rect.height() - 8), accent)
        header_height = self._header_height(option)
        header = QRect(rect.left() + PADDING, rect.top() + PADDING, rect.width() - 2 * PADDING, header_height)
        bold = QFont(option.font)
        bold.setBold(True)
        painter.setFont(bold)
        painter.setPen(option.palette.text().color())
        painter.drawText(header, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, self._title(turn))
        painter.setFont(option.font)
        painter.setPen(QColor(theme.muted if theme else "#8b919c"))
        painter.drawText(header, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, self._marks(turn))
        document = self._document(turn, expanded, option.font)
        document.setTextWidth(rect.width() - 2 * PADDING)
        painter.translate(rect.left() + PADDING, rect.top() + PADDING + header_height)
        if turn.role is TurnRole.TOOL_ACTIVITY:
            painter.setOpacity(0.6)
        document.drawContents(painter)
        painter.restore()
        if folded_text(turn) is not None:
            strip = self.fold_strip(option, index)
            painter.save()
            painter.setPen(QColor(theme.accent if theme else "#5aa2f0"))
            label = (
                "Show less ▴"
                if expanded
                else f"Show all ▾  ({len(turn.text):,} characters, {turn.text.count(chr(10)) + 1:,} lines)"
            )
            painter.drawText(strip, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, label)
            painter.restore()

    def fold_strip(self, option: QStyleOptionViewItem, index: AnyIndex) -> QRect:
        rect = option.rect
        height = self._header_height(option)
        return QRect(rect.left() + PADDING, rect.bottom() - PADDING - height + 1, rect.width() - 2 * PADDING, height)

    def _title(self, turn: ConversationTurn) -> str:
        who = self._names(turn)
        what = {TurnRole.PROMPT: "asked", TurnRole.RESPONSE: "answered", TurnRole.TOOL_ACTIVITY: "tool activity"}
        return f"{who} · {what[turn.role]}"

    def _marks(self, turn: ConversationTurn) -> str:
        marks = [clock_time(turn.at_ms)]
        if turn.late:
            marks.insert(0, "late reply")
        if self.highlight and self.highlight.casefold() in turn.text.casefold():
            marks.insert(0, "● match")
        return "  ·  ".join(marks)

    def editorEvent(self, event: QEvent, model: Any, option: QStyleOptionViewItem, index: AnyIndex) -> bool:
        if (
            event.type() == QEvent.Type.MouseButtonRelease
            and isinstance(event, QMouseEvent)
            and folded_text(index.data(TURN_ROLE)) is not None
            and self.fold_strip(option, index).contains(event.position().toPoint())
            and isinstance(model, TurnListModel)
        ):
            model.toggle_expanded(index.row())
            self.sizeHintChanged.emit(index)
            return True
        return super().editorEvent(event, model, option, index)
