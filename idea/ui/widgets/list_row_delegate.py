"""How the rows of the agent and template lists are drawn."""

from __future__ import annotations

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

    def _lines(self, index: QModelIndex | QPersistentModelIndex) -> int:
        return 3 if index.data(self.ALERT_ROLE) or index.data(self.ACTIVITY_ROLE) else 2

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> QSize:
        metrics = option.fontMetrics
        lines = self._lines(index)
        gaps = (metrics.leading() + self.PADDING // 2) * (lines - 1)
        return QSize(200, metrics.height() * lines + gaps + 2 * self.PADDING + self.PADDING // 2)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> None:
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
        line_height = metrics.height()
        line_step = line_height + metrics.leading() + self.PADDING // 2
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        left = rect.left()
        dot = index.data(self.DOT_ROLE)
        if dot:
            centre_y = rect.top() + line_height / 2
            pen = QPen(QColor(dot), 1.5)
            painter.setPen(pen)
            painter.setBrush(Qt.BrushStyle.NoBrush if index.data(self.HOLLOW_ROLE) else QColor(dot))
            painter.drawEllipse(QRectF(left + 0.75, centre_y - self.DOT / 2, self.DOT - 1.5, self.DOT - 1.5))
            left += self.DOT + self.PADDING

        def colored(role: int) -> QColor:
            color = index.data(role)
            return text_color if selected or not color else QColor(color)

        note = index.data(self.NOTE_ROLE) or ""
        note_width = metrics.horizontalAdvance(note) + self.PADDING if note else 0
        title_font = QFont(option.font)
        title_font.setBold(True)
        painter.setFont(title_font)
        badge = index.data(self.BADGE_ROLE) or ""
        badge_width = metrics.horizontalAdvance(badge) + self.PADDING if badge else 0
        title_rect = QRect(left, rect.top(), max(0, rect.right() - left - note_width - badge_width), line_height)
        title_metrics = QFontMetrics(title_font)
        title = title_metrics.elidedText(
            index.data(Qt.ItemDataRole.DisplayRole) or "", Qt.TextElideMode.ElideRight, title_rect.width()
        )
        painter.setPen(text_color)
        painter.drawText(title_rect, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, title)
        painter.setFont(option.font)
        if badge:
            badge_left = left + title_metrics.horizontalAdvance(title) + self.PADDING
            painter.setPen(text_color if selected else palette.color(QPalette.ColorRole.Highlight))
            painter.drawText(
                QRect(badge_left, rect.top(), badge_width, line_height),
                Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                badge,
            )
        if note:
            painter.setPen(colored(self.NOTE_COLOR_ROLE))
            note_rect = QRect(rect.right() - note_width, rect.top(), note_width, line_height)
            painter.drawText(note_rect, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, note)
        second_top = rect.top() + line_step
        mark = index.data(self.MARK_ROLE) or ""
        mark_width = metrics.horizontalAdvance(mark) + self.PADDING if mark else 0
        if mark:
            painter.setPen(colored(self.MARK_COLOR_ROLE))
            painter.drawText(
                QRect(rect.right() - mark_width, second_top, mark_width, line_height),
                Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                mark,
            )
        subtitle = index.data(self.SUBTITLE_ROLE) or ""
        if subtitle:
            painter.setPen(muted)
            sub_rect = QRect(left, second_top, rect.right() - left - mark_width, line_height)
            painter.drawText(
                sub_rect,
                Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                metrics.elidedText(subtitle, Qt.TextElideMode.ElideRight, sub_rect.width()),
            )
        if self._lines(index) == 3:
            third = QRect(left, second_top + line_step, rect.right() - left, line_height)
            self._paint_third_line(painter, index, third, colored(self.ALERT_COLOR_ROLE), muted)
        painter.restore()

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
