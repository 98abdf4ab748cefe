"""The worktrees of the repository (spec 07 §2): branch, folder, ahead/behind against the base, and the
actions diff vs base, merge into base, remove."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QListWidget, QListWidgetItem, QPushButton, QVBoxLayout, QWidget

from idea.domain.git.worktrees import WorktreeView
from idea.ui.widgets.labels import HintLabel

NAME_ROLE = Qt.ItemDataRole.UserRole


class WorktreeList(QWidget):
    diffRequested = Signal(object)  # WorktreeView
    mergeRequested = Signal(object)
    removeRequested = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.views: tuple[WorktreeView, ...] = ()
        self.list = QListWidget()
        self.list.setWordWrap(True)
        self.list.itemSelectionChanged.connect(self._update)
        self.list.itemDoubleClicked.connect(lambda _item: self._emit(self.diffRequested))
        self.empty = HintLabel(
            "No linked worktree (git worktree). Each one shows here with its branch, what it has that its base "
            "lacks, and diff, merge and remove."
        )
        self.diff_button = QPushButton("Diff vs base")
        self.merge_button = QPushButton("Merge into base")
        self.remove_button = QPushButton("Remove…")
        self.diff_button.clicked.connect(lambda: self._emit(self.diffRequested))
        self.merge_button.clicked.connect(lambda: self._emit(self.mergeRequested))
        self.remove_button.clicked.connect(lambda: self._emit(self.removeRequested))
        buttons = QHBoxLayout()
        for button in (self.diff_button, self.merge_button, self.remove_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.empty)
        column.addWidget(self.list, 1)
        column.addLayout(buttons)
        self._update()

    def show_views(self, views: Sequence[WorktreeView]) -> None:
        selected = self.selected()
        self.views = tuple(views)
        self.list.clear()
        for view in views:
            info = view.info
            title = info.branch or f"detached at {(info.head or '')[:7]}"
            flags = " · locked" if info.locked else ""
            where = "/".join(info.path.replace("\\", "/").rstrip("/").split("/")[-2:])
            item = QListWidgetItem(f"{title}\n    …/{where}\n    {view.summary()}{flags}")
            item.setData(NAME_ROLE, info.name)
            item.setToolTip(f"{info.path}\nbase: {view.base}")
            self.list.addItem(item)
            if selected is not None and selected.info.name == info.name:
                self.list.setCurrentItem(item)
        self.empty.setVisible(not views)
        self._update()

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
