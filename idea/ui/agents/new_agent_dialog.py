"""Creating an agent: from a template (its persona, its proposed profile, optionally kept in sync) or from
a blank persona written on the spot; in the main tree or in its own worktree."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QListWidget,
    QListWidgetItem,
    QSplitter,
    QTabWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from idea.application.agents.catalogue import BLANK_PERSONA, free_agent_name
from idea.application.agents.profile_descriptions import delegation_sentence
from idea.application.agents.profiles import ProfileCatalogue
from idea.application.agents.template_editing import LoadedTemplates, load_templates
from idea.application.agents.templates import TemplateCatalogue
from idea.application.git.agent_worktrees import CreatedAgent
from idea.application.projects import ProjectRuntime
from idea.domain.template import TemplateRecord
from idea.ui.agents.name_field import AgentNameField
from idea.ui.agents.worktree_option import WorktreeOption
from idea.ui.core_client import CoreClient
from idea.ui.widgets.labels import HintLabel, label_for
from idea.ui.widgets.list_row_delegate import ListRowDelegate
from idea.ui.widgets.markdown_editor import MarkdownEditor
from idea.ui.widgets.messages import show_error
from idea.ui.widgets.window_size import size_within_screen

TEMPLATE_TAB, BLANK_TAB = 0, 1
SYNC_TIP = (
    "When the template is saved with a new version, this agent's persona follows it automatically, "
    "unless you edited the persona yourself (then you choose)."
)


class NewAgentDialog(QDialog):
    """`created` carries the new AgentEntry once the core has stored it; `worktreeMade` the AgentWorktree
    when it was created in its own worktree."""

    created = Signal(object)
    worktreeMade = Signal(object)

    def __init__(
        self,
        client: CoreClient,
        runtime: ProjectRuntime,
        profiles: ProfileCatalogue,
        templates: TemplateCatalogue,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._client = client
        self._runtime = runtime
        self._profiles = profiles
        self._bodies: dict[str, str] = {}
        self._suggested_name = ""
        self.setWindowTitle("New agent")
        size_within_screen(self, 940, 620)

        column = QVBoxLayout(self)
        column.addLayout(self._name_and_profile(runtime))
        column.addWidget(self._sources(), 1)
        column.addWidget(self._buttons())
        self.name.edit.textChanged.connect(lambda _t: self._update_ok())
        self.name.edit.textChanged.connect(self.worktree.set_agent_name)
        self.profile.currentIndexChanged.connect(self._profile_chosen)
        self._profile_chosen()
        self._update_ok()
        self.name.setFocus()
        client.call(load_templates(templates, None), on_done=self._show_templates, on_error=self._templates_failed)

    def _name_and_profile(self, runtime: ProjectRuntime) -> QFormLayout:
        self.name = AgentNameField(runtime.agents.manifest)
        self.profile = QComboBox()
        self.profile.setMinimumWidth(260)
        self.profile_hint = HintLabel()
        self._fill_profiles()
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.addRow("Name", self.name)
        profile_row = QHBoxLayout()
        profile_row.addWidget(self.profile)
        profile_row.addWidget(self.profile_hint, 1)
        form.addRow(label_for("Profile", self.profile), profile_row)
        self.worktree = WorktreeOption(self._client, runtime)
        form.addRow("", self.worktree)
        return form

    def _sources(self) -> QTabWidget:
        """Where the persona comes from: a template (listed, previewed, kept in sync or not), or blank."""
        self.template_list = QListWidget()
        self.template_list.setAccessibleName("Templates")
        self.template_list.setItemDelegate(ListRowDelegate(self.template_list))
        self.template_list.setUniformItemSizes(True)
        self.template_list.currentItemChanged.connect(self._template_chosen)
        self.template_preview = QTextBrowser()
        self.template_preview.setAccessibleName("Template persona")
        self.template_preview.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.template_preview.setPlaceholderText("Choose a template in the list: its persona shows here.")
        self.template_description = HintLabel()
        self.keep_in_sync = QCheckBox("Keep in sync with the template")
        self.keep_in_sync.setToolTip(SYNC_TIP)
        self.templates_hint = HintLabel("Loading templates…")
        self.blank_persona = MarkdownEditor(BLANK_PERSONA)
        self.source = QTabWidget()
        self.source.addTab(self._template_page(), "From a template")
        self.source.addTab(self._padded(self.blank_persona), "Blank persona")
        self.source.currentChanged.connect(lambda _i: self._update_ok())
        return self.source

    def _buttons(self) -> QDialogButtonBox:
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.ok.setText("Create agent")
        self.ok.setDefault(True)
        self.buttons.accepted.connect(self.create)
        self.buttons.rejected.connect(self.reject)
        return self.buttons

    @staticmethod
    def _padded(content: QWidget) -> QWidget:
        page = QWidget()
        QVBoxLayout(page).addWidget(content)
        return page

    def _template_page(self) -> QWidget:
        page = QWidget()
        preview = QWidget()
        preview_column = QVBoxLayout(preview)
        preview_column.setContentsMargins(0, 0, 0, 0)
        preview_column.addWidget(self.template_description)
        preview_column.addWidget(self.template_preview, 1)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(self.template_list)
        splitter.addWidget(preview)
        splitter.setChildrenCollapsible(False)
        splitter.setSizes([320, 560])
        column = QVBoxLayout(page)
        column.addWidget(self.templates_hint)
        column.addWidget(splitter, 1)
        column.addWidget(self.keep_in_sync)
        return page

    # -- profiles --

    def _fill_profiles(self) -> None:
        for profile in self._profiles.profiles():
            self.profile.addItem(profile.name, profile.id)
        if self.profile.count() == 0:
            self.profile.setPlaceholderText("No profile set up")
            self.profile.setEnabled(False)

    def _profile_chosen(self, _index: int = 0) -> None:
        profile_id = self.profile.currentData()
        if profile_id is None:
            self.profile_hint.show_error("No AI CLI is set up yet: add one in Agents ▸ Profiles…")
        else:
            self.profile_hint.show_hint(delegation_sentence(self._profiles.profile(profile_id)))
        self._update_ok()

    # -- templates --

    def _show_templates(self, loaded: LoadedTemplates) -> None:
        self.templates_hint.show_hint("")
        for stored in loaded.templates:
            record = stored.record
            self._bodies[record.id] = stored.body
            item = QListWidgetItem(record.name)
            item.setData(Qt.ItemDataRole.UserRole, record)
            item.setData(ListRowDelegate.SUBTITLE_ROLE, record.description or "No description")
            item.setToolTip(record.description)
            self.template_list.addItem(item)
        if not loaded.templates:
            self.templates_hint.show_hint("No template yet: start from a blank persona.")
            self.source.setCurrentIndex(BLANK_TAB)
        self._update_ok()

    def _templates_failed(self, error: BaseException) -> None:
        self.templates_hint.show_error(f"Templates unavailable: {getattr(error, 'message', error)}")
        self.source.setCurrentIndex(BLANK_TAB)

    def _template_chosen(self, item: QListWidgetItem | None, _previous: QListWidgetItem | None = None) -> None:
        record = self.chosen_template()
        if item is None or record is None:
            self.template_preview.clear()
            self.template_description.show_hint("")
            self._update_ok()
            return
        self.template_description.show_hint(record.description)
        self.template_preview.setMarkdown(self._bodies.get(record.id, ""))
        if record.default_profile_id is not None:
            index = self.profile.findData(record.default_profile_id)
            if index >= 0:
                self.profile.setCurrentIndex(index)
        if self.name.text() in ("", self._suggested_name):
            self._suggested_name = free_agent_name(record.name, self._runtime.agents.manifest())
            self.name.set_text(self._suggested_name)
        self._update_ok()

    def chosen_template(self) -> TemplateRecord | None:
        item = self.template_list.currentItem()
        return item.data(Qt.ItemDataRole.UserRole) if item is not None else None

    def select_template(self, name: str) -> None:
        for row in range(self.template_list.count()):
            if self.template_list.item(row).text() == name:
                self.source.setCurrentIndex(TEMPLATE_TAB)
                self.template_list.setCurrentRow(row)
                return
        raise KeyError(name)

    # -- creating --

    def _update_ok(self) -> None:
        from_template = self.source.currentIndex() == TEMPLATE_TAB
        ready = self.name.is_valid and self.profile.currentData() is not None
        if from_template:
            ready = ready and self.chosen_template() is not None
        self.ok.setEnabled(ready)
        self.keep_in_sync.setEnabled(self.chosen_template() is not None)

    def create(self) -> None:
        if not self.ok.isEnabled():
            return
        template = self.chosen_template() if self.source.currentIndex() == TEMPLATE_TAB else None
        self.ok.setEnabled(False)
        self._client.call(
            self._runtime.worktrees.create_agent(
                self.name.text(),
                self.profile.currentData(),
                "" if template else self.blank_persona.text(),
                template=template,
                synchronized=template is not None and self.keep_in_sync.isChecked(),
                own_worktree=self.worktree.chosen,
                base=self.worktree.chosen_base,
            ),
            on_done=self._created,
            on_error=self._failed,
        )

    def _created(self, created: CreatedAgent) -> None:
        self.created.emit(created.agent)
        if created.worktree is not None:
            self.worktreeMade.emit(created.worktree)
        self.accept()

    def _failed(self, error: BaseException) -> None:
        self._update_ok()
        show_error(self, "Cannot create the agent", error)
