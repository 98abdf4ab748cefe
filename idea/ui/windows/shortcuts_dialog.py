"""Help ▸ Keyboard shortcuts: every key IdeA answers, read from the window's own actions (so the list is what
the keys do), grouped by menu, with the terminal cells' and the conversation viewer's keys, and a filter."""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QLineEdit,
    QMenuBar,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from idea.ui.knowledge.conversation_viewer import viewer_shortcuts
from idea.ui.terminal.font_zoom import TERMINAL_SHORTCUTS
from idea.ui.widgets.labels import HintLabel
from idea.ui.widgets.window_size import size_within_screen

Shortcut = tuple[str, str]  # the keys as this system writes them, what they do
Group = tuple[str, list[Shortcut]]

TERMINAL_GROUP = "Terminal cells (while one has the focus)"
AGENTS_PANEL_GROUP = "Agents panel (while it has the focus)"
VIEWER_GROUP = "Conversation viewer (while it has the focus)"


def keys_text(keys: QKeySequence) -> str:
    return keys.toString(QKeySequence.SequenceFormat.NativeText)


def action_shortcuts(actions: Iterable[QAction]) -> list[Shortcut]:
    """(keys, text) of the actions that have a shortcut, their menu text without its `&` and `…`."""
    found: list[Shortcut] = []
    for action in actions:
        keys = [keys_text(sequence) for sequence in action.shortcuts() if not sequence.isEmpty()]
        if keys:
            found.append((" / ".join(keys), action.text().replace("&", "").rstrip("…")))
    return found


def menu_groups(menu_bar: QMenuBar) -> list[Group]:
    """One group per menu of the bar that has shortcuts (its submenus' included)."""
    groups: list[Group] = []
    for top in menu_bar.actions():
        menu = top.menu()
        if menu is None:
            continue
        actions: list[QAction] = []
        pending = list(menu.actions())
        while pending:
            action = pending.pop(0)
            if action.menu() is not None:
                pending.extend(action.menu().actions())
            else:
                actions.append(action)
        shortcuts = action_shortcuts(actions)
        if shortcuts:
            groups.append((top.text().replace("&", ""), shortcuts))
    return groups


def shortcut_groups(menu_bar: QMenuBar, agents_panel: QWidget) -> list[Group]:
    """Everything the Keyboard shortcuts dialog lists, in order."""
    groups = menu_groups(menu_bar)
    in_menus = {keys for _group, shortcuts in groups for keys, _text in shortcuts}
    panel_only = [(keys, text) for keys, text in action_shortcuts(agents_panel.actions()) if keys not in in_menus]
    if panel_only:
        groups.append((AGENTS_PANEL_GROUP, panel_only))
    groups.append((TERMINAL_GROUP, [(keys_text(QKeySequence(keys)), text) for keys, text in TERMINAL_SHORTCUTS]))
    groups.append((VIEWER_GROUP, [(keys_text(keys), text) for text, keys in viewer_shortcuts()]))
    return groups


class ShortcutsDialog(QDialog):
    """Non-modal: it can stay open beside the window while the keys are tried."""

    def __init__(self, groups: list[Group], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Keyboard shortcuts")
        self.filter = QLineEdit()
        self.filter.setPlaceholderText("Filter by action or key")
        self.filter.setAccessibleName("Filter")
        self.filter.setClearButtonEnabled(True)
        self.filter.textChanged.connect(self._apply_filter)
        self.tree = QTreeWidget()
        self.tree.setAccessibleName("Keyboard shortcuts")
        self.tree.setColumnCount(2)
        self.tree.setHeaderLabels(["Action", "Keys"])
        self.tree.setRootIsDecorated(False)
        self.tree.setSelectionMode(QTreeWidget.SelectionMode.NoSelection)
        self.tree.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        for title, shortcuts in groups:
            group = QTreeWidgetItem(self.tree, [title])
            group.setFirstColumnSpanned(True)
            font = group.font(0)
            font.setBold(True)
            group.setFont(0, font)
            for keys, text in shortcuts:
                QTreeWidgetItem(group, [text, keys])
        self.tree.expandAll()
        self.tree.resizeColumnToContents(0)
        self.nothing = HintLabel("No shortcut matches.")
        self.nothing.hide()
        note = QLabel(
            "IdeA's keys use Ctrl+Shift and Ctrl+Alt, so that Esc, Ctrl+C, Ctrl+R, Tab and the arrows always "
            "reach the program in a terminal cell."
        )
        note.setWordWrap(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        column = QVBoxLayout(self)
        column.addWidget(self.filter)
        column.addWidget(self.tree, 1)
        column.addWidget(self.nothing)
        column.addWidget(note)
        column.addWidget(buttons)
        size_within_screen(self, 560, 640)

    def shown_rows(self) -> list[tuple[str, str, str]]:
        """(group, action, keys) of the rows the filter leaves."""
        rows = []
        for index in range(self.tree.topLevelItemCount()):
            group = self.tree.topLevelItem(index)
            for child in range(group.childCount()):
                item = group.child(child)
                if not item.isHidden():
                    rows.append((group.text(0), item.text(0), item.text(1)))
        return rows

    def _apply_filter(self, text: str) -> None:
        wanted = text.strip().casefold()
        any_shown = False
        for index in range(self.tree.topLevelItemCount()):
            group = self.tree.topLevelItem(index)
            group_matches = wanted in group.text(0).casefold()
            shown = 0
            for child in range(group.childCount()):
                item = group.child(child)
                visible = group_matches or wanted in item.text(0).casefold() or wanted in item.text(1).casefold()
                item.setHidden(not visible)
                shown += visible
            group.setHidden(shown == 0)
            any_shown = any_shown or shown > 0
        self.nothing.setVisible(not any_shown)
