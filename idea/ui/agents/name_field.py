"""An agent-name field validated as the user types, and the Rename dialog built on it."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from idea.application.projects import ProjectRuntime
from idea.domain.agent import AGENT_NAME_MAX_CHARS, AgentManifest, validate_agent_name
from idea.domain.errors import AppError
from idea.domain.ids import AgentId
from idea.ui.core_client import CoreClient
from idea.ui.widgets.labels import HintLabel
from idea.ui.widgets.messages import show_error

NAME_HINT = "Letters, digits, spaces, - and _. Other agents address it by this name."


class AgentNameField(QWidget):
    """A line edit with the rule's message under it. `validityChanged(bool)` follows every keystroke."""

    validityChanged = Signal(bool)

    def __init__(
        self,
        manifest: Callable[[], AgentManifest],
        *,
        exclude_agent_id: AgentId | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._manifest = manifest
        self._exclude = exclude_agent_id
        self.edit = QLineEdit()
        self.edit.setMaxLength(AGENT_NAME_MAX_CHARS + 8)  # long enough to show the length message
        self.edit.setPlaceholderText("e.g. Architect")
        self.edit.setAccessibleName("Agent name")
        self.message = HintLabel(NAME_HINT)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(3)
        column.addWidget(self.edit)
        column.addWidget(self.message)
        self.setFocusProxy(self.edit)
        self.is_valid = False
        self.edit.textChanged.connect(self.validate)

    def text(self) -> str:
        return self.edit.text()

    def set_text(self, text: str) -> None:
        self.edit.setText(text)
        self.validate()

    def validate(self) -> bool:
        """Check the name now; an empty field is invalid but only shows the hint (nothing typed yet)."""
        name = self.edit.text()
        try:
            validate_agent_name(name, self._manifest(), exclude_agent_id=self._exclude)
        except AppError as exc:
            valid = False
            if name:
                self.message.show_error(exc.message)
            else:
                self.message.show_hint()
        else:
            valid = True
            self.message.show_hint()
        if valid != self.is_valid:
            self.is_valid = valid
            self.validityChanged.emit(valid)
        return valid


class RenameAgentDialog(QDialog):
    def __init__(
        self, client: CoreClient, runtime: ProjectRuntime, agent_id: AgentId, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self._client = client
        self._runtime = runtime
        self._agent_id = agent_id
        current = runtime.agents.agent(agent_id).name
        self.setWindowTitle(f"Rename {current}")
        self.setMinimumWidth(420)
        self.name = AgentNameField(runtime.agents.manifest, exclude_agent_id=agent_id)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.ok.setText("Rename")
        self.buttons.accepted.connect(self.rename)
        self.buttons.rejected.connect(self.reject)
        form = QFormLayout()
        form.addRow("New name", self.name)
        column = QVBoxLayout(self)
        column.addLayout(form)
        column.addWidget(HintLabel("The persona file keeps its path, so references to it stay valid."))
        column.addWidget(self.buttons)
        # Connected after the field's own validation, so `is_valid` is current here.
        self.name.edit.textChanged.connect(lambda _t: self.ok.setEnabled(self.name.is_valid and self._changed()))
        self.name.set_text(current)
        self.name.edit.selectAll()
        self.ok.setEnabled(False)
        self.name.setFocus()

    def _changed(self) -> bool:
        return self.name.text() != self._runtime.agents.agent(self._agent_id).name

    def rename(self) -> None:
        if not (self.name.validate() and self._changed()):
            return
        self.ok.setEnabled(False)
        self._client.call(
            self._runtime.agents.rename(self._agent_id, self.name.text()),
            on_done=lambda _none: self.accept(),
            on_error=self._failed,
        )

    def _failed(self, error: BaseException) -> None:
        self.ok.setEnabled(True)
        show_error(self, "Cannot rename", error)
