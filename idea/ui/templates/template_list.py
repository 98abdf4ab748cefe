"""The left side of Agents ▸ Templates: the templates in columns (name, version, description, default
profile), the one being written in italics, and New / Duplicate / Delete under them."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from PySide6.QtWidgets import QTreeWidgetItem, QWidget

from idea.application.agents.template_editing import Draft, StoredTemplate
from idea.ui.templates.template_pane import draft_name
from idea.ui.widgets.list_editor import button
from idea.ui.widgets.record_list_side import KEY_ROLE, RecordListSide, draft_row

NAME_COLUMN, DESCRIPTION_COLUMN = 0, 2
DRAFT_KEY = "draft"  # list key of the template being created (real ids are UUIDs)
COLUMNS = ("Template", "Version", "Description", "Default profile")


class TemplateList(RecordListSide):
    def __init__(
        self,
        picked: Callable[[str], None],
        new: Callable[[], None],
        duplicate: Callable[[], None],
        delete: Callable[[], None],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(COLUMNS, DESCRIPTION_COLUMN, lambda key, _previous: picked(key), parent)
        self.list.setAccessibleName("Templates")
        self.new_button = button("New template…", new)
        self.duplicate_button = button("Duplicate", duplicate)
        self.delete_button = button("Delete", delete)
        self._lay_out(
            (self.new_button, self.duplicate_button, self.delete_button),
            "Each saved change to a persona raises the template's version. Agents kept in sync follow it; "
            "the others show “update available”.",
        )

    def fill(
        self,
        stored: Iterable[StoredTemplate],
        draft: Draft | None,
        profile_label: Callable[[str | None], str],
        select: str | None,
    ) -> str | None:
        """Rebuild the rows and select `select`, else the first row; returns the key selected."""
        rows = []
        for template in stored:
            record = template.record
            item = QTreeWidgetItem(
                [record.name, f"v{record.version}", record.description, profile_label(record.default_profile_id)]
            )
            item.setData(NAME_COLUMN, KEY_ROLE, record.id)
            item.setToolTip(DESCRIPTION_COLUMN, record.description)
            rows.append(item)
        if draft is not None:
            texts = [draft_name(draft), "new", draft.description, profile_label(draft.default_profile_id)]
            row = draft_row(texts, DRAFT_KEY, italic_columns=range(len(COLUMNS)))
            row.setToolTip(NAME_COLUMN, "Not saved yet")
            rows.append(row)
        return self._refill(rows, select)

    def rename_current(self, name: str) -> None:
        item = self.list.currentItem()
        if item is not None:
            item.setText(NAME_COLUMN, name)
