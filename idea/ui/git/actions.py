"""What the Git panel's buttons and menus do: each gesture is one call on the project's git workspace,
then the panel refreshes; refusals and failures are shown, never swallowed."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from idea.application.git.access import MISSING_IDENTITY
from idea.application.git.projects import GitWorkspace
from idea.domain.errors import AppError
from idea.domain.git.model import CommitInfo, Identity
from idea.ui.git.commit_box import CommitBox
from idea.ui.git.dialogs import IdentityDialog, LineDialog, LossDialog
from idea.ui.git.panel_context import PanelContext
from idea.ui.widgets.messages import error_text

T = TypeVar("T")


class PanelActions:
    """The gestures of the Changes tab and the branch switcher."""

    def __init__(self, context: PanelContext, commit_box: CommitBox) -> None:
        self._ctx = context
        self._commit_box = commit_box
        self.dialog: object | None = None  # the dialog open now (kept alive, inspected by tests)

    def call(
        self,
        work: Callable[[GitWorkspace], Coroutine[Any, Any, T]],
        done: str | Callable[[T], None] | None = None,
        on_error: Callable[[BaseException], None] | None = None,
    ) -> None:
        git = self._ctx.git()
        if git is None:
            return

        def finished(result: T) -> None:
            if callable(done):
                done(result)
            elif done:
                self._ctx.show_message(done)
            self._ctx.refresh()

        git.call(work, finished, on_error or self.failed)

    def failed(self, error: BaseException) -> None:
        self._ctx.show_error(error_text(error))
        self._ctx.refresh()

    def init_repository(self) -> None:
        self.call(lambda ws: ws.init(), "Repository created, on branch main.")

    def stage(self, paths: list[str]) -> None:
        if paths:
            self.call(lambda ws: ws.git.stage(paths))

    def unstage(self, paths: list[str]) -> None:
        if paths:
            self.call(lambda ws: ws.git.unstage(paths))

    def commit(self, message: str) -> None:
        box = self._commit_box
        box.set_busy(True)

        def done(made: CommitInfo) -> None:
            box.set_busy(False)
            box.committed()
            self._ctx.show_message(f"Committed {made.short}: {made.summary}")

        def failed(error: BaseException) -> None:
            box.set_busy(False)
            if isinstance(error, AppError) and error.data.get(MISSING_IDENTITY):
                self.ask_identity(lambda: self.commit(message))
            else:
                self.failed(error)

        self.call(lambda ws: ws.git.commit(message), done, failed)

    def ask_identity(self, then: Callable[[], None]) -> IdentityDialog:
        def chosen(identity: Identity, everywhere: bool) -> None:
            self.call(lambda ws: ws.git.set_identity(identity, everywhere), lambda _r: then())

        dialog = IdentityDialog(chosen, self._ctx.widget)
        self.dialog = dialog
        dialog.open()
        return dialog

    def switch_branch(self, name: str) -> None:
        self.call(lambda ws: ws.git.switch_branch(name), f"Switched to {name}.")

    def ask_new_branch(self) -> LineDialog:
        dialog = LineDialog(
            "New branch", "Name of the new branch (made from HEAD, then checked out):", self.create_branch,
            accept_text="Create", parent=self._ctx.widget,
        )
        self.dialog = dialog
        dialog.open()
        return dialog

    def create_branch(self, name: str) -> None:
        self.call(lambda ws: ws.git.create_branch(name), f"Created {name} and switched to it.")

    def delete_branch(self, name: str, force: bool = False) -> None:
        def failed(error: BaseException) -> None:
            if isinstance(error, AppError) and error.data.get("unmerged") and not force:
                self.call(lambda ws: ws.git.unmerged_commits(name, "HEAD"),
                          lambda commits: self._confirm_delete(name, error.message, commits))
            else:
                self.failed(error)

        self.call(lambda ws: ws.git.delete_branch(name, force), f"Deleted branch {name}.", failed)

    def _confirm_delete(self, name: str, message: str, commits: tuple[CommitInfo, ...]) -> None:
        listing = "\n".join(f"{c.short} {c.summary}" for c in commits)
        dialog = LossDialog("Delete branch", f"{message} These commits would be lost:", listing, "Delete anyway",
                            lambda: self.delete_branch(name, force=True), self._ctx.widget)
        self.dialog = dialog
        dialog.open()
