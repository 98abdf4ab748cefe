"""The Reviews tab: the project's reviews (drafts and sent), each reopening its diff with its comments."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QListWidget, QListWidgetItem, QVBoxLayout, QWidget

from idea.domain.git.review import Review
from idea.domain.wording import counted
from idea.ui.git.git_client import GitClient
from idea.ui.widgets.empty_hint import EmptyHint
from idea.ui.widgets.labels import HintLabel

REVIEW_ROLE = Qt.ItemDataRole.UserRole


class ReviewsPage(QWidget):
    reviewOpened = Signal(object)  # Review

    def __init__(self, client: Callable[[], GitClient | None], failed: Callable[[BaseException], None],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._client = client
        self._failed = failed
        self.list = QListWidget()
        self.list.setAccessibleName("Reviews")
        self.list.setAlternatingRowColors(True)
        self.list.itemActivated.connect(self._open)
        EmptyHint(self.list, "No review yet: comment on a line of any diff to start one.")
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 4, 0, 0)
        column.addWidget(HintLabel("Reviews are kept in .ideai/reviews/ (not versioned). Open one to see its diff "
                                   "and comments again."))
        column.addWidget(self.list, 1)

    def load(self) -> None:
        git = self._client()
        if git is not None:
            git.call(lambda ws: ws.reviews.reviews(), self._show, self._failed)

    def _show(self, found: list[Review]) -> None:
        self.list.clear()
        for review in found:
            sent = sum(1 for c in review.comments if c.sent)
            item = QListWidgetItem(
                f"{review.head} against {review.base} — {counted(len(review.comments), 'comment')}, {sent} sent"
            )
            item.setData(REVIEW_ROLE, review)
            self.list.addItem(item)

    def _open(self, item: QListWidgetItem) -> None:
        review = item.data(REVIEW_ROLE)
        if isinstance(review, Review) and review.target is not None:
            self.reviewOpened.emit(review)
