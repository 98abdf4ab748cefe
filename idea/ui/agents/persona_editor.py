"""Editing an agent's persona: Markdown on the left, its rendering on the right, saved through the core.

A persona is read at each launch, so a running agent keeps its old role until it is restarted; the editor
says so instead of pretending the change is live.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QCloseEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QMessageBox,
    QVBoxLayout,
    QWidget,
)

from idea.application.projects import ProjectRuntime
from idea.domain.ids import AgentId
from idea.ui.core_client import CoreClient
from idea.ui.widgets.labels import HintLabel, Notice
from idea.ui.widgets.markdown_editor import MarkdownEditor
from idea.ui.widgets.messages import show_error
from idea.ui.widgets.window_size import size_within_screen

RESTART_NOTICE = "This agent is running: changes apply at the next launch — restart it to apply them."


class PersonaEditor(QDialog):
    """Non-modal, so the user can watch the agents while writing. `saved` carries the agent id."""

    saved = Signal(str)

    def __init__(
        self,
        client: CoreClient,
        runtime: ProjectRuntime,
        agent_id: AgentId,
        body: str,
        *,
        running: bool,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._client = client
        self._runtime = runtime
        self.agent_id = agent_id
        agent = runtime.agents.agent(agent_id)
        self.setWindowTitle(f"Persona — {agent.name}[*]")
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        size_within_screen(self, 1000, 640)
        self._saved_body = body
        self._close_when_saved = False

        self.notice = Notice(RESTART_NOTICE)
        where = HintLabel(f"{runtime.root}/.ideai/{agent.md_path}")
        self.editor = MarkdownEditor(body)
        self.editor.changed.connect(self._update_buttons)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Close)
        self.buttons.accepted.connect(self.save)
        self.buttons.rejected.connect(self.close)
        self.save_button = self.buttons.button(QDialogButtonBox.StandardButton.Save)
        self.save_button.setToolTip("Save the persona (Ctrl+S)")
        # Enter belongs to the Markdown text; saving is Ctrl+S or the button.
        self.save_button.setAutoDefault(False)
        self.buttons.button(QDialogButtonBox.StandardButton.Close).setAutoDefault(False)
        QShortcut(QKeySequence.StandardKey.Save, self, activated=self.save)

        column = QVBoxLayout(self)
        column.addWidget(self.notice)
        column.addWidget(where)
        column.addWidget(self.editor, 1)
        column.addWidget(self.buttons)
        self.set_running(running)
        self._update_buttons()
        self.editor.source.setFocus()

    @property
    def is_modified(self) -> bool:
        return self.editor.text() != self._saved_body

    def set_running(self, running: bool) -> None:
        self.notice.setVisible(running)

    def save(self) -> None:
        if not self.is_modified:
            return
        body = self.editor.text()
        self.save_button.setEnabled(False)
        self._client.call(
            self._runtime.agents.update_persona(self.agent_id, body),
            on_done=lambda _none: self._saved(body),
            on_error=self._failed,
        )

    def _saved(self, body: str) -> None:
        self._saved_body = body
        self._update_buttons()
        self.saved.emit(self.agent_id)
        if self._close_when_saved and not self.is_modified:
            self.close()

    def _failed(self, error: BaseException) -> None:
        self._close_when_saved = False
        self._update_buttons()
        show_error(self, "Persona not saved", error)

    def _update_buttons(self) -> None:
        modified = self.is_modified
        self.save_button.setEnabled(modified)
        self.setWindowModified(modified)

    def closeEvent(self, event: QCloseEvent) -> None:
        if not self.is_modified:
            event.accept()
            return
        answer = QMessageBox.question(
            self,
            "Unsaved persona",
            "Save the changes to this persona before closing?",
            QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Save,
        )
        if answer == QMessageBox.StandardButton.Cancel:
            event.ignore()
            return
        if answer == QMessageBox.StandardButton.Save:
            event.ignore()
            self._close_when_saved = True
            self.save()
            return
        event.accept()

    def reject(self) -> None:
        self.close()  # Escape goes through the unsaved-changes question
