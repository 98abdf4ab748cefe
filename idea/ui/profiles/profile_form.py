"""The form of one AI CLI profile: every common field, grouped, and the usage-limit and liveness fields in a
group that opens on demand (`limits_section.py`). It shows a profile's JSON dictionary as `ProfileFields` and
gives the dictionary back as the fields say it (`profile_editing` does both translations, and keeps what the
form does not show)."""

from __future__ import annotations

import copy
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

from idea.application.agents.limit_patterns import LimitPatternCheck
from idea.application.agents.profile_editing import ProfileFields, fields_of, json_of
from idea.domain.profile import DEFAULT_CWD_TEMPLATE
from idea.domain.profile_parts import DEFAULT_CONTEXT_TARGET
from idea.ui.profiles.limits_section import LimitsSection
from idea.ui.theme import monospace_font
from idea.ui.widgets.labels import HintLabel, label_for

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
TEXT_FIELDS = (
    "name", "command", "args", "cwd_template", "detect", "injection_target", "injection_flag", "injection_var",
    "assign_flag", "resume_flag", "resume_args", "mcp_target", "mcp_home_env", "mcp_flag", "mcp_var",
    "prompt_ready", "submit_sequence", "newline_sequence",
)
LINES_FIELDS = ("env", "blocking_prompts")
CHOICE_FIELDS = ("injection", "family", "mcp")
NUMBER_FIELDS = {"submit_delay_ms": "submit_delay", "cold_start_max_ms": "cold_start"}


