"""The Skills view (spec 04 §13): project and global skills; create, edit, delete; assign to agents (listed in
their context file from their next launch)."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any, Protocol

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QWidget,
)

from idea.application.knowledge.skills import SkillCatalogue
from idea.domain.agent import AgentManifest, SkillScope
from idea.domain.knowledge.events import SkillsChanged
from idea.domain.knowledge.skill import GLOBAL, PROJECT, Skill, is_valid_name
from idea.ui.knowledge.common import Caller, call_for, column, confirm, list_and_editor, unwrapped
from idea.ui.widgets.empty_hint import EmptyHint
from idea.ui.widgets.list_row_delegate import ListRowDelegate

UNSAVED_ASSIGNMENT = "Save the skill first; then tick here the agents that get it."
NO_AGENT_TO_ASSIGN = "This project has no agent yet."
RESTART_NOTE = "An agent sees a newly assigned skill after its next launch; any skill can be read by name at any time."


class SkillsPort(Protocol):
    def catalogue(self) -> Coroutine[Any, Any, SkillCatalogue]: ...

    def create(self, name: str, content: str, description: str | None = None, scope: SkillScope = PROJECT) -> Coroutine[Any, Any, Skill]: ...

    def update(self, scope: SkillScope, skill_id: str, *, name: str, description: str | None, body: str) -> Coroutine[Any, Any, Skill]: ...

    def delete(self, scope: SkillScope, skill_id: str) -> Coroutine[Any, Any, None]: ...

    def assign(self, agent_id: str, scope: SkillScope, skill_id: str) -> Coroutine[Any, Any, None]: ...

    def unassign(self, agent_id: str, scope: SkillScope, skill_id: str) -> Coroutine[Any, Any, None]: ...


class SkillsView(QWidget):
    loaded = Signal()

    def __init__(self, caller: Caller, skills: SkillsPort, team: Callable[[], AgentManifest], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._caller = caller
        self._skills = skills
        self._team = team
        self.catalogue: SkillCatalogue | None = None
        self.current: Skill | None = None

        self.list = QListWidget()
        self.list.setAccessibleName("Skills")
        self.list.setItemDelegate(ListRowDelegate(self.list))
        self.list.currentItemChanged.connect(self._selected)
        EmptyHint(self.list, "No skill yet. A skill is a procedure an agent loads by name before applying it; "
                             "New skill writes one.")
        self.new_button = QPushButton("New skill")
        self.new_button.clicked.connect(self.new_skill)

        self.name = QLineEdit()
        self.name.setPlaceholderText("build-appimage")
        self.scope = QComboBox()
        self.scope.addItem("This project", PROJECT)
        self.scope.addItem("All projects (global)", GLOBAL)
        self.description = QLineEdit()
        self.description.setPlaceholderText("When to use it (the first line of the body when empty)")
        form = QFormLayout()
        form.addRow("Name", self.name)
        form.addRow("Scope", self.scope)
        form.addRow("Description", self.description)
        self.body = QPlainTextEdit()
        self.body.setPlaceholderText("The procedure, in Markdown.")
        self.body.setAccessibleName("Procedure")
        self.agents = QListWidget()
        self.agents.setAccessibleName("Assigned to")
        self.agents.setMaximumHeight(130)
        self.agents.itemChanged.connect(self._assignment_changed)
        self.agents_hint = EmptyHint(self.agents, UNSAVED_ASSIGNMENT)
        self.save_button = QPushButton("Save")
        self.save_button.clicked.connect(self.save)
        self.delete_button = QPushButton("Delete…")
        self.delete_button.clicked.connect(self.confirm_delete)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.delete_button)
        buttons.addWidget(self.save_button)
        note = QLabel(RESTART_NOTE)
        note.setWordWrap(True)
        note.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.status = list_and_editor(
            self,
            "<b>Skills</b> — reusable procedures agents load by name before applying them.",
            self.list,
            self.new_button,
            column(form, (self.body, 1), QLabel("Assigned to"), self.agents, note, buttons),
        )
        self._show(None)

    def reload(self) -> None:
        call_for(self, self._caller, self._skills.catalogue(), self._loaded, self.status.fail)

    def on_event(self, event: object) -> None:
        if isinstance(unwrapped(event), SkillsChanged):
            self.reload()

    def _loaded(self, catalogue: SkillCatalogue) -> None:
        self.catalogue = catalogue
        keep = (self.current.scope, self.current.record.id) if self.current is not None else None
        self.list.blockSignals(True)
        self.list.clear()
        for skill in catalogue.skills:
            scope = "project" if skill.scope == PROJECT else "global"
            item = QListWidgetItem(skill.name)
            item.setData(ListRowDelegate.SUBTITLE_ROLE, skill.effective_description)
            item.setData(ListRowDelegate.NOTE_ROLE, scope)
            item.setData(Qt.ItemDataRole.UserRole, (skill.scope, skill.record.id))
            self.list.addItem(item)
        self.list.blockSignals(False)
        if catalogue.problems:
            self.status.fail("Some skills could not be read: " + "; ".join(catalogue.problems))
        else:
            self.status.say("")
        rows = [self.list.item(r).data(Qt.ItemDataRole.UserRole) for r in range(self.list.count())]
        if keep in rows:
            self.list.setCurrentRow(rows.index(keep))
        elif rows:
            self.list.setCurrentRow(0)
        else:
            self._show(None)
        self.loaded.emit()

    def _selected(self, item: QListWidgetItem | None) -> None:
        if item is None or self.catalogue is None:
            self._show(None)
            return
        scope, skill_id = item.data(Qt.ItemDataRole.UserRole)
        self._show(self.catalogue.get(scope, skill_id))

    def _show(self, skill: Skill | None) -> None:
        self.current = skill
        self.name.setText(skill.name if skill else "")
        self.scope.setCurrentIndex(self.scope.findData(skill.scope if skill else PROJECT))
        self.scope.setEnabled(skill is None)
        self.description.setText((skill.record.description or "") if skill else "")
        self.body.setPlainText(skill.body if skill else "")
        self.delete_button.setEnabled(skill is not None)
        self.agents.blockSignals(True)
        self.agents.clear()
        self.agents.setEnabled(skill is not None)
        self.agents_hint.setText(UNSAVED_ASSIGNMENT if skill is None else NO_AGENT_TO_ASSIGN)
        if skill is not None:
            for agent in self._team().agents:
                item = QListWidgetItem(agent.name)
                item.setData(Qt.ItemDataRole.UserRole, agent.agent_id)
                item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
                held = any(ref.skill_id == skill.record.id and ref.scope == skill.scope for ref in agent.skills)
                item.setCheckState(Qt.CheckState.Checked if held else Qt.CheckState.Unchecked)
                self.agents.addItem(item)
        self.agents.blockSignals(False)

    def new_skill(self) -> None:
        self.list.setCurrentRow(-1)
        self._show(None)
        self.name.setFocus()

    def save(self) -> None:
        name, body = self.name.text().strip(), self.body.toPlainText()
        if not is_valid_name(name):
            self.status.fail("A skill name is letters, digits, '.', '_' and '-', starting with a letter or a digit.")
            return
        if not body.strip():
            self.status.fail("The skill has no procedure yet.")
            return
        description = self.description.text().strip() or None
        if self.current is None:
            work = self._skills.create(name, body, description, self.scope.currentData())
        else:
            work = self._skills.update(self.current.scope, self.current.record.id, name=name, description=description, body=body)

        def saved(skill: Skill) -> None:
            self.current = skill
            self.status.say(f"Saved {skill.name}.")
            self.reload()

        call_for(self, self._caller, work, saved, self.status.fail)

    def confirm_delete(self) -> None:
        skill = self.current
        if skill is None:
            return
        text = f"Delete the {skill.scope} skill “{skill.name}”? It is also removed from every agent it is assigned to."
        confirm(self, "Delete skill", text, "Delete", lambda: self.delete(skill))

    def delete(self, skill: Skill) -> None:
        self.current = None
        call_for(self, self._caller, self._skills.delete(skill.scope, skill.record.id), lambda _: self.reload(), self.status.fail)

    def _assignment_changed(self, item: QListWidgetItem) -> None:
        skill = self.current
        if skill is None:
            return
        agent_id, agent_name = item.data(Qt.ItemDataRole.UserRole), item.text()
        checked = item.checkState() == Qt.CheckState.Checked
        change = self._skills.assign if checked else self._skills.unassign
        verb = "assigned to" if checked else "removed from"
        call_for(self, self._caller, 
            change(agent_id, skill.scope, skill.record.id),
            lambda _: self.status.say(f"{skill.name} {verb} {agent_name}; it applies at its next launch."),
            self.status.fail,
        )
