"""The Agents panel's gestures on the per-agent worktree option (spec 07 §2): turn "Run in its own worktree"
on or off, delete an agent together with its worktree, and choose what to do when an agent's worktree folder
is missing at launch. Each is one use case of `runtime.worktrees` (`AgentWorktrees`); what git would lose is
listed and confirmed before anything is removed."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox, QWidget

from idea.application.agents.agent_rows import AgentRow
from idea.application.git.agent_worktrees import AgentWorktree
from idea.application.git.worktrees import RemovalNeedsConfirmation
from idea.application.projects import ProjectRuntime
from idea.domain.agent import Worktree
from idea.domain.git.worktrees import RemovalReport, WorktreeMissing
from idea.ui.agents.gestures import GestureContext
from idea.ui.git.dialogs import LossDialog
from idea.ui.widgets.messages import ask, show_error


class WorktreeGestures:
    def __init__(self, context: GestureContext) -> None:
        self._ctx = context
        self.dialog: QWidget | None = None  # the last dialog opened (kept alive; inspected by tests)

    @staticmethod
    def worktree_of(runtime: ProjectRuntime | None, row: AgentRow | None) -> Worktree | None:
        if runtime is None or row is None:
            return None
        entry = runtime.agents.manifest().by_id(row.agent_id)
        return entry.worktree if entry is not None else None

    # -- the option --

    def toggle(self) -> None:
        """The "Run in its own worktree" action of the selected agent."""
        selection = self._ctx.selection()
        if selection is None:
            return
        row, runtime = selection
        worktree = self.worktree_of(runtime, row)
        if worktree is None:
            self._ctx.run(
                f"Cannot give {row.name} its own worktree",
                runtime.worktrees.enable(row.agent_id, self._ctx.model.active_cell()),
                lambda outcome: self.show_outcome(runtime, outcome),
            )
            return
        if row.is_live:
            self.dialog = show_error(self._ctx.widget, "Run in the main tree",
                                     f"{row.name} is running in its worktree; stop it first.")
            return
        self.dialog = ask(
            self._ctx.widget, "Run in the main tree", f"Stop running {row.name} in its own worktree?", "Remove worktree",
            lambda: self._remove(row, runtime, worktree, None, deleting=False),
            informative=f"The worktree {worktree.path} is removed (anything that would be lost is listed first). "
            f"The branch {worktree.branch} stays, so its commits can still be merged. {row.name} then works in "
            "the main tree from its next launch.",
            destructive=True,
        )

    def show_outcome(self, runtime: ProjectRuntime, outcome: AgentWorktree) -> None:
        """Where the agent now works, the files copied from `.worktreeinclude` and those skipped, the setup cell;
        a running agent is offered a restart so that it moves there now."""
        name = outcome.agent.name
        self._ctx.status(f"{name} works in {outcome.created.info.path}")
        box = QMessageBox(QMessageBox.Icon.Information, "Own worktree", outcome.describe(),
                          QMessageBox.StandardButton.NoButton, self._ctx.widget)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        if outcome.running:
            restart = box.addButton("Restart now", QMessageBox.ButtonRole.AcceptRole)
            restart.clicked.connect(lambda: self._ctx.run(
                f"Cannot restart {name}", runtime.placement.relaunch(outcome.agent.agent_id, "worktree"),
                self._ctx.done(f"{name} restarted in its worktree"),
            ))
            box.addButton("Later", QMessageBox.ButtonRole.RejectRole)
        else:
            box.addButton(QMessageBox.StandardButton.Ok)
        self.dialog = box
        box.open()

    # -- deleting an agent that has a worktree --

    def delete(self, row: AgentRow, runtime: ProjectRuntime, worktree: Worktree) -> None:
        self.dialog = ask(
            self._ctx.widget, "Delete agent", f"Delete the agent “{row.name}” and its worktree?", "Delete",
            lambda: self._remove(row, runtime, worktree, None, deleting=True),
            informative=f"Its worktree {worktree.path} is removed (anything that would be lost is listed first); "
            f"the branch {worktree.branch} stays. Its persona is kept in .ideai/agents/.deleted/; its "
            "conversations, handoffs and memory stay.",
            destructive=True,
        )

    def _remove(
        self, row: AgentRow, runtime: ProjectRuntime, worktree: Worktree, confirmed: RemovalReport | None,
        *, deleting: bool,
    ) -> None:
        work: Coroutine[Any, Any, object] = (
            runtime.worktrees.delete_agent(row.agent_id, confirmed) if deleting
            else runtime.worktrees.disable(row.agent_id, confirmed)
        )
        title = f"Cannot delete {row.name}" if deleting else f"Cannot remove {row.name}'s worktree"
        done = f"Agent {row.name} and its worktree deleted" if deleting else f"{row.name} now works in the main tree"

        def failed(error: BaseException) -> None:
            if isinstance(error, RemovalNeedsConfirmation):
                report = error.report
                self.dialog = LossDialog(
                    "Remove worktree",
                    f"Removing {worktree.path} would lose this work. The branch {worktree.branch} stays, but "
                    "uncommitted files are deleted with the folder.",
                    report.describe(error.base), "Remove and lose it",
                    lambda: self._remove(row, runtime, worktree, report, deleting=deleting), self._ctx.widget,
                )
                self.dialog.open()
            else:
                self.dialog = show_error(self._ctx.widget, title, error)

        self._ctx.client.call(work, on_done=self._ctx.done(done), on_error=failed)

    # -- a missing worktree at launch --

    def launch_failed(self, row: AgentRow, runtime: ProjectRuntime, title: str, retry: Callable[[], None],
                      error: BaseException) -> None:
        """A launch error: a missing worktree offers its choice, anything else is shown as it is."""
        if not isinstance(error, WorktreeMissing):
            self.dialog = show_error(self._ctx.widget, title, error)
            return
        box = QMessageBox(QMessageBox.Icon.Warning, "Worktree missing",
                          f"{row.name}'s worktree is missing: {error.path}", QMessageBox.StandardButton.NoButton,
                          self._ctx.widget)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.setInformativeText(
            f"Recreate it on the branch {error.branch} (its commits are all there; uncommitted files that were in "
            f"the folder are gone), or run {row.name} in the main tree from now on (the branch stays)."
        )
        recreate = box.addButton("Recreate worktree", QMessageBox.ButtonRole.AcceptRole)
        main_tree = box.addButton("Run in the main tree", QMessageBox.ButtonRole.AcceptRole)
        cancel = box.addButton(QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(recreate)
        box.setEscapeButton(cancel)

        def recreated(_outcome: AgentWorktree) -> None:
            self._ctx.status(f"{row.name}'s worktree recreated at {error.path}")
            retry()

        recreate.clicked.connect(lambda: self._ctx.run(
            f"Cannot recreate {row.name}'s worktree",
            runtime.worktrees.recreate(row.agent_id, self._ctx.model.active_cell()),
            recreated,
        ))
        main_tree.clicked.connect(lambda: self._ctx.run(
            f"Cannot run {row.name} in the main tree", runtime.worktrees.use_main_tree(row.agent_id),
            lambda _none: retry(),
        ))
        self.dialog = box
        box.open()
