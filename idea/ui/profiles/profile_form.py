"""The form of one AI CLI profile: every common field, grouped, turned into the profile's JSON and back.

The form edits a JSON dictionary (the profiles.json form), not the model: a draft with an empty command is
still something the user is typing, and keys the form does not show (rate-limit pattern, liveness,
projector, hooks, unknown keys) pass through untouched. Fields left at their default stay absent, so a
profile written by the original IdeA keeps its keys.
"""

from __future__ import annotations

import copy
import shlex
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLineEdit,
    QPlainTextEdit,
    QSpinBox,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from idea.application.agents.profile_descriptions import escape_sequence, unescape_sequence
from idea.domain.profile import (
    DEFAULT_COLD_START_MAX_MS,
    DEFAULT_CONTEXT_TARGET,
    DEFAULT_CWD_TEMPLATE,
    DEFAULT_NEWLINE_SEQUENCE,
    DEFAULT_SUBMIT_DELAY_MS,
    DEFAULT_SUBMIT_SEQUENCE,
)
from idea.ui.theme import monospace_font
from idea.ui.widgets.labels import HintLabel

INJECTION_STRATEGIES = (
    ("conventionFile", "Convention file in the run dir"),
    ("flag", "File passed by a flag"),
    ("stdin", "File announced in a first message"),
    ("env", "File path in an environment variable"),
)
MCP_STRATEGIES = (
    (None, "None — file protocol"),
    ("configFile", "JSON declaration file (.mcp.json)"),
    ("tomlConfigHome", "TOML config home (Codex)"),
    ("flag", "Declaration passed by a flag"),
    ("env", "Declaration path in an environment variable"),
)
CLI_FAMILIES = ((None, "Other"), ("claude", "Claude"), ("codex", "Codex"))
# Keys the form writes; everything else in the profile's JSON is carried over as it was.
FORM_KEYS = (
    "name", "command", "args", "contextInjection", "detect", "cwdTemplate", "session", "structuredAdapter",
    "mcp", "promptReadyPattern", "submitSequence", "submitDelayMs", "env", "newlineSequence",
    "blockingPrompts", "coldStartMaxMs",
)
DEFAULTS: dict[str, Any] = {
    "args": [],
    "cwdTemplate": DEFAULT_CWD_TEMPLATE,
    "submitSequence": DEFAULT_SUBMIT_SEQUENCE,
    "submitDelayMs": DEFAULT_SUBMIT_DELAY_MS,
    "env": {},
    "newlineSequence": DEFAULT_NEWLINE_SEQUENCE,
    "blockingPrompts": [],
    "coldStartMaxMs": DEFAULT_COLD_START_MAX_MS,
}


