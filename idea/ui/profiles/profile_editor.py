"""Agents ▸ Profiles: the AI CLI profiles of this user, how each one receives delegations, and an editor
for every field (a form for the common ones, the whole JSON for the rest).

Reference profiles keep following IdeA's shipped defaults for the fields the user never changed: saving
goes through `Profile.with_changes`, which records the changed keys.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QMessageBox, QTreeWidgetItem, QWidget

from idea.application.agents.profile_descriptions import (
    UNREACHABLE,
    agents_using,
    delegation_label,
    delegation_sentence,
)
from idea.application.agents.profile_editing import (
    NEW_PROFILE_NAME,
    check_json,
    copy_of,
    editable,
    json_text,
    new_custom_profile,
    parse_json_text,
    profile_to_save,
)
from idea.application.agents.profiles import ProfileCatalogue
from idea.application.projects import ProjectRuntime
from idea.domain.profile import Profile
from idea.ui.core_client import CoreClient
from idea.ui.profiles.first_run_wizard import FirstRunWizard
from idea.ui.profiles.profile_list import ProfileList
from idea.ui.profiles.profile_pane import FORM_TAB, JSON_TAB, ProfilePane
from idea.ui.profiles.profile_trials import ProfileTrials
from idea.ui.widgets.list_editor import close_buttons, split_dialog
from idea.ui.widgets.messages import ask, show_error
from idea.ui.widgets.window_size import size_within_screen


class ProfileEditor(QDialog):
    def __init__(
        self,
        client: CoreClient,
        profiles: ProfileCatalogue,
        open_runtimes: Callable[[], Iterable[ProjectRuntime]],
        parent: QWidget | None = None,
        current_project: Callable[[], ProjectRuntime | None] = lambda: None,
    ) -> None:
        """`current_project()`: the window's project, where Test runs the profile (None: no project open)."""
        super().__init__(parent)
        self._client = client
        self._profiles = profiles
        self._open_runtimes = open_runtimes
        self._current_id: str | None = None
        self._original: dict[str, Any] | None = None  # the stored JSON; None for a profile not saved yet
        self._draft: dict[str, Any] | None = None
        self._switching = False
        self.setWindowTitle("Profiles[*]")
        size_within_screen(self, 1120, 760)
        self.profiles = ProfileList(self._picked, self.add_custom, self.duplicate, self.delete)
        self.pane = ProfilePane(self._changed, self._tab_changed, self.revert, self.save, profiles.limit_patterns)
        self.trials = ProfileTrials(client, profiles, self.pane, self, current_project)
        buttons = close_buttons(self)
        self.setup_button = buttons.addButton("Set up CLIs…", QDialogButtonBox.ButtonRole.ResetRole)
        self.setup_button.setToolTip("Detect the reference CLIs and choose which ones are enabled")
        self.setup_button.clicked.connect(self.open_setup)
        split_dialog(self, self.profiles, self.pane, (380, 740), buttons)
        self._fill_list(None)
        self.profiles.list.setFocus()

    # -- the list --

    def _fill_list(self, select_id: str | None) -> None:
        """Rebuild the list and show `select_id` (else the first profile) as stored."""
        self._show(self.profiles.fill(self._profiles.profiles(), self._draft, select_id))

    def _picked(self, profile_id: str, previous: QTreeWidgetItem | None) -> None:
        if self._switching or profile_id == self._current_id:
            return
        if self.is_modified and not self._confirm_discard():
            self.profiles.restore(previous)
            return
        if self._draft is not None and profile_id != self._draft["id"]:
            self._draft = None
            self._fill_list(profile_id)
            return
        self._show(profile_id)

    def _confirm_discard(self) -> bool:
        answer = QMessageBox.question(
            self,
            "Unsaved profile",
            "Discard the changes to this profile?",
            QMessageBox.StandardButton.Discard | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Cancel,
        )
        return answer == QMessageBox.StandardButton.Discard

    # -- showing one profile --

    def _show(self, profile_id: str | None) -> None:
        self._current_id = profile_id
        self.pane.detect_result.show_hint("")
        if profile_id is None:
            self._original = None
            self.pane.show_nothing(
                "Choose a profile in the list to see how IdeA runs it."
                if self.profiles.list.topLevelItemCount() else "Profiles say how IdeA runs each AI CLI."
            )
            self._update_buttons()
            return
        if self._draft is not None and profile_id == self._draft["id"]:
            self._original = None
            data = self._draft
        else:
            self._original = editable(self._profiles.profile(profile_id).to_json())
            data = self._original
        self._load(data)

    def _load(self, data: dict[str, Any]) -> None:
        self.pane.title.setText(data.get("name") or NEW_PROFILE_NAME)
        self._switching = True
        self.pane.load(data)
        self._switching = False
        self._changed()

    @property
    def shown_id(self) -> str | None:
        return self._current_id

    def current_profile(self) -> Profile | None:
        profile_id = self._current_id
        if profile_id is None or (self._draft is not None and profile_id == self._draft["id"]):
            return None
        return self._profiles.book().by_id(profile_id)

    # -- editing --

    def edited_profile(self) -> Profile:
        """The profile to save; ValueError when invalid. Reference profiles record which keys changed."""
        data = self.pane.edited_data(self._current_id)
        stored = self._profiles.profile(self._current_id or "") if self._original is not None else None
        return profile_to_save(data, stored, self._original, self._profiles.limit_patterns)

    @property
    def is_modified(self) -> bool:
        if self._current_id is None:
            return False
        if self._original is None:
            return True
        try:
            return self.pane.edited_data(self._current_id) != self._original
        except ValueError:
            return True

    def _changed(self) -> None:
        if self._switching:
            return
        self._update_buttons()

    def _update_buttons(self) -> None:
        pane = self.pane
        has_profile = self._current_id is not None
        stored = self.current_profile()
        valid = False
        if has_profile:
            try:
                profile = self.edited_profile()
            except ValueError as exc:
                pane.problem.show_error(str(exc))
                pane.form.set_delegation_text("", error=False)
            else:
                valid = True
                pane.problem.show_hint("")
                pane.form.set_delegation_text(
                    delegation_sentence(profile), error=delegation_label(profile) == UNREACHABLE
                )
                pane.title.setText(profile.name + ("  ·  reference" if profile.is_reference else "  ·  custom"))
        modified = self.is_modified
        pane.save_button.setEnabled(valid and modified)
        pane.revert_button.setEnabled(has_profile and modified and self._original is not None)
        self.profiles.duplicate_button.setEnabled(stored is not None)
        self.profiles.delete_button.setEnabled(has_profile)
        self.trials.update(has_profile)
        self.setWindowModified(modified)

    def _tab_changed(self, index: int) -> None:
        """Both tabs show the same profile: the one left carries its edits to the other."""
        if self._switching or self._current_id is None:
            return
        pane = self.pane
        self._switching = True
        try:
            if index == JSON_TAB:
                pane.json.setPlainText(json_text(pane.form.data()))
            else:
                data = parse_json_text(pane.json.toPlainText(), self._current_id)
                check_json(data)
                pane.form.load(data)
        except ValueError as exc:
            # What was typed cannot be shown in the other tab: stay, and say why.
            pane.tabs.setCurrentIndex(FORM_TAB if index == JSON_TAB else JSON_TAB)
            pane.problem.show_error(f"Fix this first: {exc}")
            self._switching = False
            return
        self._switching = False
        self._update_buttons()

    # -- commands --

    def add_custom(self) -> None:
        if self.is_modified and self._original is not None and not self._confirm_discard():
            return
        self._draft = new_custom_profile(str(uuid.uuid4()))
        self._fill_list(self._draft["id"])
        self.pane.tabs.setCurrentIndex(FORM_TAB)
        self.pane.form.name.setFocus()
        self.pane.form.name.selectAll()

    def duplicate(self) -> None:
        stored = self.current_profile()
        if stored is None:
            return
        if self.is_modified and not self._confirm_discard():
            return
        self._draft = copy_of(stored, str(uuid.uuid4()))
        self._fill_list(self._draft["id"])
        self.pane.form.name.setFocus()
        self.pane.form.name.selectAll()

    def revert(self) -> None:
        if self._original is not None:
            self._load(self._original)

    def save(self) -> None:
        try:
            profile = self.edited_profile()
        except ValueError as exc:
            self.pane.problem.show_error(str(exc))
            return
        self.pane.save_button.setEnabled(False)

        async def save_on_core() -> None:
            self._profiles.save_profile(profile)

        def saved(_none: None) -> None:
            if self._draft is not None and self._draft["id"] == profile.id:
                self._draft = None
            self._current_id = None  # reload what was stored
            self._fill_list(profile.id)
            self.pane.problem.show_ok(f"{profile.name} saved")

        self._client.call(save_on_core(), on_done=saved, on_error=self.failed("Profile not saved"))

    def delete(self) -> None:
        profile_id = self._current_id
        if profile_id is None:
            return
        if self._draft is not None and profile_id == self._draft["id"]:
            self._draft = None
            self._current_id = None
            self._fill_list(None)
            return
        profile = self._profiles.profile(profile_id)
        used_by = agents_using(self._open_runtimes(), profile_id)
        if used_by:
            show_error(
                self,
                "Profile in use",
                f"{profile.name} cannot be deleted: it is used by "
                f"{', '.join(used_by)}. Give these agents another profile first.",
            )
            return

        async def delete_on_core() -> None:
            self._profiles.delete_profile(profile_id, used_by)

        def deleted(_none: None) -> None:
            self._current_id = None
            self._fill_list(None)
            self.pane.problem.show_ok(f"{profile.name} deleted")

        informative = (
            "You can enable it again with Set up CLIs…"
            if profile.is_reference
            else "This cannot be undone."
        )
        ask(
            self,
            "Delete profile",
            f"Delete the profile “{profile.name}”?",
            "Delete",
            lambda: self._client.call(delete_on_core(), on_done=deleted, on_error=self.failed("Profile not deleted")),
            informative=informative,
            destructive=True,
        )

    def open_setup(self) -> None:
        """The first-run wizard, showing what is enabled now."""
        if self.is_modified and not self._confirm_discard():
            return
        self._draft = None
        wizard = FirstRunWizard(self._client, self._profiles, self._open_runtimes, self)
        wizard.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        wizard.accepted.connect(lambda: self._fill_list(self._current_id))
        wizard.open()

    def failed(self, title: str) -> Callable[[BaseException], None]:
        def report(error: BaseException) -> None:
            self._update_buttons()
            show_error(self, title, error)

        return report

    def closeEvent(self, event: QCloseEvent) -> None:
        if self.is_modified and not self._confirm_discard():
            event.ignore()
            return
        event.accept()

    def reject(self) -> None:
        self.close()
