"""The Context view (spec 04 §14): the person edits `.ideai/CONTEXT.md`, and reviews the proposals other agents
filed, each shown as a diff against the context as it is now, with a warning when the context changed since;
Accept replaces the context, Reject deletes the proposal."""

from __future__ import annotations

import html
from collections.abc import Coroutine
from typing import Any, Protocol

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from idea.application.knowledge.context import ProposalReview
from idea.domain.knowledge.context import DiffKind
from idea.domain.knowledge.events import ProjectContextChanged, ProposalFiled, ProposalResolved
from idea.ui.knowledge.common import Caller, StatusLine, call_for, clock_time, theme_of, unwrapped
from idea.ui.widgets.empty_hint import EmptyHint
from idea.ui.widgets.list_row_delegate import ListRowDelegate


class ContextPort(Protocol):
    def read(self) -> Coroutine[Any, Any, str]: ...

    def write(self, content: str) -> Coroutine[Any, Any, None]: ...

    def reviews(self) -> Coroutine[Any, Any, tuple[ProposalReview, ...]]: ...

    def accept(self, file_name: str) -> Coroutine[Any, Any, None]: ...

    def reject(self, file_name: str) -> Coroutine[Any, Any, None]: ...


class ContextView(QWidget):
    loaded = Signal()

    def __init__(self, caller: Caller, context: ContextPort, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._caller = caller
        self._context = context
        self.reviews: tuple[ProposalReview, ...] = ()
        self._saved_text = ""

        self.editor = QPlainTextEdit()
        self.editor.setAccessibleName("Project context")
        self.editor.setPlaceholderText("What every agent of this project should know: goals, conventions, constraints.")
        self.editor.textChanged.connect(self._edited)
        self.save_button = QPushButton("Save context")
        self.save_button.setEnabled(False)
        self.save_button.clicked.connect(self.save)
        top = QVBoxLayout()
        top.setContentsMargins(0, 0, 0, 0)
        top.addWidget(QLabel("<b>Project context</b> — <code>.ideai/CONTEXT.md</code>, given to every agent at launch. "
                             "Only you and the orchestrator write it; other agents propose changes."))
        top.addWidget(self.editor, 1)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(self.save_button)
        top.addLayout(row)
        top_box = QWidget()
        top_box.setLayout(top)

        self.proposals = QListWidget()
        self.proposals.setAccessibleName("Proposals")
        self.proposals.setItemDelegate(ListRowDelegate(self.proposals))
        self.proposals.currentRowChanged.connect(self._selected)
        EmptyHint(self.proposals, "No proposal waiting. Agents other than the orchestrator propose changes to the "
                                  "context; they wait here for you.")
        self.diff = QTextBrowser()
        self.diff.setAccessibleName("Proposed change")
        self.diff.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.diff.setPlaceholderText("The change a proposal asks for shows here, against the context as it is.")
        self.warning = QLabel()
        self.warning.setWordWrap(True)
        self.accept_button = QPushButton("Accept")
        self.accept_button.setToolTip("Replace the project context with this proposal")
        self.accept_button.clicked.connect(self.accept_selected)
        self.reject_button = QPushButton("Reject")
        self.reject_button.clicked.connect(self.reject_selected)
        actions = QHBoxLayout()
        actions.addWidget(self.warning, 1)
        actions.addWidget(self.reject_button)
        actions.addWidget(self.accept_button)
        review = QVBoxLayout()
        review.setContentsMargins(0, 0, 0, 0)
        review.addWidget(self.diff, 1)
        review.addLayout(actions)
        review_box = QWidget()
        review_box.setLayout(review)
        proposals_split = QSplitter()
        proposals_split.addWidget(self.proposals)
        proposals_split.addWidget(review_box)
        proposals_split.setStretchFactor(1, 3)
        bottom = QVBoxLayout()
        bottom.setContentsMargins(0, 0, 0, 0)
        self.proposals_title = QLabel("<b>Proposals</b>")
        bottom.addWidget(self.proposals_title)
        bottom.addWidget(proposals_split, 1)
        bottom_box = QWidget()
        bottom_box.setLayout(bottom)

        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(top_box)
        split.addWidget(bottom_box)
        self.status = StatusLine()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(split, 1)
        layout.addWidget(self.status)
        self._selected(-1)

    def reload(self) -> None:
        context = self._context  # the coroutine runs on the core thread: it holds no widget

        async def both() -> tuple[str, tuple[ProposalReview, ...]]:
            return await context.read(), await context.reviews()

        call_for(self, self._caller, both(), self._loaded, self.status.fail)

    def on_event(self, event: object) -> None:
        if isinstance(unwrapped(event), ProjectContextChanged | ProposalFiled | ProposalResolved):
            self.reload()

    def _loaded(self, loaded: tuple[str, tuple[ProposalReview, ...]]) -> None:
        text, reviews = loaded
        if self.editor.toPlainText() == self._saved_text:  # never throw away the person's unsaved edit
            self._saved_text = text
            self.editor.setPlainText(text)
        self._saved_text = text
        self._edited()
        self.reviews = reviews
        self.proposals.blockSignals(True)
        self.proposals.clear()
        for item in reviews:
            entry = QListWidgetItem(item.proposal.author)
            entry.setData(ListRowDelegate.NOTE_ROLE, clock_time(item.proposal.at_ms))
            entry.setData(ListRowDelegate.SUBTITLE_ROLE, "outdated: the context changed since" if item.stale else "proposes a new context")
            entry.setToolTip(item.proposal.file_name)
            self.proposals.addItem(entry)
        self.proposals.blockSignals(False)
        self.proposals_title.setText(f"<b>Proposals</b> ({len(reviews)})" if reviews else "<b>Proposals</b> — none waiting")
        self.proposals.setCurrentRow(0 if reviews else -1)
        self._selected(self.proposals.currentRow())
        self.loaded.emit()

    def _edited(self) -> None:
        self.save_button.setEnabled(self.editor.toPlainText() != self._saved_text)

    def save(self) -> None:
        text = self.editor.toPlainText()

        def saved(_: None) -> None:
            self._saved_text = text
            self._edited()
            self.status.say("Saved the project context; agents get it at their next launch.")

        call_for(self, self._caller, self._context.write(text), saved, self.status.fail)

    def _selected(self, row: int) -> None:
        review = self.reviews[row] if 0 <= row < len(self.reviews) else None
        self.accept_button.setEnabled(review is not None)
        self.reject_button.setEnabled(review is not None)
        if review is None:
            self.diff.setHtml("")
            self.warning.setText("")
            return
        theme = theme_of(self)
        warning = []
        if review.stale:
            warning.append("The context changed after this proposal was written: accepting it undoes those changes.")
        warning.extend(review.problems)
        self.warning.setText(" ".join(warning))
        self.warning.setStyleSheet(f"color: {theme.warn};")
        colours = {DiffKind.ADDED: theme.ok, DiffKind.REMOVED: theme.error, DiffKind.SAME: theme.text, DiffKind.GAP: theme.muted}
        signs = {DiffKind.ADDED: "+", DiffKind.REMOVED: "−", DiffKind.SAME: " ", DiffKind.GAP: "⋯"}
        lines = [
            f'<span style="color:{colours[line.kind]}">{signs[line.kind]} {html.escape(line.text) or "&nbsp;"}</span>'
            for line in review.diff
        ] or ["(no change)"]
        self.diff.setHtml('<pre style="margin:0">' + "\n".join(lines) + "</pre>")

    def _chosen(self) -> ProposalReview | None:
        row = self.proposals.currentRow()
        return self.reviews[row] if 0 <= row < len(self.reviews) else None

    def accept_selected(self) -> None:
        review = self._chosen()
        if review is not None:
            self._saved_text = self.editor.toPlainText()  # the accepted text replaces the editor's
            call_for(self, self._caller, self._context.accept(review.proposal.file_name), lambda _: self.reload(), self.status.fail)

    def reject_selected(self) -> None:
        review = self._chosen()
        if review is not None:
            call_for(self, self._caller, self._context.reject(review.proposal.file_name), lambda _: self.reload(), self.status.fail)
