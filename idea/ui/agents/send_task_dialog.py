"""Send task: the person writes a task for one agent, which IdeA types into the agent's terminal after the
tickets already queued for it (a human ticket, spec 03 §11). A stopped agent is started first."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from idea.application.projects import ProjectRuntime
from idea.ui.core_client import CoreClient
from idea.ui.widgets.labels import HintLabel
from idea.ui.widgets.messages import error_text

SEND_KEYS = (Qt.Key.Key_Return, Qt.Key.Key_Enter)  # with Ctrl; Enter alone starts a new line


class SendTaskDialog(QDialog):
    """`sent(ticket_id)` once the core has queued the task; the dialog then closes."""

    sent = Signal(str)

    def __init__(
        self,
        client: CoreClient,
        runtime: ProjectRuntime,
        agent_name: str,
        *,
        running: bool,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._client = client
        self._runtime = runtime
        self._agent_name = agent_name
        self._sending = False
        self.setWindowTitle(f"Send a task to {agent_name}")
        self.setMinimumSize(460, 280)
        where = (
            f"Typed into {agent_name}'s terminal as is, after the tasks already queued for it."
            if running
            else f"{agent_name} is not running: it is started first, then the task is typed into its terminal."
        )
        intro = QLabel(where)
        intro.setWordWrap(True)
        self.text = QPlainTextEdit()
        self.text.setPlaceholderText(f"What should {agent_name} do?")
        self.text.setAccessibleName(f"Task for {agent_name}")
        self.text.setTabChangesFocus(True)
        self.message = HintLabel(
            "Ctrl+Enter sends. If it answers with idea_reply, the answer shows in the Agents panel."
        )
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.send_button = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.send_button.setText("Send")
        self.buttons.accepted.connect(self.send)
        self.buttons.rejected.connect(self.reject)
        self.text.installEventFilter(self)
        column = QVBoxLayout(self)
        column.addWidget(intro)
        column.addWidget(self.text, 1)
        column.addWidget(self.message)
        column.addWidget(self.buttons)
        self.text.textChanged.connect(self._update_send)
        self._update_send()
        self.text.setFocus()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if (
            watched is self.text
            and event.type() == QEvent.Type.KeyPress
            and isinstance(event, QKeyEvent)
            and event.key() in SEND_KEYS
            and event.modifiers() & Qt.KeyboardModifier.ControlModifier
        ):
            self.send()
            return True
        return super().eventFilter(watched, event)

    def _update_send(self) -> None:
        self.send_button.setEnabled(not self._sending and bool(self.text.toPlainText().strip()))

    def send(self) -> None:
        task = self.text.toPlainText()
        if self._sending or not task.strip():
            return
        self._sending = True
        self.text.setReadOnly(True)
        self.send_button.setText("Sending…")
        self._update_send()
        self._client.call(
            self._runtime.requests.send_task(self._agent_name, task), on_done=self._sent, on_error=self._failed
        )

    def reject(self) -> None:
        if not self._sending:  # the answer of the core would reach a closed dialog
            super().reject()

    def _sent(self, ticket_id: str) -> None:
        self._sending = False
        self.sent.emit(ticket_id)
        self.accept()

    def _failed(self, error: BaseException) -> None:
        self._sending = False
        self.text.setReadOnly(False)
        self.send_button.setText("Send")
        self.message.show_error(error_text(error))
        self._update_send()
