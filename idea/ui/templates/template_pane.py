"""The right side of Agents ▸ Templates: one template's name, description, default profile, the agents made
from it, its persona in a Markdown editor, and Revert / Save with the outcome of the last save."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QFormLayout, QLabel, QLineEdit, QPushButton, QVBoxLayout, QWidget

from idea.application.agents.template_editing import (
    TEMPLATE_NAME_HINT,
    Draft,
    SaveOutcome,
    StoredTemplate,
    followers_sentence,
)
from idea.ui.widgets.labels import HintLabel, Notice, with_hint
from idea.ui.widgets.list_editor import editor_title, pane, save_row
from idea.ui.widgets.markdown_editor import MarkdownEditor
from idea.ui.widgets.messages import error_text

NEW_TEMPLATE_NAME = "New template"
FIXED_NAME_HINT = "A template keeps its name; duplicate it to get a copy under another name."
NO_DEFAULT_PROFILE = "None: chosen when an agent is created"
NOT_SYNCED_REMINDER = (
    "Agents not kept in sync show “update available” and take the new version when you choose, "
    "from the Agents panel."
)


def draft_name(draft: Draft) -> str:
    return draft.name.strip() or NEW_TEMPLATE_NAME


def draft_title(draft: Draft) -> str:
    return f"{draft_name(draft)}  ·  not saved"


class TemplatePane(QWidget):
    def __init__(self, changed: Callable[[], None], name_edited: Callable[[str], None],
                 revert: Callable[[], None], save: Callable[[], None], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = editor_title()
        self.name = QLineEdit()
        self.name.setAccessibleName("Template name")
        self.name.textEdited.connect(name_edited)
        self.name_message = HintLabel(TEMPLATE_NAME_HINT)
        self.description = QLineEdit()
        self.description.setPlaceholderText("One line shown in the template list")
        self.description.textChanged.connect(changed)
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
        self.editor.changed.connect(changed)
        self.status = HintLabel()
        self.revert_button = QPushButton("Revert")
        self.revert_button.clicked.connect(revert)
        self.save_button = QPushButton("Save")
        self.save_button.setToolTip("Save the template (Ctrl+S)")
        self.save_button.clicked.connect(save)
        QShortcut(QKeySequence.StandardKey.Save, self, activated=save)
        side = pane(self.title, form, self.report, self.editor, save_row(self.status, self.revert_button,
                                                                         self.save_button), stretch=self.editor)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(side)

    # -- what is shown --

    def show_nothing(self, empty: bool) -> None:
        """No template selected; `empty`: there is none at all."""
        self.title.setText("No template")
        self.name.clear()
        self.description.clear()
        self.editor.set_text("")
        self.default_profile.setText("—")
        self.users.setText("—")
        if empty:
            self.status.show_hint("No template yet: create one, or save an agent's persona from the Agents panel.")

    def show_content(self, name: str, description: str, body: str) -> None:
        self.name.setText(name)
        self.description.setText(description)
        self.editor.set_text(body)

    def show_facts(self, title: str, version: int | None, default_profile: str | None, users: list[str]) -> None:
        """The title (with the stored version), the default profile's name, the agents made from it."""
        self.title.setText(f"{title}  ·  v{version}" if version is not None else title)
        self.default_profile.setText(default_profile or NO_DEFAULT_PROFILE)
        self.users.setText(", ".join(users) or "No agent of the open projects is made from it.")

    def set_editable(self, editable: bool, *, name_editable: bool, name_fixed: bool) -> None:
        self.name.setReadOnly(not name_editable)
        # A name that cannot change reads as text, not as a field that refuses typing.
        self.name.setStyleSheet("" if name_editable else "QLineEdit { background: transparent; border: none; }")
        self.name_message.show_hint(FIXED_NAME_HINT if name_fixed else TEMPLATE_NAME_HINT)
        for widget in (self.name, self.description, self.editor):
            widget.setEnabled(editable)

    def differs_from(self, stored: StoredTemplate) -> bool:
        return self.editor.text() != stored.body or self.description.text().strip() != stored.record.description

    def edited_draft(self, shown: Draft) -> Draft:
        return Draft(self.name.text().strip(), self.description.text(), self.editor.text(), shown.default_profile_id)

    def show_name_problem(self, problem: str | None) -> None:
        if problem is None:
            self.name_message.show_hint(TEMPLATE_NAME_HINT)
        else:
            self.name_message.show_error(problem)

    def report_saved(self, outcome: SaveOutcome) -> None:
        """What a save did: the new version and the agents that took it, or that nothing changed."""
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
