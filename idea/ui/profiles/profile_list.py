"""The left side of Agents ▸ Profiles: every profile with its kind and how it receives delegated work,
the one being written in italics, and Add custom / Duplicate / Delete under them."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from PySide6.QtWidgets import QTreeWidgetItem, QWidget

from idea.application.agents.profile_descriptions import UNREACHABLE, delegation_label, delegation_sentence
from idea.application.agents.profile_editing import NEW_PROFILE_NAME
from idea.domain.profile import Profile
from idea.ui.widgets.list_editor import button
from idea.ui.widgets.record_list_side import KEY_ROLE, Picked, RecordListSide, draft_row


class ProfileList(RecordListSide):
    def __init__(
        self,
        picked: Picked,
        add_custom: Callable[[], None],
        duplicate: Callable[[], None],
        delete: Callable[[], None],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(["Profile", "Kind", "Delegation"], 0, picked, parent)
        self.list.setAccessibleName("Profiles")
        self.add_button = button("Add custom", add_custom, "A profile for any command-line program")
        self.duplicate_button = button("Duplicate", duplicate)
        self.delete_button = button("Delete", delete)
        self._lay_out(
            (self.add_button, self.duplicate_button, self.delete_button),
            "MCP: teammates delegate through idea_* tools. Request folder: through files in "
            ".ideai/requests/. Reference profiles follow IdeA's defaults for fields you never changed.",
            empty="No profile yet. Set up CLIs… finds the AI CLIs installed here; Add custom runs any "
            "command-line program as an agent.",
        )

    def fill(self, profiles: Iterable[Profile], draft: dict[str, Any] | None, select: str | None) -> str | None:
        """Rebuild the rows and select `select`, else the first row; returns the id selected."""
        rows = [_row(profile) for profile in profiles]
        if draft is not None:
            rows.append(draft_row([f"{draft.get('name') or NEW_PROFILE_NAME} (not saved)", "Custom", ""],
                                  draft["id"], italic_columns=(0,)))
        return self._refill(rows, select)


def _row(profile: Profile) -> QTreeWidgetItem:
    label = delegation_label(profile)
    kind = "Reference" if profile.is_reference else "Custom"
    item = QTreeWidgetItem([profile.name, kind, "—" if label == UNREACHABLE else label])
    item.setData(0, KEY_ROLE, profile.id)
    item.setToolTip(0, profile.command)
    item.setToolTip(2, delegation_sentence(profile))
    return item
