"""An agent's effective permissions as they will apply: enforcement status, the summary the agent reads,
the warnings, and a test box ("can Architect write docs/x.md?", "can it run git push?")."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QComboBox,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from idea.application.permissions.service import AgentView
from idea.domain.permissions.model import Capability, Effect
from idea.domain.permissions.sandbox import EnforcementLevel
from idea.domain.permissions.view import explain_bash, explain_file, normalize_query_path

STATUS_COLORS = {
    EnforcementLevel.ENFORCED: "#2e9d57",
    EnforcementLevel.DEGRADED: "#d89b26",
    EnforcementLevel.UNSUPPORTED: "#d9534f",
    EnforcementLevel.NOT_SET: "#888888",
}
QUERIES = (("write", Capability.WRITE), ("read", Capability.READ), ("delete", Capability.DELETE), ("run", None))
EFFECT_WORDS = {Effect.ALLOW: "Yes", Effect.ASK: "Only after asking", Effect.DENY: "No"}


def status_text(view: AgentView) -> str:
    policy = view.policy
    if policy.blocker:
        return f"<b style='color:#d9534f'>Will not start</b> — {policy.blocker}"
    status = policy.status
    color = STATUS_COLORS[status.level]
    detail = f" — {status.detail}" if status.detail and status.level is not EnforcementLevel.ENFORCED else ""
    if status.level is EnforcementLevel.NOT_SET:
        detail = " — no policy: the CLI asks you as usual"
    return f"Files: <b style='color:{color}'>{status.label()}</b>{detail}"


class EffectiveView(QGroupBox):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Effective permissions", parent)
        self._view: AgentView | None = None
        self._root = ""
        column = QVBoxLayout(self)
        self.status = QLabel("")
        self.status.setWordWrap(True)
        column.addWidget(self.status)
        self.summary = QPlainTextEdit()
        self.summary.setAccessibleName("What the agent is told")
        self.summary.setReadOnly(True)
        self.summary.setMinimumHeight(90)
        self.summary.setMaximumHeight(170)
        self.summary.setToolTip("What the agent reads in its context file under “Your permissions”.")
        column.addWidget(self.summary, 1)
        self.warnings = QLabel("")
        self.warnings.setWordWrap(True)
        self.warnings.setStyleSheet("color: #d89b26;")
        column.addWidget(self.warnings)

        box = QHBoxLayout()
        self.question = QLabel("Can it")
        box.addWidget(self.question)
        self.verb = QComboBox()
        self.question.setBuddy(self.verb)
        for word, capability in QUERIES:
            self.verb.addItem(word, capability)
        box.addWidget(self.verb)
        self.subject = QLineEdit()
        self.subject.setAccessibleName("Path or command")
        self.subject.setPlaceholderText("docs/x.md  or  git push")
        self.subject.returnPressed.connect(self.ask)
        box.addWidget(self.subject, 1)
        self.ask_button = QPushButton("Ask")
        self.ask_button.clicked.connect(self.ask)
        box.addWidget(self.ask_button)
        column.addLayout(box)
        self.answer = QLabel("")
        self.answer.setWordWrap(True)
        self.answer.setObjectName("TestBoxAnswer")
        column.addWidget(self.answer)

    def show_agent(self, view: AgentView | None, root: str) -> None:
        self._view = view
        self._root = root
        self.setEnabled(view is not None)
        self.answer.setText("")
        if view is None:
            self.setTitle("Effective permissions")
            self.status.setText("Select an agent to see what applies to it.")
            self.summary.setPlainText("")
            self.warnings.setText("")
            return
        self.setTitle(f"Effective permissions of {view.name} ({view.profile_name})")
        self.question.setText(f"Can {view.name}")
        self.status.setText(status_text(view))
        self.summary.setPlainText(view.policy.summary or "IdeA sets no permission policy; the CLI asks you as usual.")
        self.warnings.setText("\n".join(f"⚠ {warning}" for warning in view.policy.warnings))
        self.warnings.setVisible(bool(view.policy.warnings))

    def ask(self) -> None:
        view = self._view
        text = self.subject.text().strip()
        if view is None or not text:
            return
        chosen = self.verb.currentData()
        capability = Capability(chosen) if chosen is not None else None
        policy = view.policy
        if capability is None:
            answer = explain_bash(policy.effective, policy.support, text)
            question = f"Can {view.name} run `{text}`?"
        else:
            where = normalize_query_path(text, self._root)
            if where is None:
                self.answer.setText(f"`{text}` is outside the project: project rules do not cover it.")
                return
            rel, absolute = where
            answer = explain_file(policy.effective, policy.exec_plan, policy.status, capability, rel, absolute)
            question = f"Can {view.name} {self.verb.currentText()} `{rel or '.'}`?"
        self.answer.setText(
            f"<b>{question}</b> {EFFECT_WORDS[answer.effect]}.<br>{answer.policy}<br>{answer.enforcement}"
        )
