"""The left side of Settings ▸ Profiles: every profile with its kind and how it receives delegated work,
the one being written in italics, and Add custom / Duplicate / Delete under them."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton, QTreeWidgetItem, QVBoxLayout, QWidget

from idea.application.agents.profile_descriptions import UNREACHABLE, delegation_label, delegation_sentence
from idea.application.agents.profile_editing import NEW_PROFILE_NAME
from idea.domain.profile import Profile
from idea.ui.widgets.labels import HintLabel
from idea.ui.widgets.list_editor import list_pane, record_list

PROFILE_ID_ROLE = Qt.ItemDataRole.UserRole + 1


class ProfileList(QWidget):
    """`picked(profile_id, previous_item)` when the person selects another row."""

    def __init__(
        self,
        picked: Callable[[str, QTreeWidgetItem | None], None],
        add_custom: Callable[[], None],
        duplicate: Callable[[], None],
        delete: Callable[[], None],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._picked = picked
        self._quiet = False  # rows rebuilt or selected by the dialog itself
        self.list = record_list(["Profile", "Kind", "Delegation"], stretch_column=0)
        self.list.currentItemChanged.connect(self._current_changed)
        self.add_button = QPushButton("Add custom")
        self.add_button.setToolTip("A profile for any command-line program")
        self.add_button.clicked.connect(add_custom)
        self.duplicate_button = QPushButton("Duplicate")
        self.duplicate_button.clicked.connect(duplicate)
        self.delete_button = QPushButton("Delete")
        self.delete_button.clicked.connect(delete)
        legend = HintLabel(
            "MCP: teammates delegate through idea_* tools. Request folder: through files in "
            ".ideai/requests/. Reference profiles follow IdeA's defaults for fields you never changed."
        )
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(list_pane(self.list, (self.add_button, self.duplicate_button, self.delete_button), legend))

    def fill(self, profiles: Iterable[Profile], draft: dict[str, Any] | None, select: str | None) -> str | None:
        """Rebuild the rows and select `select`, else the first row; returns the id selected."""
        self._quiet = True
        self.list.clear()
        for profile in profiles:
            self.list.addTopLevelItem(_item(profile))
        if draft is not None:
            item = QTreeWidgetItem([f"{draft.get('name') or NEW_PROFILE_NAME} (not saved)", "Custom", ""])
            item.setData(0, PROFILE_ID_ROLE, draft["id"])
            font = item.font(0)
            font.setItalic(True)
            item.setFont(0, font)
            self.list.addTopLevelItem(item)
        ids = [self.list.topLevelItem(i).data(0, PROFILE_ID_ROLE) for i in range(self.list.topLevelItemCount())]
        target = select if select in ids else (ids[0] if ids else None)
        if target is not None:
            self.list.setCurrentItem(self.list.topLevelItem(ids.index(target)))
        self._quiet = False
        return target

    def restore(self, item: QTreeWidgetItem | None) -> None:
        """Put the selection back on `item` (the person kept their edits)."""
        self._quiet = True
        self.list.setCurrentItem(item)
        self._quiet = False

    def _current_changed(self, item: QTreeWidgetItem | None, previous: QTreeWidgetItem | None) -> None:
        if not self._quiet and item is not None:
            self._picked(item.data(0, PROFILE_ID_ROLE), previous)


def _item(profile: Profile) -> QTreeWidgetItem:
    label = delegation_label(profile)
    kind = "Reference" if profile.is_reference else "Custom"
    item = QTreeWidgetItem([profile.name, kind, "—" if label == UNREACHABLE else label])
    item.setData(0, PROFILE_ID_ROLE, profile.id)
    item.setToolTip(0, profile.command)
    item.setToolTip(2, delegation_sentence(profile))
    return item
