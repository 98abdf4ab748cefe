"""The Worktrees tab's actions: diff vs base, merge into base (conflicts reported, never forced), remove
(what would be lost shown first, removal only once the person confirms that list; an agent's worktree is
removed by turning its option off, so that the agent then works in the main tree), and the project's setup
command for new agent worktrees."""

from __future__ import annotations

from idea.application.git.access import MISSING_IDENTITY
from idea.application.git.agent_worktrees import agent_in
from idea.application.git.worktrees import RemovalNeedsConfirmation, spec_for
from idea.domain.errors import AppError
from idea.domain.git.worktrees import MergeKind, MergeOutcome, RemovalReport, WorktreeView
from idea.ui.git.actions import PanelActions
from idea.ui.git.dialogs import LineDialog, LossDialog
from idea.ui.git.panel_context import PanelContext
from idea.ui.git.worktree_list import WorktreeList
from idea.ui.widgets.messages import ask, show_error


class WorktreeActions:
    def __init__(self, context: PanelContext, actions: PanelActions, worktrees: WorktreeList) -> None:
        self._ctx = context
        self.actions = actions
        self.dialog: object | None = None
        worktrees.diffRequested.connect(self.diff)
        worktrees.mergeRequested.connect(self.confirm_merge)
        worktrees.removeRequested.connect(self.request_removal)
        worktrees.setupRequested.connect(self.edit_setup_command)
        self._worktrees = worktrees

    def diff(self, view: WorktreeView) -> None:
        self._ctx.open_diff(spec_for(view))

    def confirm_merge(self, view: WorktreeView) -> None:
        branch = view.info.branch or ""
        self.dialog = ask(
            self._ctx.widget, "Merge into base", f"Merge {branch} into {view.base}?", "Merge", lambda: self.merge(view),
            informative=(
                f"A fast-forward when {view.base} has nothing new, otherwise a merge commit. If the two conflict, "
                "nothing is changed and the conflicting files are listed. When it is checked out here, your "
                "working tree must be clean."
            ),
        )

    def merge(self, view: WorktreeView) -> None:
        def failed(error: BaseException) -> None:
            if isinstance(error, AppError) and error.data.get(MISSING_IDENTITY):
                self.actions.ask_identity(lambda: self.merge(view))
            else:
                self.actions.failed(error)

        self.actions.call(lambda ws: ws.worktrees.merge_into_base(view.info.name), self._merged, failed)

    def _merged(self, outcome: MergeOutcome) -> None:
        if outcome.kind is MergeKind.CONFLICTS:
            self.dialog = show_error(self._ctx.widget, "Merge not done", outcome.message())
            self._ctx.show_error(outcome.message())
        else:
            self._ctx.show_message(outcome.message())

    def request_removal(self, view: WorktreeView) -> None:
        """Ask first; when removing would lose work, the list of what is lost is shown and confirmed too."""
        owner = self._worktrees.owner(view)
        then = f" {owner} then works in the main tree from its next launch." if owner else ""
        self.dialog = ask(
            self._ctx.widget, "Remove worktree",
            f"Remove {owner}'s worktree at {view.info.path}?" if owner else f"Remove the worktree at {view.info.path}?",
            "Remove", lambda: self.remove(view, None),
            informative=f"Its folder is deleted; the branch {view.info.branch or ''} stays. The main tree is "
                        f"never touched.{then}",
            destructive=True,
        )

    def remove(self, view: WorktreeView, confirmed: RemovalReport | None) -> None:
        name = view.info.name
        git = self._ctx.git()
        owner = self._owner_id(view)
        if git is not None and owner is not None:  # the agent's option is turned off with it
            runtime = git.runtime

            def agent_failed(error: BaseException) -> None:
                if isinstance(error, RemovalNeedsConfirmation):
                    self.confirm_removal(view, error)
                else:
                    self.actions.failed(error)

            git.core.call(
                runtime.worktrees.disable(owner, confirmed),
                lambda _none: (self._ctx.show_message(
                    f"Removed {self._worktrees.owner(view)}'s worktree (branch {view.info.branch} kept); it now "
                    "works in the main tree."), self._ctx.refresh()),
                agent_failed,
            )
            return

        def failed(error: BaseException) -> None:
            if isinstance(error, RemovalNeedsConfirmation):
                self.confirm_removal(view, error)
            else:
                self.actions.failed(error)

        self.actions.call(lambda ws: ws.worktrees.remove(name, confirmed),
                          f"Removed the worktree {view.info.path} (branch {view.info.branch} kept).", failed)

    def confirm_removal(self, view: WorktreeView, refusal: RemovalNeedsConfirmation) -> None:
        report = refusal.report
        self.dialog = LossDialog(
            "Remove worktree",
            f"Removing {view.info.path} would lose this work. The branch stays, but uncommitted files are "
            "deleted with the folder.",
            report.describe(refusal.base),
            "Remove and lose it",
            lambda: self.remove(view, report),
            self._ctx.widget,
        )
        self.dialog.open()

    def edit_setup_command(self) -> None:
        self.actions.call(lambda ws: ws.read_setup_command(), self._ask_setup_command)

    def _ask_setup_command(self, current: str | None) -> None:
        def save(command: str) -> None:
            saved = f"New agent worktrees run: {command}" if command else "New agent worktrees run no setup command."
            self.actions.call(lambda ws: ws.change_setup_command(command), saved)

        dialog = LineDialog(
            "Worktree setup command",
            "Command run in a shell cell in each new agent worktree of this project (empty: none):",
            save,
            text=current or "",
            hint="For example npm ci or uv sync: what makes a fresh checkout runnable. Kept in your own IdeA "
                 "settings (projects.json), not in the repository.",
            accept_text="Save",
            allow_empty=True,
            parent=self._ctx.widget,
        )
        self.dialog = dialog
        dialog.open()

    def _owner_id(self, view: WorktreeView) -> str | None:
        git = self._ctx.git()
        agent = agent_in(git.runtime.agents.manifest(), view.info.path) if git is not None else None
        return agent.agent_id if agent is not None else None