class ProfileForm(QWidget):
    """`changed` follows every edit; `data()` raises ValueError with a sentence for text it cannot read."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._base: dict[str, Any] = {}
        self._loading = False

        self.name = QLineEdit()
        self.command = QLineEdit()
        self.command.setPlaceholderText("program name on PATH, or its full path")
        browse = QToolButton()
        browse.setText("…")
        browse.setToolTip("Choose the program")
        browse.clicked.connect(self._browse)
        command_row = QHBoxLayout()
        command_row.setContentsMargins(0, 0, 0, 0)
        command_row.addWidget(self.command, 1)
        command_row.addWidget(browse)
        self.args = QLineEdit()
        self.args.setPlaceholderText("fixed arguments, quoted like in a shell")
        self.cwd_template = QLineEdit()
        self.cwd_template.setPlaceholderText(DEFAULT_CWD_TEMPLATE)
        self.detect = QLineEdit()
        self.detect.setPlaceholderText("command --version")
        self.env = _lines_edit("KEY=VALUE, one per line; {agentRunDir} and {projectRoot} are replaced")

        self.injection = _combo(INJECTION_STRATEGIES)
        self.injection_target = QLineEdit()
        self.injection_flag = QLineEdit()
        self.injection_flag.setPlaceholderText("--read {path}")
        self.injection_var = QLineEdit()
        self.injection_var.setPlaceholderText("IDEA_CONTEXT")

        self.assign_flag = QLineEdit()
        self.assign_flag.setPlaceholderText("e.g. --session-id")
        self.resume_flag = QLineEdit()
        self.resume_flag.setPlaceholderText("e.g. --resume")
        self.resume_args = QLineEdit()
        self.resume_args.setPlaceholderText("e.g. resume {sessionId} (takes precedence over the flag)")

        self.family = _combo(CLI_FAMILIES)
        self.mcp = _combo(MCP_STRATEGIES)
        self.mcp_target = QLineEdit()
        self.mcp_home_env = QLineEdit()
        self.mcp_home_env.setPlaceholderText("CODEX_HOME")
        self.mcp_flag = QLineEdit()
        self.mcp_flag.setPlaceholderText("--mcp-config {path}")
        self.mcp_var = QLineEdit()
        self.mcp_var.setPlaceholderText("IDEA_MCP_SERVER")
        self.delegation = HintLabel()

        self.prompt_ready = QLineEdit()
        self.prompt_ready.setPlaceholderText("text seen when the CLI is ready (a hint only)")
        self.submit_sequence = QLineEdit()
        self.submit_sequence.setFont(monospace_font())
        self.submit_delay = _spin(0, 60_000, 50, " ms")
        self.newline_sequence = QLineEdit()
        self.newline_sequence.setFont(monospace_font())
        self.blocking_prompts = _lines_edit("one text per line: while shown, deliveries wait for you")
        self.cold_start = _spin(1_000, 3_600_000, 1_000, " ms")

        program = _Group("Program")
        program.form.addRow("Name", self.name)
        program.form.addRow("Command", command_row)
        program.form.addRow("Arguments", self.args)
        program.form.addRow("Working directory", self.cwd_template)
        program.form.addRow("Detect command", self.detect)
        program.form.addRow("Environment", self.env)
        self._context = _Group("Context injection")
        self._context.form.addRow("Strategy", self.injection)
        self._context.form.addRow("File name", self.injection_target)
        self._context.form.addRow("Flag", self.injection_flag)
        self._context.form.addRow("Variable", self.injection_var)
        sessions = _Group("Sessions (native resume)")
        sessions.form.addRow("Assign flag", self.assign_flag)
        sessions.form.addRow("Resume flag", self.resume_flag)
        sessions.form.addRow("Resume arguments", self.resume_args)
        self._delegation = _Group("Delegation (MCP)")
        self._delegation.form.addRow("CLI family", self.family)
        self._delegation.form.addRow("MCP declaration", self.mcp)
        self._delegation.form.addRow("File", self.mcp_target)
        self._delegation.form.addRow("Home variable", self.mcp_home_env)
        self._delegation.form.addRow("Flag", self.mcp_flag)
        self._delegation.form.addRow("Variable", self.mcp_var)
        self._delegation.form.addRow(self.delegation)
        terminal = _Group("Terminal input")
        terminal.form.addRow("Prompt-ready text", self.prompt_ready)
        terminal.form.addRow("Submit sequence", self.submit_sequence)
        terminal.form.addRow("Submit delay", self.submit_delay)
        terminal.form.addRow("Newline sequence", self.newline_sequence)
        terminal.form.addRow("Blocking prompts", self.blocking_prompts)
        terminal.form.addRow("Cold-start maximum", self.cold_start)

        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 8, 0)
        groups = (program, self._context, sessions, self._delegation, terminal)
        for group in groups:
            column.addWidget(group)
        column.addStretch(1)
        _align_labels(groups)

        for edit in (
            self.name, self.command, self.args, self.cwd_template, self.detect, self.injection_target,
            self.injection_flag, self.injection_var, self.assign_flag, self.resume_flag, self.resume_args,
            self.mcp_target, self.mcp_home_env, self.mcp_flag, self.mcp_var, self.prompt_ready,
            self.submit_sequence, self.newline_sequence,
        ):
            edit.textChanged.connect(self._edited)
        for lines in (self.env, self.blocking_prompts):
            lines.textChanged.connect(self._edited)
        for spin in (self.submit_delay, self.cold_start):
            spin.valueChanged.connect(self._edited)
        for combo in (self.injection, self.family, self.mcp):
            combo.currentIndexChanged.connect(self._edited)

    # -- JSON in --

    def load(self, data: dict[str, Any]) -> None:
        self._loading = True
        self._base = copy.deepcopy(data)
        self.name.setText(data.get("name", ""))
        self.command.setText(data.get("command", ""))
        self.args.setText(shlex.join(data.get("args", [])))
        self.cwd_template.setText(data.get("cwdTemplate", DEFAULT_CWD_TEMPLATE))
        self.detect.setText(data.get("detect") or "")
        self.env.setPlainText("\n".join(f"{key}={value}" for key, value in data.get("env", {}).items()))
        injection = data.get("contextInjection") or {"strategy": "conventionFile", "target": ""}
        _select(self.injection, injection.get("strategy"))
        self.injection_target.setText(injection.get("target", ""))
        self.injection_flag.setText(injection.get("flag", ""))
        self.injection_var.setText(injection.get("var", ""))
        session = data.get("session") or {}
        self.assign_flag.setText(session.get("assignFlag") or "")
        self.resume_flag.setText(session.get("resumeFlag") or "")
        self.resume_args.setText(shlex.join(session.get("resumeArgs") or []))
        _select(self.family, data.get("structuredAdapter"))
        config = (data.get("mcp") or {}).get("config") or {}
        _select(self.mcp, config.get("strategy"))
        self.mcp_target.setText(config.get("target", ""))
        self.mcp_home_env.setText(config.get("home_env", ""))
        self.mcp_flag.setText(config.get("flag", ""))
        self.mcp_var.setText(config.get("var", ""))
        self.prompt_ready.setText(data.get("promptReadyPattern") or "")
        self.submit_sequence.setText(escape_sequence(data.get("submitSequence", DEFAULT_SUBMIT_SEQUENCE)))
        self.submit_delay.setValue(data.get("submitDelayMs", DEFAULT_SUBMIT_DELAY_MS))
        self.newline_sequence.setText(escape_sequence(data.get("newlineSequence", DEFAULT_NEWLINE_SEQUENCE)))
        self.blocking_prompts.setPlainText("\n".join(data.get("blockingPrompts", [])))
        self.cold_start.setValue(data.get("coldStartMaxMs", DEFAULT_COLD_START_MAX_MS))
        self._loading = False
        self._show_relevant_rows()

    # -- JSON out --

    def data(self) -> dict[str, Any]:
        data = copy.deepcopy(self._base)
        for key in FORM_KEYS:
            data.pop(key, None)
        values: dict[str, Any] = {
            "name": self.name.text().strip(),
            "command": self.command.text().strip(),
            "args": _split("Arguments", self.args.text()),
            "contextInjection": self._injection(),
            "detect": self.detect.text().strip() or None,
            "cwdTemplate": self.cwd_template.text().strip() or DEFAULT_CWD_TEMPLATE,
            "session": self._session(),
            "structuredAdapter": self.family.currentData(),
            "mcp": self._mcp(),
            "promptReadyPattern": self.prompt_ready.text() or None,
            "submitSequence": _unescaped("Submit sequence", self.submit_sequence.text()),
            "submitDelayMs": self.submit_delay.value(),
            "env": _env_lines(self.env.toPlainText()),
            "newlineSequence": _unescaped("Newline sequence", self.newline_sequence.text()),
            "blockingPrompts": [line for line in self.blocking_prompts.toPlainText().splitlines() if line.strip()],
            "coldStartMaxMs": self.cold_start.value(),
        }
        ordered: dict[str, Any] = {"id": data.pop("id")} if "id" in data else {}
        for key in FORM_KEYS:
            value = values[key]
            if value is None:
                continue
            if key in DEFAULTS and value == DEFAULTS[key] and key not in self._base:
                continue  # a default the profile never spelled out stays implicit
            ordered[key] = value
        ordered.update(data)
        return ordered

    def _injection(self) -> dict[str, Any]:
        strategy = self.injection.currentData()
        injection: dict[str, Any] = {"strategy": strategy}
        if strategy == "flag":
            injection["flag"] = self.injection_flag.text().strip()
        if strategy == "env":
            injection["var"] = self.injection_var.text().strip()
        target = self.injection_target.text().strip()
        if target or strategy == "conventionFile":
            injection["target"] = target
        return injection

    def _session(self) -> dict[str, Any] | None:
        session: dict[str, Any] = {}
        if self.assign_flag.text().strip():
            session["assignFlag"] = self.assign_flag.text().strip()
        if self.resume_flag.text().strip():
            session["resumeFlag"] = self.resume_flag.text().strip()
        resume_args = _split("Resume arguments", self.resume_args.text())
        if resume_args:
            session["resumeArgs"] = resume_args
        return session or None

    def _mcp(self) -> dict[str, Any] | None:
        strategy = self.mcp.currentData()
        if strategy is None:
            return None
        config: dict[str, Any] = {"strategy": strategy}
        if strategy in ("configFile", "tomlConfigHome"):
            config["target"] = self.mcp_target.text().strip()
        if strategy == "tomlConfigHome":
            config["home_env"] = self.mcp_home_env.text().strip()
        if strategy == "flag":
            config["flag"] = self.mcp_flag.text().strip()
        if strategy == "env":
            config["var"] = self.mcp_var.text().strip()
        mcp: dict[str, Any] = {"config": config}
        transport = (self._base.get("mcp") or {}).get("transport")
        if transport is not None:
            mcp["transport"] = transport
        return mcp

    # -- presentation --

    def set_delegation_text(self, text: str, *, error: bool) -> None:
        if error:
            self.delegation.show_error(text)
        else:
            self.delegation.show_hint(text)

    def _edited(self) -> None:
        if self._loading:
            return
        self._show_relevant_rows()
        self.changed.emit()

    def _show_relevant_rows(self) -> None:
        # An empty detect command runs "<command> --version": say so with the real command.
        self.detect.setPlaceholderText(f"{self.command.text().strip() or 'command'} --version")
        injection = self.injection.currentData()
        form = self._context.form
        form.setRowVisible(self.injection_flag, injection == "flag")
        form.setRowVisible(self.injection_var, injection == "env")
        self.injection_target.setPlaceholderText("CLAUDE.md" if injection == "conventionFile" else DEFAULT_CONTEXT_TARGET)
        mcp = self.mcp.currentData()
        form = self._delegation.form
        form.setRowVisible(self.mcp_target, mcp in ("configFile", "tomlConfigHome"))
        form.setRowVisible(self.mcp_home_env, mcp == "tomlConfigHome")
        form.setRowVisible(self.mcp_flag, mcp == "flag")
        form.setRowVisible(self.mcp_var, mcp == "env")
        self.mcp_target.setPlaceholderText(".codex/config.toml" if mcp == "tomlConfigHome" else ".mcp.json")

    def _browse(self) -> None:
        path, _filter = QFileDialog.getOpenFileName(self, "Choose the CLI program", self.command.text())
        if path:
            self.command.setText(path)


class _Group(QGroupBox):
    def __init__(self, title: str) -> None:
        super().__init__(title)
        self.form = QFormLayout(self)
        self.form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)


def _align_labels(groups: tuple[_Group, ...]) -> None:
    """One label column across all groups, so the fields line up from top to bottom."""
    labels = [
        item.widget()
        for group in groups
        for row in range(group.form.rowCount())
        if (item := group.form.itemAt(row, QFormLayout.ItemRole.LabelRole)) is not None and item.widget()
    ]
    width = max(label.sizeHint().width() for label in labels)
    for label in labels:
        label.setMinimumWidth(width)


def _combo(choices: tuple[tuple[str | None, str], ...]) -> QComboBox:
    combo = QComboBox()
    for value, text in choices:
        combo.addItem(text, value)
    return combo


def _select(combo: QComboBox, value: str | None) -> None:
    index = combo.findData(value)
    combo.setCurrentIndex(max(index, 0))


def _spin(minimum: int, maximum: int, step: int, suffix: str) -> QSpinBox:
    spin = QSpinBox()
    spin.setRange(minimum, maximum)
    spin.setSingleStep(step)
    spin.setSuffix(suffix)
    spin.setGroupSeparatorShown(True)
    return spin


def _lines_edit(placeholder: str) -> QPlainTextEdit:
    edit = QPlainTextEdit()
    edit.setPlaceholderText(placeholder)
    edit.setTabChangesFocus(True)
    edit.setFixedHeight(edit.fontMetrics().lineSpacing() * 4 + 12)
    return edit


def _split(what: str, text: str) -> list[str]:
    try:
        return shlex.split(text)
    except ValueError as exc:
        raise ValueError(f"{what}: {exc} (quote arguments like in a shell)") from None


def _unescaped(what: str, text: str) -> str:
    try:
        return unescape_sequence(text)
    except ValueError as exc:
        raise ValueError(f"{what}: {exc}") from None


def _env_lines(text: str) -> dict[str, str]:
    env: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        key, separator, value = line.partition("=")
        if not separator:
            raise ValueError(f"Environment line {number} needs the form KEY=VALUE")
        env[key.strip()] = value
    return env
