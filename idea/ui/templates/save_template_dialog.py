"""Save as template (Agents panel): an agent's persona becomes a new template shared by every project."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from idea.application.agents.template_editing import TEMPLATE_NAME_HINT, template_name_problem
from idea.application.agents.templates import (
    TemplateCatalogue,
)
from idea.application.projects import ProjectRuntime
from idea.domain.ids import AgentId
from idea.domain.template import TemplateRecord
from idea.ui.core_client import CoreClient
from idea.ui.widgets.labels import HintLabel, with_hint
from idea.ui.widgets.messages import show_error


class SaveTemplateDialog(QDialog):
    """Name and describe a new template made of the agent's current persona (and its profile)."""

    def __init__(
        self,
        client: CoreClient,
        runtime: ProjectRuntime,
        templates: TemplateCatalogue,
        agent_id: AgentId,
        taken_names: list[str],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._client = client
        self._runtime = runtime
        self._agent_id = agent_id
        self._taken_names = tuple(taken_names)
        self.saved_template: TemplateRecord | None = None
        agent = runtime.agents.agent(agent_id)
        self.setWindowTitle(f"Save {agent.name} as a template")
        self.setMinimumWidth(480)
        self.name = QLineEdit(agent.name)
        self.name.setAccessibleName("Template name")
        self.name.selectAll()
        self.name_message = HintLabel(TEMPLATE_NAME_HINT)
        self.description = QLineEdit()
        self.description.setPlaceholderText("One line shown in the template list")
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        self.save_button = self.buttons.button(QDialogButtonBox.StandardButton.Save)
        self.save_button.setText("Save template")
        self.buttons.accepted.connect(self.save)
        self.buttons.rejected.connect(self.reject)
        form = QFormLayout()
        form.addRow("Name", with_hint(self.name, self.name_message))
        form.addRow("Description", self.description)
        column = QVBoxLayout(self)
        column.addLayout(form)
        column.addWidget(self.buttons)
        self.name.textChanged.connect(self._validate)
        self._validate()
        self.name.setFocus()

    def _validate(self) -> bool:
        problem = template_name_problem(self.name.text().strip(), self._taken_names)
        if problem is None:
            self.name_message.show_hint(TEMPLATE_NAME_HINT)
        else:
            self.name_message.show_error(problem)
        valid = problem is None
        self.save_button.setEnabled(valid)
        return valid

    def save(self) -> None:
        if not self._validate():
            return
        self.save_button.setEnabled(False)
        self._client.call(
            self._runtime.agents.save_as_template(self._agent_id, self.name.text(), self.description.text()),
            on_done=self._saved,
            on_error=self._failed,
        )

    def _saved(self, record: TemplateRecord) -> None:
        self.saved_template = record
        self.accept()

    def _failed(self, error: BaseException) -> None:
        self._validate()
        show_error(self, "Template not saved", error)
