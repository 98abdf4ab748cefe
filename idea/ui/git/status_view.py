"""The working tree's changes in four groups — conflicted, staged, changes, untracked — with staging and
unstaging by file, and a diff for any of them."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QMenu, QTreeWidget, QTreeWidgetItem, QWidget

from idea.domain.git.diff import DiffKind
from idea.domain.git.model import ChangeKind, StatusEntry, StatusReport, display_path
from idea.ui.theme import palette_colors

SHOWN_PER_GROUP = 2000  # beyond that, one line says how many more (the diff lists them all)
PATH_ROLE = Qt.ItemDataRole.UserRole
GROUP_ROLE = Qt.ItemDataRole.UserRole + 1
LETTERS = {
    ChangeKind.NEW: "A",
    ChangeKind.MODIFIED: "M",
    ChangeKind.DELETED: "D",
    ChangeKind.RENAMED: "R",
    ChangeKind.TYPECHANGE: "T",
    ChangeKind.UNREADABLE: "!",
}


class Group:
    CONFLICTED = "conflicted"
    STAGED = "staged"
    CHANGES = "changes"
    UNTRACKED = "untracked"


_TITLES = {
    Group.CONFLICTED: "Conflicted",
    Group.STAGED: "Staged",
    Group.CHANGES: "Changes",
    Group.UNTRACKED: "Untracked",
}


class StatusView(QTreeWidget):
    stageRequested = Signal(list)  # paths
    unstageRequested = Signal(list)
    diffRequested = Signal(object, str)  # DiffKind, path

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAccessibleName("Changes")
        self.setHeaderHidden(True)
        self.setRootIsDecorated(True)
        self.setSelectionMode(QTreeWidget.SelectionMode.ExtendedSelection)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.customContextMenuRequested.connect(self._menu)
        self.itemDoubleClicked.connect(lambda item, _col: self._open(item))
        self._groups: dict[str, QTreeWidgetItem] = {}
        self.report = StatusReport()

    def show_report(self, report: StatusReport) -> None:
        self.report = report
        collapsed = {name for name, item in self._groups.items() if not item.isExpanded()}  # the person's choice
        self.clear()
        self._groups = {}
        groups = (
            (Group.CONFLICTED, report.conflicted(), lambda e: "U"),
            (Group.STAGED, report.staged(), lambda e: LETTERS.get(e.staged, "M")),
            (Group.CHANGES, report.unstaged(), lambda e: LETTERS.get(e.unstaged, "M")),
            (Group.UNTRACKED, report.untracked(), lambda e: "?"),
        )
        for name, entries, letter in groups:
            if not entries:
                continue
            top = QTreeWidgetItem([f"{_TITLES[name]} ({len(entries)})"])
            top.setData(0, GROUP_ROLE, name)
            font = top.font(0)
            font.setBold(True)
            top.setFont(0, font)
            self.addTopLevelItem(top)
            self._groups[name] = top
            for entry in entries[:SHOWN_PER_GROUP]:
                top.addChild(self._item(entry, letter(entry), name))
            if len(entries) > SHOWN_PER_GROUP:
                more = QTreeWidgetItem([f"… and {len(entries) - SHOWN_PER_GROUP} more (all are in the diff)"])
                more.setFlags(Qt.ItemFlag.NoItemFlags)
                top.addChild(more)
            top.setExpanded(name not in collapsed)

    def _item(self, entry: StatusEntry, letter: str, group: str) -> QTreeWidgetItem:
        shown = display_path(entry.path)
        item = QTreeWidgetItem([f"{letter}  {shown}"])
        item.setData(0, PATH_ROLE, entry.path)
        item.setData(0, GROUP_ROLE, group)
        item.setToolTip(0, f"{shown}\nDouble-click: diff · right-click: stage, unstage")
        colors = palette_colors(self)
        tone = {"A": colors.ok, "?": colors.ok, "D": colors.error, "U": colors.error}.get(letter, colors.warn)
        item.setForeground(0, QBrush(QColor(tone)))
        return item

    def group_paths(self, group: str) -> list[str]:
        top = self._groups.get(group)
        if top is None:
            return []
        entries = {
            Group.CONFLICTED: self.report.conflicted,
            Group.STAGED: self.report.staged,
            Group.CHANGES: self.report.unstaged,
            Group.UNTRACKED: self.report.untracked,
        }[group]()
        return [e.path for e in entries]

    def selected(self) -> list[tuple[str, str]]:
        """(group, path) of the selected files (a selected group counts as all its files)."""
        found: list[tuple[str, str]] = []
        for item in self.selectedItems():
            group = item.data(0, GROUP_ROLE)
            path = item.data(0, PATH_ROLE)
            if path is not None:
                found.append((group, path))
            elif group is not None:
                found.extend((group, p) for p in self.group_paths(group))
        return list(dict.fromkeys(found))

    def _open(self, item: QTreeWidgetItem) -> None:
        path = item.data(0, PATH_ROLE)
        group = item.data(0, GROUP_ROLE)
        if path is None:
            return
        kind = {Group.STAGED: DiffKind.STAGED, Group.CHANGES: DiffKind.UNSTAGED}.get(group, DiffKind.WORKING)
        self.diffRequested.emit(kind, path)

    def _menu(self, point: QPoint) -> None:
        chosen = self.selected()
        if not chosen:
            return
        to_stage = [p for g, p in chosen if g in (Group.CHANGES, Group.UNTRACKED, Group.CONFLICTED)]
        to_unstage = [p for g, p in chosen if g == Group.STAGED]
        menu = QMenu(self)
        if to_stage:
            label = "Mark resolved (stage)" if all(g == Group.CONFLICTED for g, _ in chosen) else "Stage"
            menu.addAction(f"{label} ({len(to_stage)})" if len(to_stage) > 1 else label,
                           lambda: self.stageRequested.emit(to_stage))
        if to_unstage:
            menu.addAction(f"Unstage ({len(to_unstage)})" if len(to_unstage) > 1 else "Unstage",
                           lambda: self.unstageRequested.emit(to_unstage))
        item = self.itemAt(point)
        if item is not None and item.data(0, PATH_ROLE) is not None:
            menu.addSeparator()
            menu.addAction("Open diff", lambda: self._open(item))
        menu.exec(self.viewport().mapToGlobal(point))