class ProfileForm(QWidget):
    """`changed` follows every edit; `data()` raises ValueError with a sentence for text it cannot read."""

    changed = Signal()

    def __init__(self, limit_patterns: LimitPatternCheck, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._base: dict[str, Any] = {}
        self._loading = False
        groups = (
            self._program_group(),
            self._context_group(),
            self._sessions_group(),
            self._delegation_group(),
            self._terminal_group(),
        )
        self.limits = LimitsSection(limit_patterns)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 8, 0)
        for group in groups:
            column.addWidget(group)
        column.addWidget(self.limits)
        column.addStretch(1)
        _align_labels((*groups, self.limits))
        self._follow_edits()

    # -- the groups of fields --

    def _program_group(self) -> _Group:
        self.name = QLineEdit()
        self.command = QLineEdit()
        self.command.setPlaceholderText("program name on PATH, or its full path")
        browse = QToolButton()
        browse.setText("…")
        browse.setToolTip("Choose the program")
        browse.setAccessibleName("Choose the program")
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
        program = _Group("Program")
        program.form.addRow("Name", self.name)
        program.form.addRow(label_for("Command", self.command), command_row)
        program.form.addRow("Arguments", self.args)
        program.form.addRow("Working directory", self.cwd_template)
        program.form.addRow("Detect command", self.detect)
        program.form.addRow("Environment", self.env)
        return program

    def _context_group(self) -> _Group:
        self.injection = _combo(INJECTION_STRATEGIES)
        self.injection_target = QLineEdit()
        self.injection_flag = QLineEdit()
        self.injection_flag.setPlaceholderText("--read {path}")
        self.injection_var = QLineEdit()
        self.injection_var.setPlaceholderText("IDEA_CONTEXT")
        self._context = _Group("Context injection")
        self._context.form.addRow("Strategy", self.injection)
        self._context.form.addRow("File name", self.injection_target)
        self._context.form.addRow("Flag", self.injection_flag)
        self._context.form.addRow("Variable", self.injection_var)
        return self._context

    def _sessions_group(self) -> _Group:
        self.assign_flag = QLineEdit()
        self.assign_flag.setPlaceholderText("e.g. --session-id")
        self.resume_flag = QLineEdit()
        self.resume_flag.setPlaceholderText("e.g. --resume")
        self.resume_args = QLineEdit()
        self.resume_args.setPlaceholderText("e.g. resume {sessionId} (takes precedence over the flag)")
        sessions = _Group("Sessions (native resume)")
        sessions.form.addRow("Assign flag", self.assign_flag)
        sessions.form.addRow("Resume flag", self.resume_flag)
        sessions.form.addRow("Resume arguments", self.resume_args)
        return sessions

    def _delegation_group(self) -> _Group:
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
        self._delegation = _Group("Delegation (MCP)")
        self._delegation.form.addRow("CLI family", self.family)
        self._delegation.form.addRow("MCP declaration", self.mcp)
        self._delegation.form.addRow("File", self.mcp_target)
        self._delegation.form.addRow("Home variable", self.mcp_home_env)
        self._delegation.form.addRow("Flag", self.mcp_flag)
        self._delegation.form.addRow("Variable", self.mcp_var)
        self._delegation.form.addRow(self.delegation)
        return self._delegation

    def _terminal_group(self) -> _Group:
        self.prompt_ready = QLineEdit()
        self.prompt_ready.setPlaceholderText("text seen when the CLI is ready (a hint only)")
        self.submit_sequence = QLineEdit()
        self.submit_sequence.setFont(monospace_font())
        self.submit_delay = _spin(0, 60_000, 50, " ms")
        self.newline_sequence = QLineEdit()
        self.newline_sequence.setFont(monospace_font())
        self.blocking_prompts = _lines_edit("one text per line: while shown, deliveries wait for you")
        self.cold_start = _spin(1_000, 3_600_000, 1_000, " ms")
        terminal = _Group("Terminal input")
        terminal.form.addRow("Prompt-ready text", self.prompt_ready)
        terminal.form.addRow("Submit sequence", self.submit_sequence)
        terminal.form.addRow("Submit delay", self.submit_delay)
        terminal.form.addRow("Newline sequence", self.newline_sequence)
        terminal.form.addRow("Blocking prompts", self.blocking_prompts)
        terminal.form.addRow("Cold-start maximum", self.cold_start)
        return terminal

    def _follow_edits(self) -> None:
        for name in TEXT_FIELDS:
            getattr(self, name).textChanged.connect(self._edited)
        for name in LINES_FIELDS:
            getattr(self, name).textChanged.connect(self._edited)
        for spin in NUMBER_FIELDS.values():
            getattr(self, spin).valueChanged.connect(self._edited)
        for name in CHOICE_FIELDS:
            getattr(self, name).currentIndexChanged.connect(self._edited)
        self.limits.changed.connect(self._edited)

    # -- JSON in and out --

    def load(self, data: dict[str, Any]) -> None:
        self._loading = True
        self._base = copy.deepcopy(data)
        shown = fields_of(data)
        for name in TEXT_FIELDS:
            getattr(self, name).setText(getattr(shown, name))
        for name in LINES_FIELDS:
            getattr(self, name).setPlainText(getattr(shown, name))
        for name, spin in NUMBER_FIELDS.items():
            getattr(self, spin).setValue(getattr(shown, name))
        for name in CHOICE_FIELDS:
            _select(getattr(self, name), getattr(shown, name))
        self.limits.load(shown.limits)
        self._loading = False
        self._show_relevant_rows()

    def data(self) -> dict[str, Any]:
        return json_of(self._base, self.fields())

    def fields(self) -> ProfileFields:
        values: dict[str, Any] = {name: getattr(self, name).text() for name in TEXT_FIELDS}
        values.update({name: getattr(self, name).toPlainText() for name in LINES_FIELDS})
        values.update({name: getattr(self, spin).value() for name, spin in NUMBER_FIELDS.items()})
        values.update({name: getattr(self, name).currentData() for name in CHOICE_FIELDS})
        return ProfileFields(**values, limits=self.limits.fields())

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
        target_example = "CLAUDE.md" if injection == "conventionFile" else DEFAULT_CONTEXT_TARGET
        self.injection_target.setPlaceholderText(target_example)
        mcp = self.mcp.currentData()
        form = self._delegation.form
        form.setRowVisible(self.mcp_target, mcp in ("configFile", "tomlConfigHome"))
        form.setRowVisible(self.mcp_home_env, mcp == "tomlConfigHome")
        form.setRowVisible(self.mcp_flag, mcp == "flag")
        form.setRowVisible(self.mcp_var, mcp == "env")
        self.mcp_target.setPlaceholderText(".codex/config.toml" if mcp == "tomlConfigHome" else ".mcp.json")
        self.limits.set_cli(self.family.currentData(), self._base.get("hooks"))

    def _browse(self) -> None:
        path, _filter = QFileDialog.getOpenFileName(self, "Choose the CLI program", self.command.text())
        if path:
            self.command.setText(path)


class _Group(QGroupBox):
    def __init__(self, title: str) -> None:
        super().__init__(title)
        self.form = QFormLayout(self)
        self.form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)


def _align_labels(groups: tuple[_Group | LimitsSection, ...]) -> None:
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


