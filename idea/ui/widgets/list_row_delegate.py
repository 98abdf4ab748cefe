"""How the rows of the agent and template lists are drawn."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRect, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPalette, QPen
from PySide6.QtWidgets import QApplication, QStyle, QStyledItemDelegate, QStyleOptionViewItem


class ListRowDelegate(QStyledItemDelegate):
    """List rows with a bold title, a muted second line, an optional third line, an optional status dot and
    right-aligned notes.

    Items carry: DisplayRole (title), SUBTITLE_ROLE, NOTE_ROLE (right of the title), DOT_ROLE (a colour
    name, or None for no dot), HOLLOW_ROLE (an outlined dot: nothing running), NOTE_COLOR_ROLE, BADGE_ROLE
    (a short mark after the title, e.g. "orchestrator"), MARK_ROLE and MARK_COLOR_ROLE (right of the second
    line), and for the third line, drawn only when one of them is set, ALERT_ROLE with ALERT_COLOR_ROLE
    (first, in its colour) and ACTIVITY_ROLE (muted).
    """

    SUBTITLE_ROLE = Qt.ItemDataRole.UserRole + 101
    NOTE_ROLE = Qt.ItemDataRole.UserRole + 102
    DOT_ROLE = Qt.ItemDataRole.UserRole + 103
    HOLLOW_ROLE = Qt.ItemDataRole.UserRole + 104
    NOTE_COLOR_ROLE = Qt.ItemDataRole.UserRole + 105
    BADGE_ROLE = Qt.ItemDataRole.UserRole + 106
    MARK_ROLE = Qt.ItemDataRole.UserRole + 107
    MARK_COLOR_ROLE = Qt.ItemDataRole.UserRole + 108
    ALERT_ROLE = Qt.ItemDataRole.UserRole + 109
    ALERT_COLOR_ROLE = Qt.ItemDataRole.UserRole + 110
    ACTIVITY_ROLE = Qt.ItemDataRole.UserRole + 111

    PADDING = 6
    DOT = 8
    MIN_WIDTH = 120  # rows take the view's width; this only keeps a view from being made narrower

    def _lines(self, index: QModelIndex | QPersistentModelIndex) -> int:
        return 3 if index.data(self.ALERT_ROLE) or index.data(self.ACTIVITY_ROLE) else 2

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> QSize:
        metrics = option.fontMetrics
        lines = self._lines(index)
        gaps = (metrics.leading() + self.PADDING // 2) * (lines - 1)
        # The width hint stays small: a row as wide as its hint would make a narrow list scroll sideways and
        # cut its right-aligned notes ("stopped" read "sto"); rows fill the view and elide their texts.
        return QSize(self.MIN_WIDTH, metrics.height() * lines + gaps + 2 * self.PADDING + self.PADDING // 2)

    def paint(
        self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> None:
        self.initStyleOption(option, index)
        widget = option.widget
        style = widget.style() if widget is not None else QApplication.style()
        # The background (selection, hover) is the style's; the text is drawn here.
        option.text = ""
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, option, painter, widget)
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        palette = option.palette
        text_color = palette.color(QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text)
        muted = text_color if selected else palette.color(QPalette.ColorRole.PlaceholderText)
        rect = option.rect.adjusted(self.PADDING + 2, self.PADDING, -self.PADDING - 2, -self.PADDING)
        metrics = option.fontMetrics
        line_step = metrics.height() + metrics.leading() + self.PADDING // 2

        def colored(role: int) -> QColor:
            color = index.data(role)
            return text_color if selected or not color else QColor(color)

        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        height = metrics.height()
        left = self._paint_dot(painter, index, rect, height)
        # Each line spans from `left` to the rect's right edge (QRect.right() is the last pixel column).
        first = QRect(left, rect.top(), rect.right() - left + 1, height)
        self._paint_title_line(painter, index, option, first, text_color, selected, colored)
        second = first.translated(0, line_step)
        self._paint_second_line(painter, index, second, muted, colored)
        if self._lines(index) == 3:
            third = QRect(left, second.top() + line_step, rect.right() - left, height)
            self._paint_third_line(painter, index, third, colored(self.ALERT_COLOR_ROLE), muted)
        painter.restore()

    def _paint_dot(self, painter: QPainter, index: QModelIndex | QPersistentModelIndex, rect: QRect,
                   line_height: int) -> int:
        """The state dot, left of the title (filled, or hollow when nothing runs); returns where text starts."""
        left = rect.left()
        dot = index.data(self.DOT_ROLE)
        if dot:
            centre_y = rect.top() + line_height / 2
            painter.setPen(QPen(QColor(dot), 1.5))
            painter.setBrush(Qt.BrushStyle.NoBrush if index.data(self.HOLLOW_ROLE) else QColor(dot))
            painter.drawEllipse(QRectF(left + 0.75, centre_y - self.DOT / 2, self.DOT - 1.5, self.DOT - 1.5))
            left += self.DOT + self.PADDING
        return left

    def _paint_title_line(self, painter: QPainter, index: QModelIndex | QPersistentModelIndex,
                          option: QStyleOptionViewItem, line: QRect, text_color: QColor, selected: bool,
                          colored: Callable[[int], QColor]) -> None:
        """The bold title, its badge, and the note at the right. When the row is narrow the note stays whole,
        the title is elided next, the badge last of all."""
        metrics = option.fontMetrics
        note = index.data(self.NOTE_ROLE) or ""
        note_width = metrics.horizontalAdvance(note) + self.PADDING if note else 0
        title_font = QFont(option.font)
        title_font.setBold(True)
        painter.setFont(title_font)
        title_metrics = QFontMetrics(title_font)
        room = max(0, line.right() - line.left() - note_width)
        badge = index.data(self.BADGE_ROLE) or ""
        full_title = index.data(Qt.ItemDataRole.DisplayRole) or ""
        title = title_metrics.elidedText(full_title, Qt.TextElideMode.ElideRight, room)
        title_rect = QRect(line.left(), line.top(), room, line.height())
        painter.setPen(text_color)
        painter.drawText(title_rect, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, title)
        painter.setFont(option.font)
        badge_room = room - title_metrics.horizontalAdvance(title) - self.PADDING
        badge = metrics.elidedText(badge, Qt.TextElideMode.ElideRight, badge_room) if badge and badge_room > 0 else ""
        if badge and badge != "…":
            badge_left = line.left() + title_metrics.horizontalAdvance(title) + self.PADDING
            painter.setPen(text_color if selected else option.palette.color(QPalette.ColorRole.Highlight))
            painter.drawText(QRect(badge_left, line.top(), badge_room, line.height()),
                             Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, badge)
        if note:
            painter.setPen(colored(self.NOTE_COLOR_ROLE))
            note_rect = QRect(line.right() - note_width, line.top(), note_width, line.height())
            painter.drawText(note_rect, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, note)

    def _paint_second_line(self, painter: QPainter, index: QModelIndex | QPersistentModelIndex, line: QRect,
                           muted: QColor, colored: Callable[[int], QColor]) -> None:
        """The muted subtitle, and the mark at the right."""
        metrics = painter.fontMetrics()
        mark = index.data(self.MARK_ROLE) or ""
        mark_width = metrics.horizontalAdvance(mark) + self.PADDING if mark else 0
        if mark:
            painter.setPen(colored(self.MARK_COLOR_ROLE))
            painter.drawText(QRect(line.right() - mark_width, line.top(), mark_width, line.height()),
                             Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, mark)
        subtitle = index.data(self.SUBTITLE_ROLE) or ""
        if subtitle:
            painter.setPen(muted)
            sub_rect = QRect(line.left(), line.top(), line.right() - line.left() - mark_width, line.height())
            painter.drawText(sub_rect, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                             metrics.elidedText(subtitle, Qt.TextElideMode.ElideRight, sub_rect.width()))

    def _paint_third_line(self, painter: QPainter, index: QModelIndex | QPersistentModelIndex, line: QRect,
                          alert_color: QColor, muted: QColor) -> None:
        metrics = painter.fontMetrics()
        flags = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
        alert = index.data(self.ALERT_ROLE) or ""
        if alert:
            painter.setPen(alert_color)
            alert = metrics.elidedText(alert, Qt.TextElideMode.ElideRight, line.width())
            painter.drawText(line, flags, alert)
            line = line.adjusted(metrics.horizontalAdvance(alert) + self.PADDING, 0, 0, 0)
        activity = index.data(self.ACTIVITY_ROLE) or ""
        if activity and line.width() > 0:
            painter.setPen(muted)
            painter.drawText(line, flags, metrics.elidedText(activity, Qt.TextElideMode.ElideRight, line.width()))
