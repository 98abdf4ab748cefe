"""A Markdown editor with its rendering beside it, for personas and templates."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QPlainTextEdit, QSplitter, QTextBrowser, QVBoxLayout, QWidget

from idea.ui.theme import monospace_font
from idea.ui.widgets.labels import HintLabel
from idea.ui.widgets.timers import single_shot_timer

PREVIEW_DELAY_MS = 150


class MarkdownEditor(QWidget):
    """A plain-text Markdown editor with a live preview beside it."""

    changed = Signal()

    def __init__(self, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.source = QPlainTextEdit()
        self.source.setFont(monospace_font())
        self.source.setTabChangesFocus(False)
        self.source.setPlaceholderText("# Role\n\nWhat this agent does, what it must not do, how it reports.")
        self.preview = QTextBrowser()
        self.preview.setOpenExternalLinks(True)
        self.preview.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(self._titled("Markdown", self.source))
        splitter.addWidget(self._titled("Preview", self.preview))
        splitter.setChildrenCollapsible(False)
        splitter.setSizes([1, 1])
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(splitter)
        # Rendering on every keystroke is wasteful for long personas; a short pause is enough.
        self._render_timer = single_shot_timer(self, PREVIEW_DELAY_MS, self._render)
        self.source.textChanged.connect(self._render_timer.start)
        self.source.textChanged.connect(self.changed)
        self.set_text(text)

    @staticmethod
    def _titled(title: str, body: QWidget) -> QWidget:
        box = QWidget()
        column = QVBoxLayout(box)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(4)
        label = HintLabel(title)
        label.setBuddy(body)  # what a screen reader names it
        column.addWidget(label)
        column.addWidget(body, 1)
        return box

    def text(self) -> str:
        return self.source.toPlainText()

    def set_text(self, text: str) -> None:
        self.source.setPlainText(text)
        self._render()

    def _render(self) -> None:
        self._render_timer.stop()
        scroll = self.preview.verticalScrollBar().value()
        self.preview.setMarkdown(self.source.toPlainText())
        self.preview.verticalScrollBar().setValue(scroll)
