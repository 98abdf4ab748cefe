"""Settings ▸ Profiles: the AI CLI profiles of this user, how each one receives delegations, and an editor
for every field (a form for the common ones, the whole JSON for the rest).

Reference profiles keep following IdeA's shipped defaults for the fields the user never changed: saving
goes through `Profile.with_changes`, which records the changed keys.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterable
from typing import Any

from pydantic import ValidationError
from PySide6.QtCore import Qt
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QTabWidget,
    QTreeWidgetItem,
    QWidget,
)

from idea.application.agents.ports import Detection
from idea.application.agents.profile_descriptions import (
    UNREACHABLE,
    agents_using,
    delegation_label,
    delegation_sentence,
)
from idea.application.agents.profiles import ProfileCatalogue
from idea.application.projects import ProjectRuntime
from idea.domain.profile import Profile
from idea.ui.core_client import CoreClient
from idea.ui.profiles.first_run_wizard import FirstRunWizard
from idea.ui.profiles.profile_form import ProfileForm
from idea.ui.theme import monospace_font
from idea.ui.widgets.labels import DetectionLabel, HintLabel
from idea.ui.widgets.list_editor import (
    close_buttons,
    editor_title,
    list_pane,
    pane,
    record_list,
    save_row,
    split_dialog,
)
from idea.ui.widgets.messages import ask, show_error

FORM_TAB, JSON_TAB = 0, 1
PROFILE_ID_ROLE = Qt.ItemDataRole.UserRole + 1
HIDDEN_KEYS = ("edited",)  # bookkeeping of reference profiles, not something to edit by hand
NEW_PROFILE_NAME = "New profile"


def validation_message(error: ValidationError) -> str:
    """One line per problem, naming the JSON key unless the message already does."""
    lines = []
    for problem in error.errors():
        loc = [str(part) for part in problem["loc"]]
        message = problem["msg"].removeprefix("Value error, ")
        named = not loc or message.startswith((loc[0], f"profile {loc[-1]}"))
        lines.append(message if named else f"{'.'.join(loc)}: {message}")
    return "\n".join(lines)


class ProfileEditor(QDialog):
    def __init__(
        self,
        client: CoreClient,
        profiles: ProfileCatalogue,
        open_runtimes: Callable[[], Iterable[ProjectRuntime]],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._client = client
        self._profiles = profiles
        self._open_runtimes = open_runtimes
        self._current_id: str | None = None
        self._original: dict[str, Any] | None = None  # the stored JSON; None for a profile not saved yet
        self._draft: dict[str, Any] | None = None
        self._switching = False
        self.setWindowTitle("Settings ▸ Profiles[*]")
        self.resize(1120, 760)

        self.list = record_list(["Profile", "Kind", "Delegation"], stretch_column=0)
        self.list.currentItemChanged.connect(self._picked)
        self.add_button = QPushButton("Add custom")
        self.add_button.setToolTip("A profile for any command-line program")
        self.add_button.clicked.connect(self.add_custom)
        self.duplicate_button = QPushButton("Duplicate")
        self.duplicate_button.clicked.connect(self.duplicate)
        self.delete_button = QPushButton("Delete")
        self.delete_button.clicked.connect(self.delete)
        legend = HintLabel(
            "MCP: teammates delegate through idea_* tools. Request folder: through files in "
            ".ideai/requests/. Reference profiles follow IdeA's defaults for fields you never changed."
        )
        left = list_pane(self.list, (self.add_button, self.duplicate_button, self.delete_button), legend)

        self.title = editor_title()
        self.detect_button = QPushButton("Detect")
        self.detect_button.setToolTip("Run the detect command and show the version it prints")
        self.detect_button.clicked.connect(self.detect)
        self.detect_result = DetectionLabel()
        header = QHBoxLayout()
        header.addWidget(self.title, 1)
        header.addWidget(self.detect_result)
        header.addWidget(self.detect_button)
        self.form = ProfileForm()
        self.form.changed.connect(self._changed)
        form_scroll = QScrollArea()
        form_scroll.setWidgetResizable(True)
        form_scroll.setWidget(self.form)
        form_scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        self.json = QPlainTextEdit()
        self.json.setFont(monospace_font())
        self.json.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.json.textChanged.connect(self._changed)
        self.tabs = QTabWidget()
        self.tabs.addTab(form_scroll, "Settings")
        self.tabs.addTab(self.json, "Advanced (JSON)")
        self.tabs.currentChanged.connect(self._tab_changed)
        self.problem = HintLabel()
        self.revert_button = QPushButton("Revert")
        self.revert_button.clicked.connect(self.revert)
        self.save_button = QPushButton("Save")
        self.save_button.setDefault(True)
        self.save_button.clicked.connect(self.save)
        editor_buttons = save_row(self.problem, self.revert_button, self.save_button)
        right = pane(header, self.tabs, editor_buttons, stretch=self.tabs)

        buttons = close_buttons(self)
        self.setup_button = buttons.addButton("Set up CLIs…", QDialogButtonBox.ButtonRole.ResetRole)
        self.setup_button.setToolTip("Detect the reference CLIs and choose which ones are enabled")
        self.setup_button.clicked.connect(self.open_setup)
        split_dialog(self, left, right, (380, 740), buttons)
        self._fill_list(None)
        self.list.setFocus()

    # -- the list --

    def _fill_list(self, select_id: str | None) -> None:
        """Rebuild the list and show `select_id` (else the first profile) as stored."""
        self._switching = True
        self.list.clear()
        for profile in self._profiles.profiles():
            self.list.addTopLevelItem(self._item(profile.name, profile, "Reference" if profile.is_reference else "Custom"))
        if self._draft is not None:
            item = QTreeWidgetItem([f"{self._draft.get('name') or NEW_PROFILE_NAME} (not saved)", "Custom", ""])
            item.setData(0, PROFILE_ID_ROLE, self._draft["id"])
            font = item.font(0)
            font.setItalic(True)
            item.setFont(0, font)
            self.list.addTopLevelItem(item)
        ids = [self.list.topLevelItem(i).data(0, PROFILE_ID_ROLE) for i in range(self.list.topLevelItemCount())]
        target = select_id if select_id in ids else (ids[0] if ids else None)
        if target is not None:
            self.list.setCurrentItem(self.list.topLevelItem(ids.index(target)))
        self._switching = False
        self._show(target)

    @staticmethod
    def _item(name: str, profile: Profile, kind: str) -> QTreeWidgetItem:
        label = delegation_label(profile)
        item = QTreeWidgetItem([name, kind, "—" if label == UNREACHABLE else label])
        item.setData(0, PROFILE_ID_ROLE, profile.id)
        item.setToolTip(0, profile.command)
        item.setToolTip(2, delegation_sentence(profile))
        return item

    def _picked(self, item: QTreeWidgetItem | None, previous: QTreeWidgetItem | None) -> None:
        if self._switching or item is None:
            return
        profile_id = item.data(0, PROFILE_ID_ROLE)
        if profile_id == self._current_id:
            return
        if self.is_modified and not self._confirm_discard():
            self._switching = True
            self.list.setCurrentItem(previous)
            self._switching = False
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
        self.detect_result.show_hint("")
        if profile_id is None:
            self._original = None
            self.title.setText("No profile")
            self.tabs.setEnabled(False)
            self._update_buttons()
            return
        self.tabs.setEnabled(True)
        if self._draft is not None and profile_id == self._draft["id"]:
            self._original = None
            data = self._draft
        else:
            profile = self._profiles.profile(profile_id)
            self._original = _editable(profile.to_json())
            data = self._original
        self._load(data)

    def _load(self, data: dict[str, Any]) -> None:
        self.title.setText(data.get("name") or NEW_PROFILE_NAME)
        self._switching = True
        self.form.load(data)
        self.json.setPlainText(json.dumps(data, indent=2, ensure_ascii=False))
        self._switching = False
        self._changed()

    def current_profile(self) -> Profile | None:
        profile_id = self._current_id
        if profile_id is None or (self._draft is not None and profile_id == self._draft["id"]):
            return None
        return self._profiles.book().by_id(profile_id)

    # -- editing --

    def edited_data(self) -> dict[str, Any]:
        """The profile as edited, from the tab in use; ValueError with a sentence if it cannot be read."""
        if self.tabs.currentIndex() == JSON_TAB:
            try:
                data = json.loads(self.json.toPlainText())
            except json.JSONDecodeError as exc:
                raise ValueError(f"JSON line {exc.lineno}, column {exc.colno}: {exc.msg}") from None
            if not isinstance(data, dict):
                raise ValueError("The profile must be a JSON object")
            if data.get("id") != self._current_id:
                raise ValueError("The id of a profile cannot be changed; duplicate the profile instead")
            return data
        return self.form.data()

    def edited_profile(self) -> Profile:
        """The profile to save; ValueError when invalid. Reference profiles record which keys changed."""
        data = self.edited_data()
        try:
            if self._original is None:
                return Profile.from_json(data)
            changes: dict[str, Any] = {k: v for k, v in data.items() if self._original.get(k) != v}
            changes.update({k: None for k in self._original if k not in data})
            return self._stored().with_changes(changes)
        except ValidationError as exc:
            raise ValueError(validation_message(exc)) from None

    @property
    def is_modified(self) -> bool:
        if self._current_id is None:
            return False
        if self._original is None:
            return True
        try:
            return self.edited_data() != self._original
        except ValueError:
            return True

    def _stored(self) -> Profile:
        return self._profiles.profile(self._current_id or "")

    def _changed(self) -> None:
        if self._switching:
            return
        self._update_buttons()

    def _update_buttons(self) -> None:
        has_profile = self._current_id is not None
        stored = self.current_profile()
        valid = False
        if has_profile:
            try:
                profile = self.edited_profile()
            except ValueError as exc:
                self.problem.show_error(str(exc))
                self.form.set_delegation_text("", error=False)
            else:
                valid = True
                self.problem.show_hint("")
                self.form.set_delegation_text(
                    delegation_sentence(profile), error=delegation_label(profile) == UNREACHABLE
                )
                self.title.setText(profile.name + ("  ·  reference" if profile.is_reference else "  ·  custom"))
        modified = self.is_modified
        self.save_button.setEnabled(valid and modified)
        self.revert_button.setEnabled(has_profile and modified and self._original is not None)
        self.duplicate_button.setEnabled(stored is not None)
        self.delete_button.setEnabled(has_profile)
        self.detect_button.setEnabled(has_profile)
        self.setWindowModified(modified)

    def _tab_changed(self, index: int) -> None:
        """Both tabs show the same profile: the one left carries its edits to the other."""
        if self._switching or self._current_id is None:
            return
        self._switching = True
        try:
            if index == JSON_TAB:
                self.json.setPlainText(json.dumps(self.form.data(), indent=2, ensure_ascii=False))
            else:
                data = json.loads(self.json.toPlainText())
                Profile.from_json(data)
                self.form.load(data)
        except (ValueError, ValidationError) as exc:
            # What was typed cannot be shown in the other tab: stay, and say why.
            self.tabs.setCurrentIndex(FORM_TAB if index == JSON_TAB else JSON_TAB)
            message = validation_message(exc) if isinstance(exc, ValidationError) else str(exc)
            self.problem.show_error(f"Fix this first: {message}")
            self._switching = False
            return
        self._switching = False
        self._update_buttons()

    # -- commands --

    def add_custom(self) -> None:
        if self.is_modified and self._original is not None and not self._confirm_discard():
            return
        self._draft = {
            "id": str(uuid.uuid4()),
            "name": NEW_PROFILE_NAME,
            "command": "",
            "contextInjection": {"strategy": "conventionFile", "target": "AGENTS.md"},
        }
        self._fill_list(self._draft["id"])
        self.tabs.setCurrentIndex(FORM_TAB)
        self.form.name.setFocus()
        self.form.name.selectAll()

    def duplicate(self) -> None:
        stored = self.current_profile()
        if stored is None:
            return
        if self.is_modified and not self._confirm_discard():
            return
        data = _editable(stored.to_json())
        data["id"] = str(uuid.uuid4())
        data["name"] = f"{stored.name} copy"
        self._draft = data
        self._fill_list(data["id"])
        self.form.name.setFocus()
        self.form.name.selectAll()

    def revert(self) -> None:
        if self._original is not None:
            self._load(self._original)

    def save(self) -> None:
        try:
            profile = self.edited_profile()
        except ValueError as exc:
            self.problem.show_error(str(exc))
            return
        self.save_button.setEnabled(False)

        async def save_on_core() -> None:
            self._profiles.save_profile(profile)

        def saved(_none: None) -> None:
            if self._draft is not None and self._draft["id"] == profile.id:
                self._draft = None
            self._current_id = None  # reload what was stored
            self._fill_list(profile.id)
            self.problem.show_ok(f"{profile.name} saved")

        self._client.call(save_on_core(), on_done=saved, on_error=self._failed("Profile not saved"))

    def delete(self) -> None:
        profile_id = self._current_id
        if profile_id is None:
            return
        if self._draft is not None and profile_id == self._draft["id"]:
            self._draft = None
            self._current_id = None
            self._fill_list(None)
            return
        profile = self._stored()
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
            self.problem.show_ok(f"{profile.name} deleted")

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
            lambda: self._client.call(delete_on_core(), on_done=deleted, on_error=self._failed("Profile not deleted")),
            informative=informative,
            destructive=True,
        )

    def detect(self) -> None:
        try:
            profile = self.edited_profile()
        except ValueError:
            profile = self.current_profile()
            if profile is None:
                self.detect_result.show_error("Fix the profile first")
                return
        self.detect_button.setEnabled(False)
        self.detect_result.show_hint("detecting…")
        shown_id = self._current_id

        def done(detection: Detection) -> None:
            self.detect_button.setEnabled(self._current_id is not None)
            if shown_id != self._current_id:
                return
            self.detect_result.show_detection(detection)

        self._client.call(self._profiles.detect(profile), on_done=done, on_error=self._failed("Detection failed"))

    def open_setup(self) -> None:
        """The first-run wizard, showing what is enabled now."""
        if self.is_modified and not self._confirm_discard():
            return
        self._draft = None
        wizard = FirstRunWizard(self._client, self._profiles, self._open_runtimes, self)
        wizard.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        wizard.accepted.connect(lambda: self._fill_list(self._current_id))
        wizard.open()

    def _failed(self, title: str) -> Callable[[BaseException], None]:
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


def _editable(data: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in data.items() if key not in HIDDEN_KEYS}
