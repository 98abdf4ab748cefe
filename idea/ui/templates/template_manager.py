"""Agents ▸ Templates: the persona templates shared by all projects, and an editor for each one.

Saving a changed body raises the template's version; the agents kept in sync in the open projects then take
the new body at once (closed projects catch up when they are next opened), and the dialog names them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QCloseEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QDialog,
    QFormLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QTreeWidgetItem,
    QWidget,
)

from idea.application.agents.catalogue import BLANK_PERSONA
from idea.application.agents.profiles import ProfileCatalogue
from idea.application.agents.template_editing import (
    TEMPLATE_NAME_HINT,
    Draft,
    LoadedTemplates,
    SaveOutcome,
    StoredTemplate,
    create_template,
    delete_template,
    followers_sentence,
    joined_names,
    load_templates,
    save_template,
    template_name_problem,
    template_users,
)
from idea.application.agents.templates import TemplateCatalogue
from idea.application.projects import ProjectRuntime
from idea.domain.template import TemplateRecord
from idea.ui.core_client import CoreClient
from idea.ui.widgets.labels import HintLabel, Notice, with_hint
from idea.ui.widgets.list_editor import (
    close_buttons,
    editor_title,
    list_pane,
    pane,
    record_list,
    save_row,
    split_dialog,
)
from idea.ui.widgets.markdown_editor import MarkdownEditor
from idea.ui.widgets.messages import ask, error_text, show_error

NAME_COLUMN, DESCRIPTION_COLUMN = 0, 2
TEMPLATE_ID_ROLE = Qt.ItemDataRole.UserRole + 1
DRAFT_KEY = "draft"  # list key of the template being created (real ids are UUIDs)
NEW_TEMPLATE_NAME = "New template"
FIXED_NAME_HINT = "A template keeps its name; duplicate it to get a copy under another name."
NOT_SYNCED_REMINDER = (
    "Agents not kept in sync show “update available” and take the new version when you choose, "
    "from the Agents panel."
)


class TemplateManager(QDialog):
    """`templatesChanged` is emitted after every template created, saved or deleted."""

    templatesChanged = Signal()

    def __init__(
        self,
        client: CoreClient,
        templates: TemplateCatalogue,
        open_runtimes: Callable[[], Iterable[ProjectRuntime]],
        parent: QWidget | None = None,
        *,
        profiles: ProfileCatalogue | None = None,
    ) -> None:
        super().__init__(parent)
        self._client = client
        self._templates = templates
        self._open_runtimes = open_runtimes
        self._stored: dict[str, StoredTemplate] = {}
        self._profile_names: dict[str, str] = {}
        self._draft: Draft | None = None
        self._current_id: str | None = None
        self._loaded = False
        self._saving = False
        self._switching = False
        self.setWindowTitle("Templates[*]")
        self.resize(1320, 760)

        self.list = record_list(
            ["Template", "Version", "Description", "Default profile"], stretch_column=DESCRIPTION_COLUMN
        )
        self.list.currentItemChanged.connect(self._picked)
        self.new_button = QPushButton("New template…")
        self.new_button.clicked.connect(self.new_template)
        self.duplicate_button = QPushButton("Duplicate")
        self.duplicate_button.clicked.connect(self.duplicate)
        self.delete_button = QPushButton("Delete")
        self.delete_button.clicked.connect(self.delete)
        legend = HintLabel(
            "Each saved change to a persona raises the template's version. Agents kept in sync follow it; "
            "the others show “update available”."
        )
        left = list_pane(self.list, (self.new_button, self.duplicate_button, self.delete_button), legend)

        self.title = editor_title()
        self.name = QLineEdit()
        self.name.textEdited.connect(self._name_edited)
        self.name_message = HintLabel(TEMPLATE_NAME_HINT)
        self.description = QLineEdit()
        self.description.setPlaceholderText("One line shown in the template list")
        self.description.textChanged.connect(self._changed)
        self.default_profile = QLabel()
        self.default_profile.setToolTip("The profile proposed when an agent is created from this template")
        self.users = QLabel()
        self.users.setWordWrap(True)
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.addRow("Name", with_hint(self.name, self.name_message))
        form.addRow("Description", self.description)
        form.addRow("Default profile", self.default_profile)
        form.addRow("Agents", self.users)
        self.report = Notice()
        self.report.hide()
        self.editor = MarkdownEditor()
        self.editor.changed.connect(self._changed)
        self.status = HintLabel()
        self.revert_button = QPushButton("Revert")
        self.revert_button.clicked.connect(self.revert)
        self.save_button = QPushButton("Save")
        self.save_button.setToolTip("Save the template (Ctrl+S)")
        self.save_button.clicked.connect(lambda: self.save())
        QShortcut(QKeySequence.StandardKey.Save, self, activated=lambda: self.save())
        editor_buttons = save_row(self.status, self.revert_button, self.save_button)
        right = pane(self.title, form, self.report, self.editor, editor_buttons, stretch=self.editor)

        split_dialog(self, left, right, (560, 760), close_buttons(self))
        # Set once the button belongs to the dialog; before that, the dialog makes its first button the default.
        self.save_button.setDefault(True)

        self._show(None)
        self.status.show_hint("Loading templates…")
        self.list.setFocus()
        client.call(load_templates(templates, profiles), on_done=self._templates_loaded, on_error=self._load_failed)

    # -- the list --

    def _templates_loaded(self, loaded: LoadedTemplates) -> None:
        self._loaded = True
        self._stored = {stored.record.id: stored for stored in loaded.templates}
        self._profile_names = loaded.profile_names
        self._fill_list(None)

    def _load_failed(self, error: BaseException) -> None:
        self.status.show_error(f"Templates unavailable: {error_text(error)}")

    def _fill_list(self, select_id: str | None) -> None:
        """Rebuild the list and show `select_id` (else the first template) as stored."""
        target = self._refresh_rows(select_id)
        self._show(target)

    def _refresh_rows(self, select_id: str | None) -> str | None:
        """Rebuild the rows without touching the editor; returns the key of the selected row."""
        self._switching = True
        self.list.clear()
        for stored in self._stored.values():
            record = stored.record
            item = QTreeWidgetItem(
                [record.name, f"v{record.version}", record.description, self._profile_label(record.default_profile_id)]
            )
            item.setData(NAME_COLUMN, TEMPLATE_ID_ROLE, record.id)
            item.setToolTip(DESCRIPTION_COLUMN, record.description)
            self.list.addTopLevelItem(item)
        if self._draft is not None:
            self.list.addTopLevelItem(self._draft_item(self._draft))
        rows = [self.list.topLevelItem(i) for i in range(self.list.topLevelItemCount())]
        keys = [row.data(NAME_COLUMN, TEMPLATE_ID_ROLE) for row in rows]
        target = select_id if select_id in keys else (keys[0] if keys else None)
        if target is not None:
            self.list.setCurrentItem(rows[keys.index(target)])
        self._switching = False
        return target

    def _draft_item(self, draft: Draft) -> QTreeWidgetItem:
        item = QTreeWidgetItem(
            [self._draft_name(draft), "new", draft.description, self._profile_label(draft.default_profile_id)]
        )
        item.setData(NAME_COLUMN, TEMPLATE_ID_ROLE, DRAFT_KEY)
        item.setToolTip(NAME_COLUMN, "Not saved yet")
        font = item.font(NAME_COLUMN)
        font.setItalic(True)
        for column in range(item.columnCount()):
            item.setFont(column, font)
        return item

    @staticmethod
    def _draft_name(draft: Draft) -> str:
        return draft.name.strip() or NEW_TEMPLATE_NAME

    @classmethod
    def _draft_title(cls, draft: Draft) -> str:
        return f"{cls._draft_name(draft)}  ·  not saved"

    def _profile_label(self, profile_id: str | None) -> str:
        if profile_id is None:
            return "—"
        return self._profile_names.get(profile_id) or f"profile {profile_id[:8]}"

    def _select_row(self, key: str | None) -> None:
        self._switching = True
        for index in range(self.list.topLevelItemCount()):
            item = self.list.topLevelItem(index)
            if item.data(NAME_COLUMN, TEMPLATE_ID_ROLE) == key:
                self.list.setCurrentItem(item)
        self._switching = False

    def _picked(self, item: QTreeWidgetItem | None, _previous: QTreeWidgetItem | None) -> None:
        if self._switching or item is None:
            return
        key = item.data(NAME_COLUMN, TEMPLATE_ID_ROLE)
        if key == self._current_id:
            return
        if self._saving:
            self._select_row(self._current_id)  # the template being stored stays shown until it is stored
            return
        if self.is_modified:
            self._select_row(self._current_id)  # the selection stays put until the user answers
        self._after_unsaved_changes(lambda: self._go_to(key))

    def _go_to(self, key: str) -> None:
        self._select_row(key)
        self._show(key)

    # -- showing one template --

    def _show(self, key: str | None) -> None:
        self._current_id = key
        self.report.hide()
        self.status.show_hint("")
        self._switching = True
        if key is None:
            self.title.setText("No template")
            self.name.clear()
            self.description.clear()
            self.editor.set_text("")
            self.default_profile.setText("—")
            self.users.setText("—")
            if self._loaded and not self._stored:
                self.status.show_hint("No template yet: create one, or save an agent's persona from the Agents panel.")
        elif key == DRAFT_KEY and self._draft is not None:
            self.name.setText(self._draft.name)
            self.description.setText(self._draft.description)
            self.editor.set_text(self._draft.body)
            self._show_facts(self._draft_title(self._draft), self._draft.default_profile_id, [])
        else:
            record, body = self._stored[key].record, self._stored[key].body
            self.name.setText(record.name)
            self.description.setText(record.description)
            self.editor.set_text(body)
            self._show_facts(record.name, record.default_profile_id, template_users(self._open_runtimes(), key))
        self.name.setReadOnly(key != DRAFT_KEY)
        # A name that cannot change reads as text, not as a field that refuses typing.
        self.name.setStyleSheet("" if key == DRAFT_KEY else "QLineEdit { background: transparent; border: none; }")
        self.name_message.show_hint(FIXED_NAME_HINT if key in self._stored else TEMPLATE_NAME_HINT)
        editable = key is not None
        for widget in (self.name, self.description, self.editor):
            widget.setEnabled(editable)
        self._switching = False
        self._changed()

    def _show_facts(self, title: str, default_profile_id: str | None, users: list[str]) -> None:
        stored = self._stored.get(self._current_id or "")
        self.title.setText(f"{title}  ·  v{stored.record.version}" if stored else title)
        self.default_profile.setText(
            self._profile_label(default_profile_id) if default_profile_id else "None: chosen when an agent is created"
        )
        self.users.setText(", ".join(users) or "No agent of the open projects is made from it.")

    # -- editing --

    @property
    def is_modified(self) -> bool:
        if self._current_id is None:
            return False
        if self._current_id == DRAFT_KEY:
            return True
        stored = self._stored[self._current_id]
        return (
            self.editor.text() != stored.body
            or self.description.text().strip() != stored.record.description
        )

    def _name_problem(self) -> str | None:
        return template_name_problem(self.name.text().strip(), (s.record.name for s in self._stored.values()))

    def _name_edited(self, text: str) -> None:
        if self._draft is None or self._current_id != DRAFT_KEY:
            return
        self._draft.name = text
        self.title.setText(self._draft_title(self._draft))
        item = self.list.currentItem()
        if item is not None:
            item.setText(NAME_COLUMN, self._draft_name(self._draft))
        self._changed()

    def _changed(self) -> None:
        if self._switching:
            return
        valid = True
        if self._current_id == DRAFT_KEY:
            problem = self._name_problem()
            valid = problem is None
            if problem is None:
                self.name_message.show_hint(TEMPLATE_NAME_HINT)
            else:
                self.name_message.show_error(problem)
        modified = self.is_modified
        idle = self._loaded and not self._saving
        self.save_button.setEnabled(idle and modified and valid)
        self.revert_button.setEnabled(idle and modified and self._current_id != DRAFT_KEY)
        self.new_button.setEnabled(idle)
        self.duplicate_button.setEnabled(idle and self._current_id in self._stored)
        self.delete_button.setEnabled(idle and self._current_id is not None)
        self.setWindowModified(modified)

    def _set_saving(self, saving: bool) -> None:
        self._saving = saving
        self._changed()

    # -- unsaved changes --

    def _after_unsaved_changes(self, then: Callable[[], None]) -> None:
        """Run `then` now, or once the user saved or discarded the edits (never blocking the GUI thread)."""
        if not self.is_modified:
            then()
            return
        buttons = QMessageBox.StandardButton
        box = QMessageBox(
            QMessageBox.Icon.Question,
            "Unsaved template",
            f"Save the changes to “{self.name.text().strip() or NEW_TEMPLATE_NAME}”?",
            buttons.Save | buttons.Discard | buttons.Cancel,
            self,
        )
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.setDefaultButton(buttons.Save)
        box.setEscapeButton(buttons.Cancel)
        box.button(buttons.Save).clicked.connect(lambda: self.save(then=then))
        box.button(buttons.Discard).clicked.connect(lambda: self._discard_then(then))
        box.open()

    def _discard_then(self, then: Callable[[], None]) -> None:
        if self._current_id == DRAFT_KEY:
            self._draft = None
            self._fill_list(None)
        else:
            self._show(self._current_id)
        then()

    # -- commands --

    def new_template(self) -> None:
        self._after_unsaved_changes(lambda: self._start_draft(Draft(NEW_TEMPLATE_NAME, "", BLANK_PERSONA, None)))

    def duplicate(self) -> None:
        stored = self._stored.get(self._current_id or "")
        if stored is None:
            return
        record = stored.record

        def start() -> None:
            name = self._free_name(f"{record.name} copy")
            self._start_draft(Draft(name, record.description, stored.body, record.default_profile_id))

        self._after_unsaved_changes(start)

    def _start_draft(self, draft: Draft) -> None:
        self._draft = draft
        self._fill_list(DRAFT_KEY)
        self.name.setFocus()
        self.name.selectAll()

    def _free_name(self, base: str) -> str:
        taken = {s.record.name.casefold() for s in self._stored.values()}
        name, number = base, 2
        while name.casefold() in taken:
            name = f"{base} {number}"
            number += 1
        return name

    def revert(self) -> None:
        if self._current_id in self._stored:
            self._show(self._current_id)

    def save(self, then: Callable[[], None] | None = None) -> None:
        """Store the template shown; `then` runs once it is stored."""
        if self._saving or not self.is_modified:
            return
        if self._current_id == DRAFT_KEY and self._draft is not None:
            self._create(self._draft, then)
        elif self._current_id is not None:
            self._update(self._current_id, then)

    def _create(self, shown: Draft, then: Callable[[], None] | None) -> None:
        problem = self._name_problem()
        if problem is not None:
            self.name_message.show_error(problem)
            self.name.setFocus()
            return
        draft = Draft(self.name.text().strip(), self.description.text(), self.editor.text(), shown.default_profile_id)
        self._set_saving(True)

        def created(record: TemplateRecord) -> None:
            self._saving = False
            self._draft = None
            self._stored[record.id] = StoredTemplate(record, draft.body)
            self._fill_list(record.id)
            self.status.show_ok(f"{record.name} created (v{record.version}).")
            self.templatesChanged.emit()
            if then is not None:
                then()

        self._client.call(
            create_template(self._templates, draft), on_done=created, on_error=self._failed("Template not created")
        )

    def _update(self, template_id: str, then: Callable[[], None] | None) -> None:
        body = self.editor.text()
        self._set_saving(True)

        def saved(outcome: SaveOutcome) -> None:
            self._saving = False
            record = outcome.record
            self._stored[record.id] = StoredTemplate(record, body)
            # Only the rows and facts are refreshed: what was typed while saving stays in the editor.
            self._refresh_rows(record.id)
            self._show_facts(record.name, record.default_profile_id, template_users(self._open_runtimes(), record.id))
            self._report(outcome)
            self._changed()
            self.templatesChanged.emit()
            if then is not None:
                then()

        self._client.call(
            save_template(self._templates, self._open_runtimes, template_id, body, self.description.text()),
            on_done=saved,
            on_error=self._failed("Template not saved"),
        )

    def _report(self, outcome: SaveOutcome) -> None:
        record = outcome.record
        if not outcome.version_raised:
            self.report.hide()
            self.status.show_ok(f"{record.name} saved; the persona did not change, so it stays v{record.version}.")
            return
        lines = [f"{record.name} v{record.version} saved. {followers_sentence(outcome.followers, record.version)}"]
        lines.extend(f"Not updated in {project}: {error_text(error)}" for project, error in outcome.sync_failures)
        lines.append(NOT_SYNCED_REMINDER)
        self.report.setText("\n".join(lines))
        self.report.show()
        self.status.show_hint("")

    def delete(self) -> None:
        key = self._current_id
        if key is None:
            return
        if key == DRAFT_KEY:
            self._draft = None
            self._fill_list(None)
            return
        record = self._stored[key].record
        users = template_users(self._open_runtimes(), key)
        informative = "Agents made from it keep their personas and show “template deleted”."
        if users:
            informative += f" In the open projects: {joined_names(users)}."

        def deleted(_none: None) -> None:
            self._saving = False
            self._stored.pop(key, None)
            self._fill_list(None if self._current_id == key else self._current_id)
            self.status.show_ok(f"{record.name} deleted.")
            self.templatesChanged.emit()

        def confirmed() -> None:
            self._set_saving(True)
            self._client.call(
                delete_template(self._templates, key), on_done=deleted, on_error=self._failed("Template not deleted")
            )

        ask(
            self,
            "Delete template",
            f"Delete the template “{record.name}”? This cannot be undone.",
            "Delete",
            confirmed,
            informative=informative,
            destructive=True,
        )

    def _failed(self, title: str) -> Callable[[BaseException], None]:
        def report(error: BaseException) -> None:
            self._set_saving(False)
            show_error(self, title, error)

        return report

    def closeEvent(self, event: QCloseEvent) -> None:
        if self.is_modified:
            event.ignore()
            self._after_unsaved_changes(self.close)
            return
        event.accept()

    def reject(self) -> None:
        self.close()  # Escape goes through the unsaved-changes question
