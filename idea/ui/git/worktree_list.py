"""The worktrees of the repository (spec 07 §2): branch, folder, the agent working there, ahead/behind
against the base, and the actions diff vs base, merge into base, remove; and the project's setup command,
run in each new agent worktree."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QListWidget, QListWidgetItem, QPushButton, QVBoxLayout, QWidget

from idea.domain.git.worktrees import WorktreeView
from idea.ui.widgets.labels import HintLabel

NAME_ROLE = Qt.ItemDataRole.UserRole


class WorktreeList(QWidget):
    diffRequested = Signal(object)  # WorktreeView
    mergeRequested = Signal(object)
    removeRequested = Signal(object)
    setupRequested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.views: tuple[WorktreeView, ...] = ()
        self.list = QListWidget()
        self.list.setAccessibleName("Worktrees")
        self.list.setWordWrap(True)
        self.list.itemSelectionChanged.connect(self._update)
        self.list.itemDoubleClicked.connect(lambda _item: self._emit(self.diffRequested))
        self.empty = HintLabel(
            "No linked worktree. An agent set to “Run in its own worktree” (Agents panel) gets one on the branch "
            "idea/<name>, beside the repository; it shows here with what it has that its base lacks, and diff, "
            "merge and remove."
        )
        self.owners: Mapping[str, str] = {}  # worktree folder -> the agent working there
        self.diff_button = QPushButton("Diff vs base")
        self.merge_button = QPushButton("Merge into base")
        self.remove_button = QPushButton("Remove…")
        self.diff_button.clicked.connect(lambda: self._emit(self.diffRequested))
        self.merge_button.clicked.connect(lambda: self._emit(self.mergeRequested))
        self.remove_button.clicked.connect(lambda: self._emit(self.removeRequested))
        self.setup_button = QPushButton("Setup command…")
        self.setup_button.setToolTip("A command run in a shell cell in each new agent worktree (e.g. npm ci)")
        self.setup_button.clicked.connect(self.setupRequested.emit)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.empty)
        column.addWidget(self.list, 1)
        column.addStretch()  # holds the buttons down while the list is hidden
        # Two rows: the project's setup command apart from the selected worktree's actions, and the panel stays
        # as narrow as the Agents panel beside it.
        for row in ((self.diff_button, self.merge_button, self.remove_button), (self.setup_button,)):
            buttons = QHBoxLayout()
            for button in row:
                buttons.addWidget(button)
            buttons.addStretch(1)
            column.addLayout(buttons)
        self._update()

    def show_views(self, views: Sequence[WorktreeView], owners: Mapping[str, str] | None = None) -> None:
        selected = self.selected()
        self.views = tuple(views)
        self.owners = dict(owners or {})
        self.list.clear()
        for view in views:
            info = view.info
            title = info.branch or f"detached at {(info.head or '')[:7]}"
            owner = self.owner(view)
            if owner:
                title += f"  —  {owner}"
            flags = " · locked" if info.locked else ""
            where = "/".join(info.path.replace("\\", "/").rstrip("/").split("/")[-2:])
            item = QListWidgetItem(f"{title}\n    …/{where}\n    {view.summary()}{flags}")
            item.setData(NAME_ROLE, info.name)
            item.setToolTip(f"{info.path}\nbase: {view.base}")
            self.list.addItem(item)
            if selected is not None and selected.info.name == info.name:
                self.list.setCurrentItem(item)
        self.empty.setVisible(not views)
        self.list.setVisible(bool(views))  # the hint says there is none; no empty box under it
        self._update()

    def owner(self, view: WorktreeView) -> str | None:
        return self.owners.get(view.info.path)

    def selected(self) -> WorktreeView | None:
        item = self.list.currentItem()
        if item is None:
            return None
        name = item.data(NAME_ROLE)
        return next((v for v in self.views if v.info.name == name), None)

    def _emit(self, signal: Signal) -> None:  # type: ignore[type-arg]
        view = self.selected()
        if view is not None:
            signal.emit(view)

    def _update(self) -> None:
        view = self.selected()
        usable = view is not None and not view.info.prunable
        self.diff_button.setEnabled(usable)
        self.merge_button.setEnabled(usable and view is not None and bool(view.info.branch) and bool(view.ahead))
        self.remove_button.setEnabled(view is not None)
