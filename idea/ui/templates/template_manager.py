"""Agents ▸ Templates: the persona templates shared by all projects, and an editor for each one.

Saving a changed body raises the template's version; the agents kept in sync in the open projects then take
the new body at once (closed projects catch up when they are next opened), and the dialog names them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from PySide6.QtCore import Signal
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import QDialog, QWidget

from idea.application.agents.catalogue import BLANK_PERSONA
from idea.application.agents.profiles import ProfileCatalogue
from idea.application.agents.template_editing import (
    Draft,
    LoadedTemplates,
    SaveOutcome,
    StoredTemplate,
    create_template,
    delete_template,
    free_template_name,
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
from idea.ui.templates.template_list import DRAFT_KEY, TemplateList
from idea.ui.templates.template_pane import NEW_TEMPLATE_NAME, TemplatePane, draft_name, draft_title
from idea.ui.widgets.list_editor import close_buttons, split_dialog
from idea.ui.widgets.messages import ask, ask_to_save, error_text, show_error
from idea.ui.widgets.window_size import size_within_screen


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
        self._profiles_named = LoadedTemplates([], {})
        self._draft: Draft | None = None
        self._current_id: str | None = None
        self._loaded = False
        self._saving = False
        self._switching = False
        self.setWindowTitle("Templates[*]")
        size_within_screen(self, 1320, 760)
        self.templates = TemplateList(self._picked, self.new_template, self.duplicate, self.delete)
        self.pane = TemplatePane(self._changed, self._name_edited, self.revert, lambda: self.save())
        split_dialog(self, self.templates, self.pane, (560, 760), close_buttons(self))
        # Set once the button belongs to the dialog; before that, the dialog makes its first button the default.
        self.pane.save_button.setDefault(True)
        self._show(None)
        self.pane.status.show_hint("Loading templates…")
        self.templates.list.setFocus()
        client.call(load_templates(templates, profiles), on_done=self._templates_loaded, on_error=self._load_failed)

    # -- the list --

    def _templates_loaded(self, loaded: LoadedTemplates) -> None:
        self._loaded = True
        self._stored = {stored.record.id: stored for stored in loaded.templates}
        self._profiles_named = loaded
        self._fill_list(None)

    def _load_failed(self, error: BaseException) -> None:
        self.pane.status.show_error(f"Templates unavailable: {error_text(error)}")

    def _fill_list(self, select_id: str | None) -> None:
        """Rebuild the list and show `select_id` (else the first template) as stored."""
        self._show(self._refresh_rows(select_id))

    def _refresh_rows(self, select_id: str | None) -> str | None:
        """Rebuild the rows without touching the editor; returns the key of the selected row."""
        return self.templates.fill(self._stored.values(), self._draft, self._profiles_named.profile_label, select_id)

    def _picked(self, key: str) -> None:
        if self._switching or key == self._current_id:
            return
        if self._saving:
            self.templates.select(self._current_id)  # the template being stored stays shown until it is stored
            return
        if self.is_modified:
            self.templates.select(self._current_id)  # the selection stays put until the user answers
        self._after_unsaved_changes(lambda: self._go_to(key))

    def _go_to(self, key: str) -> None:
        self.templates.select(key)
        self._show(key)

    # -- showing one template --

    def _show(self, key: str | None) -> None:
        self._current_id = key
        self.pane.report.hide()
        self.pane.status.show_hint("")
        self._switching = True
        if key is None:
            self.pane.show_nothing(empty=self._loaded and not self._stored)
        elif key == DRAFT_KEY and self._draft is not None:
            draft = self._draft
            self.pane.show_content(draft.name, draft.description, draft.body)
            self._show_facts(draft_title(draft), draft.default_profile_id, [])
        else:
            record = self._stored[key].record
            self.pane.show_content(record.name, record.description, self._stored[key].body)
            self._show_facts(record.name, record.default_profile_id, template_users(self._open_runtimes(), key))
        self.pane.set_editable(key is not None, name_editable=key == DRAFT_KEY, name_fixed=key in self._stored)
        self._switching = False
        self._changed()

    def _show_facts(self, title: str, default_profile_id: str | None, users: list[str]) -> None:
        stored = self._stored.get(self._current_id or "")
        label = self._profiles_named.profile_label(default_profile_id) if default_profile_id else None
        self.pane.show_facts(title, stored.record.version if stored else None, label, users)

    # -- editing --

    @property
    def is_modified(self) -> bool:
        if self._current_id is None:
            return False
        if self._current_id == DRAFT_KEY:
            return True
        return self.pane.differs_from(self._stored[self._current_id])

    def _name_problem(self) -> str | None:
        return template_name_problem(self.pane.name.text().strip(), (s.record.name for s in self._stored.values()))

    def _name_edited(self, text: str) -> None:
        if self._draft is None or self._current_id != DRAFT_KEY:
            return
        self._draft.name = text
        self.pane.title.setText(draft_title(self._draft))
        self.templates.rename_current(draft_name(self._draft))
        self._changed()

    def _changed(self) -> None:
        if self._switching:
            return
        valid = True
        if self._current_id == DRAFT_KEY:
            problem = self._name_problem()
            valid = problem is None
            self.pane.show_name_problem(problem)
        modified = self.is_modified
        idle = self._loaded and not self._saving
        self.pane.save_button.setEnabled(idle and modified and valid)
        self.pane.revert_button.setEnabled(idle and modified and self._current_id != DRAFT_KEY)
        self.templates.new_button.setEnabled(idle)
        self.templates.duplicate_button.setEnabled(idle and self._current_id in self._stored)
        self.templates.delete_button.setEnabled(idle and self._current_id is not None)
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
        name = self.pane.name.text().strip() or NEW_TEMPLATE_NAME
        ask_to_save(self, "Unsaved template", f"Save the changes to “{name}”?", lambda: self.save(then=then),
                    lambda: self._discard_then(then))

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
            name = free_template_name(f"{record.name} copy", (s.record.name for s in self._stored.values()))
            self._start_draft(Draft(name, record.description, stored.body, record.default_profile_id))

        self._after_unsaved_changes(start)

    def _start_draft(self, draft: Draft) -> None:
        self._draft = draft
        self._fill_list(DRAFT_KEY)
        self.pane.name.setFocus()
        self.pane.name.selectAll()

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
            self.pane.name_message.show_error(problem)
            self.pane.name.setFocus()
            return
        draft = self.pane.edited_draft(shown)
        self._set_saving(True)

        def created(record: TemplateRecord) -> None:
            self._saving = False
            self._draft = None
            self._stored[record.id] = StoredTemplate(record, draft.body)
            self._fill_list(record.id)
            self.pane.status.show_ok(f"{record.name} created (v{record.version}).")
            self.templatesChanged.emit()
            if then is not None:
                then()

        self._client.call(
            create_template(self._templates, draft), on_done=created, on_error=self._failed("Template not created")
        )

    def _update(self, template_id: str, then: Callable[[], None] | None) -> None:
        body = self.pane.editor.text()
        self._set_saving(True)

        def saved(outcome: SaveOutcome) -> None:
            self._saving = False
            record = outcome.record
            self._stored[record.id] = StoredTemplate(record, body)
            # Only the rows and facts are refreshed: what was typed while saving stays in the editor.
            self._refresh_rows(record.id)
            self._show_facts(record.name, record.default_profile_id, template_users(self._open_runtimes(), record.id))
            self.pane.report_saved(outcome)
            self._changed()
            self.templatesChanged.emit()
            if then is not None:
                then()

        self._client.call(
            save_template(self._templates, self._open_runtimes, template_id, body, self.pane.description.text()),
            on_done=saved,
            on_error=self._failed("Template not saved"),
        )

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
            self.pane.status.show_ok(f"{record.name} deleted.")
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
