"""The small labels of the screens: a hint under a field (red for an error), what detecting a CLI found,
a notice that matters now, a line cut to its width, and a form row as tall as its wrapped text; a row's label
that names its field."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QLabel, QSizePolicy, QVBoxLayout, QWidget

from idea.application.agents.ports import Detection
from idea.application.agents.profile_descriptions import describe_detection
from idea.ui.theme import palette_colors


def label_for(text: str, field: QWidget) -> QLabel:
    """A label naming `field` for a screen reader (its buddy): beside its field outside a form, or for a form
    row holding more than the field, where a form leaves the label unattached. On Linux a combo box is named
    by its label only."""
    label = QLabel(text)
    label.setBuddy(field)
    return label


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

    def show_detection(self, detection: Detection, hint: str | None = None) -> None:
        """`hint`: what to do about it, after what was found (how to install a CLI not found)."""
        text = describe_detection(detection)
        if detection.found:
            self.show_ok(text)
        else:
            self.show_error(f"{text}. {hint}" if hint else text)
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


class FittedRow(QWidget):
    """A widget for a form row holding a wrapped label (a hint beside a check box): as tall as its text needs at
    the row's width. A form layout sizes a row by its field's size hint, and a wrapped label's hint is several
    lines tall at a width Qt guesses, so a one-line hint took the height of three."""

    def sizeHint(self) -> QSize:
        hint = super().sizeHint()
        return QSize(hint.width(), self.heightForWidth(self.width())) if self.width() > 0 else hint

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if event.oldSize().width() != event.size().width():
            self.updateGeometry()  # the height it needs changed with the width
