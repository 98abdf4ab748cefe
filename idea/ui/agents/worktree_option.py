"""The new-agent dialog's "Run in its own worktree" option (spec 07 §2): a check box, the branch it starts
from (the current one unless another local branch is chosen), and where the worktree would go (branch
`idea/<slug>`, the folder beside the repository) — or why this project cannot have one now (no repository,
no commit yet, a detached HEAD…)."""

from __future__ import annotations

from PySide6.QtWidgets import QCheckBox, QComboBox, QHBoxLayout, QLabel, QWidget

from idea.application.projects import ProjectRuntime
from idea.domain.git.worktrees import WorktreeBasis
from idea.ui.core_client import CoreClient
from idea.ui.widgets.labels import FittedRow, HintLabel
from idea.ui.widgets.messages import error_text

OPTION_TIP = (
    "The agent works on its own branch in its own folder, so that its changes never mix with the others' "
    "until you merge them (Git panel ▸ Worktrees). IdeA's shared files stay in the main project."
)


class WorktreeOption(FittedRow):
    def __init__(self, client: CoreClient, runtime: ProjectRuntime, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.check = QCheckBox("Run in its own worktree")
        self.check.setToolTip(OPTION_TIP)
        self.check.setEnabled(False)
        self.base = QComboBox()
        self.base.setToolTip("The branch the agent's branch starts from")
        self.base_label = QLabel("from")
        self.base_label.setBuddy(self.base)
        self.hint = HintLabel("")
        self._basis: WorktreeBasis | None = None
        self._name = ""
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.check)
        row.addWidget(self.base_label)
        row.addWidget(self.base)
        row.addWidget(self.hint, 1)
        self._show_base(False)
        self.check.toggled.connect(lambda _on: self._show_plan())
        self.base.currentIndexChanged.connect(lambda _index: self._show_plan())
        workspace = runtime.git
        if workspace is None:
            self.hide()
            return
        self.hint.show_hint("Looking at the repository…")
        client.call(workspace.worktrees.basis(), on_done=self._available, on_error=self._unavailable)

    @property
    def chosen(self) -> bool:
        return self.check.isEnabled() and self.check.isChecked()

    @property
    def chosen_base(self) -> str | None:
        """The branch chosen to start from; None for the current branch."""
        base = self.base.currentText()
        return base if self.chosen and self._basis is not None and base and base != self._basis.base else None

    def set_agent_name(self, name: str) -> None:
        self._name = name.strip()
        self._show_plan()

    def _available(self, basis: WorktreeBasis) -> None:
        self._basis = basis
        self.base.addItems([basis.base, *(name for name in basis.branches if name != basis.base)])
        self.check.setEnabled(True)
        self._show_plan()

    def _unavailable(self, error: BaseException) -> None:
        self.check.setEnabled(False)
        self.check.setChecked(False)
        self.hint.show_hint(f"Not available: {error_text(error)}")

    def _show_plan(self) -> None:
        if self._basis is None:
            return
        self._show_base(self.check.isChecked())
        if not self.check.isChecked():
            self.hint.show_hint("")
            return
        branch, path = self._basis.planned(self._name or "agent")
        self.hint.show_hint(f"Branch {branch} from {self.base.currentText()}, in {path}")

    def _show_base(self, shown: bool) -> None:
        self.base_label.setVisible(shown)
        self.base.setVisible(shown)
