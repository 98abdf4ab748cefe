"""The left side of the dialogs that show a list of records beside an editor (Agents ▸ Profiles,
Templates): the records in columns with their buttons and a legend under them, the record being written
(not saved yet) in italics, and which row is selected — by the person, or quietly by the dialog."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton, QTreeWidgetItem, QWidget

from idea.ui.widgets.empty_hint import EmptyHint
from idea.ui.widgets.list_editor import lay_out_list_side, record_list

KEY_ROLE = Qt.ItemDataRole.UserRole + 1  # a row's record id (column 0)

Picked = Callable[[str, QTreeWidgetItem | None], None]  # (key, the row selected before)


class RecordListSide(QWidget):
    def __init__(self, headers: Sequence[str], stretch_column: int, picked: Picked,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._picked = picked
        self._quiet = False  # rows rebuilt or selected by the dialog itself, not picked by the person
        self.list = record_list(headers, stretch_column)
        self.list.currentItemChanged.connect(self._current_changed)

    def _lay_out(self, buttons: Sequence[QPushButton], legend: str, empty: str | None = None) -> None:
        """The list, `buttons` under it and `legend` under them; `empty`: the words over the list while it has
        no row."""
        lay_out_list_side(self, self.list, buttons, legend)
        if empty is not None:
            self.empty_hint = EmptyHint(self.list, empty)

    def _refill(self, rows: Sequence[QTreeWidgetItem], select: str | None) -> str | None:
        """Replace the rows and select `select`, else the first row; returns the key selected."""
        self._quiet = True
        self.list.clear()
        self.list.addTopLevelItems(list(rows))
        keys = [row.data(0, KEY_ROLE) for row in rows]
        target = select if select in keys else (keys[0] if keys else None)
        if target is not None:
            self.list.setCurrentItem(rows[keys.index(target)])
        self._quiet = False
        return target

    def select(self, key: str | None) -> None:
        """Select the row of `key` without it counting as the person's pick."""
        for index in range(self.list.topLevelItemCount()):
            item = self.list.topLevelItem(index)
            if item.data(0, KEY_ROLE) == key:
                self.restore(item)

    def restore(self, item: QTreeWidgetItem | None) -> None:
        """Put the selection back on `item` (the person kept their edits)."""
        self._quiet = True
        self.list.setCurrentItem(item)
        self._quiet = False

    def _current_changed(self, item: QTreeWidgetItem | None, previous: QTreeWidgetItem | None) -> None:
        if not self._quiet and item is not None:
            self._picked(item.data(0, KEY_ROLE), previous)


def draft_row(texts: Sequence[str], key: str, italic_columns: Sequence[int]) -> QTreeWidgetItem:
    """The row of a record being written, not saved yet."""
    item = QTreeWidgetItem(list(texts))
    item.setData(0, KEY_ROLE, key)
    font = item.font(0)
    font.setItalic(True)
    for column in italic_columns:
        item.setFont(column, font)
    return item
