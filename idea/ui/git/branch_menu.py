"""The branch switcher: the current branch on a button whose menu switches, compares, creates and deletes
branches, and says where push and fetch are."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QMenu, QToolButton, QWidget

from idea.domain.git.model import Branch, Head
from idea.domain.path_names import last_part

NO_PUSH = "Push / fetch / pull request: in a terminal (see below)"


class BranchButton(QToolButton):
    switchRequested = Signal(str)
    createRequested = Signal()
    deleteRequested = Signal(str)
    compareRequested = Signal(str)  # a branch, to diff against the current one

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.setText("⎇ —")
        self.menu_ = QMenu(self)
        self.setMenu(self.menu_)
        self.branches: tuple[Branch, ...] = ()
        self.switch_blocked: str | None = None

    def show_branches(self, head: Head, branches: Sequence[Branch], switch_blocked: str | None) -> None:
        self.branches = tuple(branches)
        self.switch_blocked = switch_blocked
        self.setText(f"⎇ {head.label()}")
        self.setToolTip(f"Current branch: {head.label()}. Click to switch, create or delete branches.")
        menu = self.menu_
        menu.clear()
        if switch_blocked:
            note = menu.addAction(switch_blocked)
            note.setEnabled(False)
        for branch in branches:
            label = branch.name
            if branch.worktree:
                label += f"   (in worktree {last_part(branch.worktree)})"
            action = menu.addAction(label, lambda name=branch.name: self.switchRequested.emit(name))
            action.setCheckable(True)
            action.setChecked(branch.is_head)
            action.setEnabled(not branch.is_head and not branch.worktree and switch_blocked is None)
        menu.addSeparator()
        others = [b for b in branches if not b.is_head]
        compare = menu.addMenu(f"Diff against {head.label()}")
        compare.setEnabled(bool(others) and not head.unborn)
        for branch in others:
            compare.addAction(branch.name, lambda name=branch.name: self.compareRequested.emit(name))
        menu.addAction("New branch…", self.createRequested.emit).setEnabled(not head.unborn)
        deletable = [b for b in branches if not b.is_head and not b.worktree]
        delete = menu.addMenu("Delete branch")
        delete.setEnabled(bool(deletable))
        for branch in deletable:
            delete.addAction(branch.name, lambda name=branch.name: self.deleteRequested.emit(name))
        menu.addSeparator()
        menu.addAction(NO_PUSH).setEnabled(False)
