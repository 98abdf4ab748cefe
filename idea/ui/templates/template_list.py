"""The left side of Agents ▸ Templates: the templates in columns (name, version, description, default
profile), the one being written in italics, and New / Duplicate / Delete under them."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton, QTreeWidgetItem, QVBoxLayout, QWidget

from idea.application.agents.template_editing import Draft, StoredTemplate
from idea.ui.templates.template_pane import draft_name
from idea.ui.widgets.labels import HintLabel
from idea.ui.widgets.list_editor import list_pane, record_list

NAME_COLUMN, DESCRIPTION_COLUMN = 0, 2
TEMPLATE_ID_ROLE = Qt.ItemDataRole.UserRole + 1
DRAFT_KEY = "draft"  # list key of the template being created (real ids are UUIDs)


class TemplateList(QWidget):
    def __init__(
        self,
        picked: Callable[[str], None],
        new: Callable[[], None],
        duplicate: Callable[[], None],
        delete: Callable[[], None],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._picked = picked
        self._quiet = False  # rows rebuilt or selected by the dialog itself, not picked by the person
        self.list = record_list(
            ["Template", "Version", "Description", "Default profile"], stretch_column=DESCRIPTION_COLUMN
        )
        self.list.currentItemChanged.connect(self._current_changed)
        self.new_button = QPushButton("New template…")
        self.new_button.clicked.connect(new)
        self.duplicate_button = QPushButton("Duplicate")
        self.duplicate_button.clicked.connect(duplicate)
        self.delete_button = QPushButton("Delete")
        self.delete_button.clicked.connect(delete)
        legend = HintLabel(
            "Each saved change to a persona raises the template's version. Agents kept in sync follow it; "
            "the others show “update available”."
        )
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(list_pane(self.list, (self.new_button, self.duplicate_button, self.delete_button), legend))

    def fill(
        self,
        stored: Iterable[StoredTemplate],
        draft: Draft | None,
        profile_label: Callable[[str | None], str],
        select: str | None,
    ) -> str | None:
        """Rebuild the rows and select `select`, else the first row; returns the key selected."""
        self._quiet = True
        self.list.clear()
        for template in stored:
            record = template.record
            item = QTreeWidgetItem(
                [record.name, f"v{record.version}", record.description, profile_label(record.default_profile_id)]
            )
            item.setData(NAME_COLUMN, TEMPLATE_ID_ROLE, record.id)
            item.setToolTip(DESCRIPTION_COLUMN, record.description)
            self.list.addTopLevelItem(item)
        if draft is not None:
            self.list.addTopLevelItem(_draft_item(draft, profile_label))
        rows = [self.list.topLevelItem(i) for i in range(self.list.topLevelItemCount())]
        keys = [row.data(NAME_COLUMN, TEMPLATE_ID_ROLE) for row in rows]
        target = select if select in keys else (keys[0] if keys else None)
        if target is not None:
            self.list.setCurrentItem(rows[keys.index(target)])
        self._quiet = False
        return target

    def select(self, key: str | None) -> None:
        self._quiet = True
        for index in range(self.list.topLevelItemCount()):
            item = self.list.topLevelItem(index)
            if item.data(NAME_COLUMN, TEMPLATE_ID_ROLE) == key:
                self.list.setCurrentItem(item)
        self._quiet = False

    def rename_current(self, name: str) -> None:
        item = self.list.currentItem()
        if item is not None:
            item.setText(NAME_COLUMN, name)

    def _current_changed(self, item: QTreeWidgetItem | None, _previous: QTreeWidgetItem | None) -> None:
        if not self._quiet and item is not None:
            self._picked(item.data(NAME_COLUMN, TEMPLATE_ID_ROLE))


def _draft_item(draft: Draft, profile_label: Callable[[str | None], str]) -> QTreeWidgetItem:
    item = QTreeWidgetItem([draft_name(draft), "new", draft.description, profile_label(draft.default_profile_id)])
    item.setData(NAME_COLUMN, TEMPLATE_ID_ROLE, DRAFT_KEY)
    item.setToolTip(NAME_COLUMN, "Not saved yet")
    font = item.font(NAME_COLUMN)
    font.setItalic(True)
    for column in range(item.columnCount()):
        item.setFont(column, font)
    return item
