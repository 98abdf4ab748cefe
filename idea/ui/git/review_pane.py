"""The review beside a diff: its comments (draft, sent with their ticket, and the hint of which were
addressed since), and "Send to agent ▸ name"."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QPlainTextEdit,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from idea.domain.git.model import display_path
from idea.domain.git.review import Hint, Review, ReviewComment
from idea.domain.wording import counted
from idea.ui.theme import monospace_font
from idea.ui.widgets.labels import HintLabel

COMMENT_ID_ROLE = Qt.ItemDataRole.UserRole


def comment_status(comment: ReviewComment, hint: Hint | None, placed: bool) -> str:
    parts = []
    if comment.sent:
        parts.append(f"sent to {comment.sent_to} · ticket {(comment.sent_ticket or '')[:8]}")
        if hint is Hint.CHANGED:
            parts.append("the line changed since: probably addressed")
        elif hint is Hint.UNCHANGED:
            parts.append("the line is unchanged")
    else:
        parts.append("draft")
    if not placed:
        parts.append("not in this diff")
    return " · ".join(parts)


class ReviewPane(QWidget):
    sendRequested = Signal(str)  # agent name
    deleteRequested = Signal(str)  # comment id
    discardRequested = Signal()
    commentActivated = Signal(str)

    def __init__(self, agent_names: Callable[[], Sequence[str]], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._agent_names = agent_names
        self.review: Review | None = None
        self.title = QLabel("<b>Review</b>")
        self.hint = HintLabel("Double-click a line (or right-click it) to comment on it.")
        self.comments = QListWidget()
        self.comments.setAccessibleName("Comments")
        self.comments.setWordWrap(True)
        self.comments.setAlternatingRowColors(True)
        self.comments.setSpacing(2)
        self.comments.itemActivated.connect(lambda item: self.commentActivated.emit(item.data(COMMENT_ID_ROLE)))
        self.comments.itemSelectionChanged.connect(self._update_buttons)
        self.send_button = QToolButton()
        self.send_button.setText("Send to agent ▸")
        self.send_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.send_menu = QMenu(self.send_button)
        self.send_menu.aboutToShow.connect(self._fill_agents)
        self.send_button.setMenu(self.send_menu)
        self.delete_button = QPushButton("Delete comment")
        self.delete_button.clicked.connect(self._delete_selected)
        self.discard_button = QPushButton("Discard review")
        self.discard_button.clicked.connect(self.discardRequested.emit)
        buttons = QHBoxLayout()
        buttons.addWidget(self.send_button)
        buttons.addStretch(1)
        buttons.addWidget(self.delete_button)
        column = QVBoxLayout(self)
        column.setContentsMargins(6, 6, 6, 6)
        column.addWidget(self.title)
        column.addWidget(self.hint)
        column.addWidget(self.comments, 1)
        column.addLayout(buttons)
        column.addWidget(self.discard_button, 0, Qt.AlignmentFlag.AlignRight)
        self.set_review(None, {}, set())

    def set_review(self, review: Review | None, hints: dict[str, Hint], placed: set[str]) -> None:
        self.review = review
        self.comments.clear()
        comments = review.comments if review is not None else ()
        for comment in comments:
            where = f"{display_path(comment.path)}:{comment.line} ({comment.side})"
            status = comment_status(comment, hints.get(comment.id or ""), (comment.id or "") in placed)
            item = QListWidgetItem(f"{where} — {comment.text}\n    {status}")
            item.setData(COMMENT_ID_ROLE, comment.id)
            item.setToolTip(f"`{comment.excerpt}`\n\n{comment.text}")
            self.comments.addItem(item)
        unsent = len(review.unsent()) if review is not None else 0
        sent = len(comments) - unsent
        counts = counted(len(comments), "comment")
        self.title.setText(f"<b>Review</b> — {counts}" + (f", {sent} sent" if sent else ""))
        self.send_button.setText(f"Send {unsent} to agent ▸" if unsent else "Send to agent ▸")
        self._update_buttons()

    def _update_buttons(self) -> None:
        review = self.review
        self.send_button.setEnabled(review is not None and bool(review.unsent()))
        self.discard_button.setEnabled(review is not None)
        self.delete_button.setEnabled(self.comments.currentItem() is not None)

    def _fill_agents(self) -> None:
        self.send_menu.clear()
        names = list(self._agent_names())
        if not names:
            self.send_menu.addAction("No agent in this project yet").setEnabled(False)
        for name in names:
            self.send_menu.addAction(name, lambda n=name: self.sendRequested.emit(n))

    def _delete_selected(self) -> None:
        item = self.comments.currentItem()
        if item is not None:
            self.deleteRequested.emit(item.data(COMMENT_ID_ROLE))


class CommentDialog(QDialog):
    """Write (or edit) the comment on one line; `accepted_text(text)` on OK."""

    def __init__(self, where: str, excerpt: str, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.setWindowTitle("Comment on a line")
        self.setMinimumWidth(460)
        quoted = QLabel(excerpt or "(empty line)")
        quoted.setFont(monospace_font())
        quoted.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.text = QPlainTextEdit(text)
        self.text.setAccessibleName("Comment")
        self.text.setPlaceholderText("What should change here?")
        self.text.setTabChangesFocus(True)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.ok.setText("Save comment")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.text.textChanged.connect(lambda: self.ok.setEnabled(bool(self.text.toPlainText().strip())))
        self.ok.setEnabled(bool(text.strip()))
        column = QVBoxLayout(self)
        column.addWidget(QLabel(where))
        column.addWidget(quoted)
        column.addWidget(self.text, 1)
        column.addWidget(self.buttons)
        self.text.setFocus()


class SendReviewDialog(QDialog):
    """Shows exactly what will be typed into the agent's terminal before it is sent."""

    def __init__(self, agent: str, ticket_text: str, running: bool, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.setWindowTitle(f"Send the review to {agent}")
        self.setMinimumSize(560, 320)
        where = (
            f"This text is typed into {agent}'s terminal as one task, after the tasks already queued for it."
            if running
            else f"{agent} is not running: it is started first, then this text is typed into its terminal."
        )
        intro = QLabel(where)
        intro.setWordWrap(True)
        self.preview = QPlainTextEdit(ticket_text)
        self.preview.setAccessibleName("Text to send")
        self.preview.setReadOnly(True)
        self.preview.setFont(monospace_font())
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText(f"Send to {agent}")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        column = QVBoxLayout(self)
        column.addWidget(intro)
        column.addWidget(self.preview, 1)
        column.addWidget(self.buttons)
