"""Small pieces shared by the agent screens: messages that never block the GUI thread, hints, detection
results and notices drawn with the theme's colours, list rows, elided lines, and the text of an error."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRect, QRectF, QSize, Qt
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontDatabase,
    QFontMetrics,
    QPainter,
    QPalette,
    QPen,
    QResizeEvent,
)
from PySide6.QtWidgets import (
    QApplication,
    QLabel,
    QMessageBox,
    QSizePolicy,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QVBoxLayout,
    QWidget,
)

from idea.application.agents.ports import Detection
from idea.domain.errors import AppError
from idea.domain.workspace import ColorScheme
from idea.ui.agents.profile_facts import describe_detection
from idea.ui.theme import Colors, colors


def error_text(error: BaseException) -> str:
    """What the user reads: the AppError sentence, or the unexpected error itself."""
    if isinstance(error, AppError):
        return error.message
    return f"Unexpected error: {error}"


def palette_colors(widget: QWidget) -> Colors:
    """The theme colours matching the widget's palette (dark or light)."""
    dark = widget.palette().color(QPalette.ColorRole.Window).lightness() < 128
    return colors(ColorScheme.DARK if dark else ColorScheme.LIGHT)


def monospace_font() -> QFont:
    return QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)


def show_error(parent: QWidget, title: str, error: BaseException | str) -> QMessageBox:
    """A warning box opened without a nested event loop (the core may be waiting on the GUI thread)."""
    box = QMessageBox(QMessageBox.Icon.Warning, title, error if isinstance(error, str) else error_text(error),
                      QMessageBox.StandardButton.Ok, parent)
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    box.open()
    return box


def ask(
    parent: QWidget,
    title: str,
    text: str,
    accept_text: str,
    on_accept: Callable[[], None],
    *,
    informative: str = "",
    destructive: bool = False,
) -> QMessageBox:
    """A question with one accepting button and Cancel (the default, so Enter never destroys anything)."""
    box = QMessageBox(parent)
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    box.setIcon(QMessageBox.Icon.Warning if destructive else QMessageBox.Icon.Question)
    box.setWindowTitle(title)
    box.setText(text)
    if informative:
        box.setInformativeText(informative)
    role = QMessageBox.ButtonRole.DestructiveRole if destructive else QMessageBox.ButtonRole.AcceptRole
    accept = box.addButton(accept_text, role)
    cancel = box.addButton(QMessageBox.StandardButton.Cancel)
    box.setDefaultButton(cancel if destructive else accept)
    box.setEscapeButton(cancel)
    accept.clicked.connect(on_accept)
    box.open()
    return box


def with_hint(field: QWidget, hint: QLabel) -> QVBoxLayout:
    """A field with its hint line right under it."""
    column = QVBoxLayout()
    column.setSpacing(3)
    column.addWidget(field)
    column.addWidget(hint)
    return column


class HintLabel(QLabel):
    """A muted line under a field; turns red for an error."""

    def __init__(self, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(text, parent)
        self.setWordWrap(True)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self._hint = text
        self.is_error = False
        self.show_hint()

    def show_hint(self, text: str | None = None) -> None:
        if text is not None:
            self._hint = text
        self._show(self._hint, palette_colors(self).muted, error=False)

    def show_error(self, text: str) -> None:
        self._show(text, palette_colors(self).error, error=True)

    def show_ok(self, text: str) -> None:
        self._show(text, palette_colors(self).ok, error=False)

    def _show(self, text: str, color: str, *, error: bool) -> None:
        self.is_error = error
        self.setText(text)
        self.setStyleSheet(f"color: {color};")
        self.setVisible(bool(text))


class DetectionLabel(HintLabel):
    """What detecting a CLI found: green when found, red otherwise; the tooltip names the program run."""

    def show_detection(self, detection: Detection) -> None:
        text = describe_detection(detection)
        if detection.found:
            self.show_ok(text)
        else:
            self.show_error(text)
        self.setToolTip(detection.path or detection.command)


class Notice(QLabel):
    """A one-line banner telling the user something that matters now (e.g. "restart to apply")."""

    def __init__(self, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(text, parent)
        self.setWordWrap(True)
        c = palette_colors(self)
        self.setStyleSheet(
            f"background: {c.header_active}; color: {c.text}; border-left: 3px solid {c.warn};"
            " padding: 6px 10px;"
        )


class ElidedLabel(QLabel):
    """One line cut with an ellipsis to the label's width; `full_text` keeps the whole line."""

    def __init__(self, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.full_text = ""
        self.set_full_text(text)

    def set_full_text(self, text: str) -> None:
        self.full_text = text
        self._elide()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._elide()

    def _elide(self) -> None:
        self.setText(self.fontMetrics().elidedText(self.full_text, Qt.TextElideMode.ElideRight, self.width()))


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
