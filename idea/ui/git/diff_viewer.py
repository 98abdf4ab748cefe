"""The diff viewer window (spec 07 §3): working tree vs HEAD, staged changes, a commit, a branch or a
worktree against its base; unified or side by side; a file list; hunks staged or unstaged from it; and
the review of the diff, whose comments go to an agent as one human ticket."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QButtonGroup,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSplitter,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from idea.application.git.projects import GitWorkspace
from idea.domain.git.diff import Diff, DiffKind, DiffSpec
from idea.domain.git.events import GitChanged
from idea.domain.git.model import display_path
from idea.domain.git.review import Hint, Review, ticket_text
from idea.domain.wording import counted
from idea.ui.git.diff_paint import CHANGE_LETTERS
from idea.ui.git.diff_view import Anchor, DiffView
from idea.ui.git.git_client import GitClient
from idea.ui.git.review_pane import CommentDialog, ReviewPane, SendReviewDialog
from idea.ui.widgets.labels import HintLabel, Notice
from idea.ui.widgets.messages import ask, error_text
from idea.ui.widgets.window_size import size_within_screen

_HUNK_ACTIONS = {DiffKind.UNSTAGED: "Stage this hunk", DiffKind.STAGED: "Unstage this hunk"}
_LIVE_KINDS = (DiffKind.WORKING, DiffKind.UNSTAGED, DiffKind.STAGED, DiffKind.WORKTREE, DiffKind.BRANCH)


@dataclass(frozen=True)
class Loaded:
    diff: Diff
    review: Review | None
    hints: dict[str, Hint]


async def load(workspace: GitWorkspace, spec: DiffSpec) -> Loaded:
    diff = await workspace.git.diff(spec)
    review = await workspace.reviews.review_for(diff)
    hints = await workspace.reviews.hints(review, diff) if review is not None else {}
    return Loaded(diff, review, hints)


class DiffWindow(QWidget):
    def __init__(self, git: GitClient, spec: DiffSpec, focus_path: str | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self._git = git
        self.spec = spec
        self._focus_path = focus_path
        self.diff: Diff | None = None
        self.review: Review | None = None
        self._hints: dict[str, Hint] = {}
        size_within_screen(self, 1280, 820)
        self.setWindowTitle(f"{spec.title()} — {git.runtime.name}")

        self.title = QLabel(f"<b>{spec.title()}</b>")
        self.stats = QLabel("Computing the diff…")
        self.unified = QToolButton(text="Unified", checkable=True, checked=True)
        self.side_by_side = QToolButton(text="Side by side", checkable=True)
        modes = QButtonGroup(self)
        modes.addButton(self.unified)
        modes.addButton(self.side_by_side)
        self.side_by_side.toggled.connect(lambda on: self.view.set_side_by_side(on))
        self.refresh_button = QPushButton("Refresh")
        self.refresh_button.clicked.connect(self.reload)
        bar = QHBoxLayout()
        bar.addWidget(self.title)
        bar.addWidget(self.stats, 1)
        bar.addWidget(self.unified)
        bar.addWidget(self.side_by_side)
        bar.addWidget(self.refresh_button)
        self.stale = Notice("The files changed since this diff was computed. Refresh to see them.")
        self.stale.hide()

        self.files = QListWidget()
        self.files.setAccessibleName("Files")
        self.files.currentRowChanged.connect(self._file_chosen)
        self.view = DiffView()
        self.view.hunk_action_text = _HUNK_ACTIONS.get(spec.kind)
        self.view.commentRequested.connect(self._new_comment)
        self.view.commentEditRequested.connect(self._edit_comment)
        self.view.commentDeleteRequested.connect(self._delete_comment)
        self.view.hunkActionRequested.connect(self._hunk_action)
        self.view.currentFileChanged.connect(self._follow_file)
        self.pane = ReviewPane(self._agent_names)
        self.pane.sendRequested.connect(self._send)
        self.pane.deleteRequested.connect(self._delete_comment)
        self.pane.discardRequested.connect(self._discard)
        self.pane.commentActivated.connect(self._show_comment)
        split = QSplitter()
        split.addWidget(self.files)
        split.addWidget(self.view)
        split.addWidget(self.pane)
        split.setStretchFactor(1, 1)
        split.setSizes([240, 760, 280])
        self.message = HintLabel("")
        column = QVBoxLayout(self)
        column.addLayout(bar)
        column.addWidget(self.stale)
        column.addWidget(split, 1)
        column.addWidget(self.message)
        self.reload()

    # -- loading --

    def reload(self) -> None:
        self.stale.hide()
        self.refresh_button.setEnabled(False)
        spec = self.spec
        self._git.call(lambda ws: load(ws, spec), on_done=self.show_loaded, on_error=self._failed)

    def show_loaded(self, loaded: Loaded) -> None:
        self.refresh_button.setEnabled(True)
        first_load = self.diff is None
        self.diff = loaded.diff
        self.title.setText(f"<b>{loaded.diff.head_label}</b> vs <b>{loaded.diff.base_label}</b>")
        self.stats.setText(loaded.diff.stats_text())
        self.view.set_diff(loaded.diff)
        self.files.blockSignals(True)
        self.files.clear()
        for file in loaded.diff.files:
            letter = CHANGE_LETTERS.get(file.change.value, "M")
            item = QListWidgetItem(f"{letter}  {display_path(file.path)}   +{file.additions} −{file.deletions}")
            item.setToolTip(display_path(file.path))
            self.files.addItem(item)
        self.files.blockSignals(False)
        if not loaded.diff.files:
            self.message.show_hint("No difference.")
        self._set_review(loaded.review, loaded.hints)
        if first_load and self._focus_path is not None:
            for index, file in enumerate(loaded.diff.files):
                if self._focus_path in (file.path, file.old_path):
                    self.files.setCurrentRow(index)

    def _failed(self, error: BaseException) -> None:
        self.refresh_button.setEnabled(True)
        self.stats.setText("")
        self.message.show_error(error_text(error))

    def _set_review(self, review: Review | None, hints: dict[str, Hint] | None = None) -> None:
        self.review = review
        if hints is not None:
            self._hints = hints
        self.view.set_comments(review.comments if review is not None else ())
        self.pane.set_review(review, self._hints, self.view.placed_comment_ids())

    def on_event(self, event: object) -> None:
        """The project's files changed: say so, without moving the diff under the person's eyes."""
        if (
            isinstance(event, GitChanged)
            and event.project_id == self._git.runtime.id
            and not event.reason.startswith("review")
            and self.spec.kind in _LIVE_KINDS
            and self.diff is not None
        ):
            self.stale.show()

    # -- navigation --

    def _file_chosen(self, index: int) -> None:
        if index >= 0:
            self.view.scroll_to_file(index)

    def _follow_file(self, index: int) -> None:
        self.files.blockSignals(True)
        self.files.setCurrentRow(index)
        self.files.blockSignals(False)

    def _show_comment(self, comment_id: str) -> None:
        for index in range(self.view.row_count()):
            line = self.view.line_at(index)
            if getattr(line, "comment_id", None) == comment_id:
                self.view.verticalScrollBar().setValue(max(0, index - 3))
                return

    # -- hunks --

    def _hunk_action(self, file_index: int, hunk_index: int) -> None:
        if self.diff is None:
            return
        file = self.diff.files[file_index]
        hunk = file.hunks[hunk_index]
        path = file.path
        if self.spec.kind is DiffKind.UNSTAGED:
            self._git.call(lambda ws: ws.git.stage_hunk(path, hunk), on_done=lambda _: self.reload(),
                           on_error=self._failed)
        elif self.spec.kind is DiffKind.STAGED:
            self._git.call(lambda ws: ws.git.unstage_hunk(path, hunk), on_done=lambda _: self.reload(),
                           on_error=self._failed)

    # -- comments --

    def _new_comment(self, anchor: Anchor) -> None:
        where = f"{display_path(anchor.path)}:{anchor.line} ({anchor.side})"
        dialog = CommentDialog(where, anchor.text, parent=self)
        dialog.accepted.connect(lambda: self._save_comment(anchor, dialog.text.toPlainText(), None))
        dialog.open()

    def _edit_comment(self, comment_id: str) -> None:
        review = self.review
        if review is None:
            return
        comment = review.comment(comment_id)
        if comment.sent:
            self.message.show_hint("A sent comment stays as the agent received it; add a new one instead.")
            return
        where = f"{display_path(comment.path)}:{comment.line} ({comment.side})"
        dialog = CommentDialog(where, comment.excerpt, comment.text, parent=self)
        anchor = Anchor(-1, -1, comment.path, comment.side, comment.line, comment.hunk_header, comment.excerpt)
        dialog.accepted.connect(lambda: self._save_comment(anchor, dialog.text.toPlainText(), comment_id))
        dialog.open()

    def _save_comment(self, anchor: Anchor, text: str, comment_id: str | None) -> None:
        diff, review = self.diff, self.review
        if diff is None:
            return

        async def save(ws: GitWorkspace) -> Review:
            current = review or await ws.reviews.start(diff)
            return await ws.reviews.comment(
                current.id, path=anchor.path, side=anchor.side, line=anchor.line,
                hunk_header=anchor.hunk_header, line_text=anchor.text, text=text, comment_id=comment_id,
            )

        self._git.call(save, on_done=self._set_review, on_error=self._failed)

    def _delete_comment(self, comment_id: str) -> None:
        review = self.review
        if review is not None:
            self._git.call(lambda ws: ws.reviews.delete_comment(review.id, comment_id),
                           on_done=self._set_review, on_error=self._failed)

    def _discard(self) -> None:
        review = self.review
        if review is None:
            return

        def discard() -> None:
            self._git.call(lambda ws: ws.reviews.discard(review.id), on_done=lambda _: self._set_review(None, {}),
                           on_error=self._failed)

        ask(self, "Discard the review", f"Delete the review and its {counted(len(review.comments), 'comment')}?",
            "Discard", discard, destructive=True)

    # -- sending --

    def _agent_names(self) -> list[str]:
        return [agent.name for agent in self._git.runtime.agents.manifest().agents]

    def _send(self, agent: str) -> None:
        review = self.review
        if review is None or not review.unsent():
            return
        entry = self._git.runtime.agents.manifest().by_name(agent)
        running = entry is not None and any(
            s.agent_id == entry.agent_id and s.is_live for s in self._git.runtime.sessions.snapshot()
        )
        dialog = SendReviewDialog(agent, ticket_text(review, review.unsent()), running, parent=self)
        dialog.accepted.connect(lambda: self._deliver(review, agent))
        dialog.open()
        self.send_dialog = dialog

    def _deliver(self, review: Review, agent: str) -> None:
        gateway = self._git.runtime.orchestrator
        self.message.show_hint(f"Sending the review to {agent}…")

        def sent(result: tuple[str, Review]) -> None:
            ticket, marked = result
            self._set_review(marked)
            self.message.show_ok(f"Sent to {agent} as ticket {ticket[:8]}; the comments are marked with it.")

        self._git.call(lambda ws: ws.reviews.send(review.id, agent, gateway), on_done=sent, on_error=self._failed)
