"""Editing one permission set: a preset, the rules (capability, effect, what they apply to), the command
entries of a shell rule, and the fallback. Unknown keys of the rules survive an edit."""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableWidget,
    QVBoxLayout,
    QWidget,
)

from idea.domain.permissions.model import (
    MATCH_KINDS,
    Capability,
    CommandMatcher,
    CommandRule,
    Effect,
    PermissionRule,
    PermissionSet,
    command_problem,
    path_glob_problem,
)
from idea.domain.permissions.view import PRESETS, matching_preset, preset
from idea.ui.widgets.labels import label_for

CAPABILITY_LABELS = {
    Capability.READ: "Read files",
    Capability.WRITE: "Write files",
    Capability.DELETE: "Delete files",
    Capability.EXECUTE_BASH: "Run commands",
}
EFFECT_LABELS = {Effect.ALLOW: "Allow", Effect.ASK: "Ask", Effect.DENY: "Deny"}
RULE_DEFAULT_EFFECT = "(rule's effect)"
WHOLE_PROJECT_HINT = "whole project — or globs such as src/**, docs/*.md"


def _combo(items: dict, current: object, name: str) -> QComboBox:  # type: ignore[type-arg]
    """A choice among `items` (value: label) showing `current`; `name`: what a screen reader calls it."""
    combo = QComboBox()
    combo.setAccessibleName(name)
    for value, label in items.items():
        combo.addItem(label, value)
    combo.setCurrentIndex(max(0, combo.findData(current)))
    return combo


class RulesEditor(QWidget):
    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._rules: list[PermissionRule] = []
        self._extra: dict = {}  # type: ignore[type-arg]
        self._loading = False
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)

        presets = QHBoxLayout()
        self.preset = QComboBox()
        presets.addWidget(label_for("Preset:", self.preset))
        self.preset.addItem("Custom", None)
        for candidate in PRESETS:
            self.preset.addItem(candidate.name, candidate.key)
            self.preset.setItemData(self.preset.count() - 1, candidate.description, Qt.ItemDataRole.ToolTipRole)
        self.preset.activated.connect(self._preset_chosen)
        presets.addWidget(self.preset)
        self.preset_note = QLabel("")
        self.preset_note.setObjectName("Hint")
        self.preset_note.setWordWrap(True)
        presets.addWidget(self.preset_note, 1)
        column.addLayout(presets)

        self.table = QTableWidget(0, 3)
        self.table.setAccessibleName("Rules")
        self.table.setHorizontalHeaderLabels(["Capability", "Effect", "Applies to"])
        self.table.horizontalHeader().setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        self.table.verticalHeader().setVisible(False)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.itemSelectionChanged.connect(self._show_commands)
        self.table.setMinimumHeight(self.table.verticalHeader().defaultSectionSize() * 5 + 8)
        self.table.setColumnWidth(0, 150)
        self.table.setColumnWidth(1, 100)
        column.addWidget(self.table, 2)
        buttons = QHBoxLayout()
        self.add_rule = QPushButton("Add rule")
        self.add_rule.clicked.connect(self._add_rule)
        self.remove_rule = QPushButton("Remove rule")
        self.remove_rule.clicked.connect(self._remove_rule)
        buttons.addWidget(self.add_rule)
        buttons.addWidget(self.remove_rule)
        buttons.addStretch(1)
        self.fallback = _combo(EFFECT_LABELS, Effect.ASK, "Anything else")
        buttons.addWidget(label_for("Anything else:", self.fallback))
        self.fallback.currentIndexChanged.connect(self._edited)
        buttons.addWidget(self.fallback)
        column.addLayout(buttons)

        self.commands_label = QLabel("Command entries of the selected rule (none: the rule applies to every command)")
        column.addWidget(self.commands_label)
        self.commands = QTableWidget(0, 3)
        self.commands.setAccessibleName("Command entries")
        self.commands.setHorizontalHeaderLabels(["Match", "Command", "Effect"])
        self.commands.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.commands.verticalHeader().setVisible(False)
        self.commands.setMaximumHeight(self.commands.verticalHeader().defaultSectionSize() * 4 + 8)
        self.commands.setColumnWidth(0, 100)
        self.commands.setColumnWidth(2, 140)
        column.addWidget(self.commands, 1)
        command_buttons = QHBoxLayout()
        self.add_command = QPushButton("Add command")
        self.add_command.clicked.connect(self._add_command)
        self.remove_command = QPushButton("Remove command")
        self.remove_command.clicked.connect(self._remove_command)
        command_buttons.addWidget(self.add_command)
        command_buttons.addWidget(self.remove_command)
        command_buttons.addStretch(1)
        column.addLayout(command_buttons)
        self.problem = QLabel("")
        self.problem.setObjectName("ErrorText")
        self.problem.setStyleSheet("color: #d9534f;")
        self.problem.setWordWrap(True)
        column.addWidget(self.problem)
        self._show_commands()

    # -- the set --

    def set_permissions(self, permissions: PermissionSet | None) -> None:
        self._loading = True
        permissions = permissions or PermissionSet((), Effect.ASK)
        self._rules = list(permissions.rules)
        self._extra = dict(permissions.extra)
        self.fallback.setCurrentIndex(self.fallback.findData(permissions.fallback))
        self._rebuild()
        self._loading = False
        self._edited()

    def permissions(self) -> PermissionSet:
        fallback = Effect(self.fallback.currentData())  # Qt hands enum members back as plain strings
        return PermissionSet(tuple(self._rules), fallback, self._extra)

    def problems(self) -> list[str]:
        found = []
        for index, rule in enumerate(self._rules, start=1):
            for glob in rule.paths:
                problem = path_glob_problem(glob)
                if problem:
                    found.append(f"Rule {index}: {problem}")
            for entry in rule.commands:
                problem = command_problem(entry.matcher.value)
                if problem:
                    found.append(f"Rule {index}: {problem}")
        return found

    def _preset_chosen(self, index: int) -> None:
        key = self.preset.itemData(index)
        if key is not None:
            self.set_permissions(preset(key).permissions)

    def _edited(self) -> None:
        if self._loading:
            return
        found = self.problems()
        self.problem.setText("\n".join(found))
        chosen = matching_preset(self.permissions())
        self.preset.setCurrentIndex(self.preset.findData(chosen.key) if chosen else 0)
        self.preset_note.setText(chosen.description if chosen else "")
        self.changed.emit()

    # -- rules --

    def _rebuild(self) -> None:
        selected = self.table.currentRow()
        self.table.setRowCount(len(self._rules))
        for row, rule in enumerate(self._rules):
            capability = _combo(CAPABILITY_LABELS, rule.capability, f"Rule {row + 1}: capability")
            capability.currentIndexChanged.connect(lambda _i, r=row, c=capability: self._set_capability(r, c))
            self.table.setCellWidget(row, 0, capability)
            effect = _combo(EFFECT_LABELS, rule.effect, f"Rule {row + 1}: effect")
            effect.currentIndexChanged.connect(lambda _i, r=row, c=effect: self._set_effect(r, c))
            self.table.setCellWidget(row, 1, effect)
            self.table.setCellWidget(row, 2, self._applies_to(row, rule))
        if self._rules:
            self.table.selectRow(min(max(selected, 0), len(self._rules) - 1))
        self._show_commands()

    def _applies_to(self, row: int, rule: PermissionRule) -> QWidget:
        if rule.capability is Capability.EXECUTE_BASH:
            count = len(rule.commands)
            text = "every command" if not count else f"{count} command entr{'y' if count == 1 else 'ies'} (below)"
            label = QLabel(f"  {text}")
            return label
        edit = QLineEdit(", ".join(rule.paths))
        edit.setAccessibleName(f"Rule {row + 1}: applies to")
        edit.setPlaceholderText(WHOLE_PROJECT_HINT)
        edit.setToolTip("Project-relative globs separated by commas; ** crosses folders. Empty: the whole project.")
        edit.textEdited.connect(lambda text, r=row: self._set_paths(r, text))
        return edit

    def _set_capability(self, row: int, combo: QComboBox) -> None:
        capability = Capability(combo.currentData())
        rule = self._rules[row]
        self._rules[row] = replace(rule, capability=capability, paths=() if capability is Capability.EXECUTE_BASH
                                   else rule.paths, commands=rule.commands if capability is Capability.EXECUTE_BASH
                                   else ())
        self.table.setCellWidget(row, 2, self._applies_to(row, self._rules[row]))
        self._show_commands()
        self._edited()

    def _set_effect(self, row: int, combo: QComboBox) -> None:
        self._rules[row] = replace(self._rules[row], effect=Effect(combo.currentData()))
        self._edited()

    def _set_paths(self, row: int, text: str) -> None:
        globs = tuple(part.strip() for part in text.split(",") if part.strip())
        self._rules[row] = replace(self._rules[row], paths=globs)
        self._edited()

    def _add_rule(self) -> None:
        self._rules.append(PermissionRule(Capability.WRITE, Effect.DENY, ()))
        self._rebuild()
        self.table.selectRow(len(self._rules) - 1)
        self._edited()

    def _remove_rule(self) -> None:
        row = self.table.currentRow()
        if 0 <= row < len(self._rules):
            del self._rules[row]
            self._rebuild()
            self._edited()

    # -- command entries of the selected shell rule --

    def _selected_shell_rule(self) -> int | None:
        row = self.table.currentRow()
        if 0 <= row < len(self._rules) and self._rules[row].capability is Capability.EXECUTE_BASH:
            return row
        return None

    def _show_commands(self) -> None:
        row = self._selected_shell_rule()
        enabled = row is not None
        for widget in (self.commands_label, self.commands, self.add_command, self.remove_command):
            widget.setEnabled(enabled)
        entries = self._rules[row].commands if row is not None else ()
        self.commands.setRowCount(len(entries))
        effects = {None: RULE_DEFAULT_EFFECT, **EFFECT_LABELS}
        for index, entry in enumerate(entries):
            kind = _combo({kind: kind for kind in MATCH_KINDS}, entry.matcher.kind, f"Command entry {index + 1}: match")
            kind.currentIndexChanged.connect(lambda _i, i=index: self._set_command(i))
            self.commands.setCellWidget(index, 0, kind)
            value = QLineEdit(entry.matcher.value)
            value.setAccessibleName(f"Command entry {index + 1}: command")
            value.textEdited.connect(lambda _t, i=index: self._set_command(i))
            self.commands.setCellWidget(index, 1, value)
            effect = _combo(effects, entry.effect, f"Command entry {index + 1}: effect")
            effect.currentIndexChanged.connect(lambda _i, i=index: self._set_command(i))
            self.commands.setCellWidget(index, 2, effect)

    def _set_command(self, index: int) -> None:
        row = self._selected_shell_rule()
        if row is None:
            return
        kind = self.commands.cellWidget(index, 0).currentData()  # type: ignore[attr-defined]
        value = self.commands.cellWidget(index, 1).text()  # type: ignore[attr-defined]
        chosen = self.commands.cellWidget(index, 2).currentData()  # type: ignore[attr-defined]
        effect = Effect(chosen) if chosen is not None else None
        entries = list(self._rules[row].commands)
        entries[index] = replace(entries[index], matcher=CommandMatcher(kind, value), effect=effect)
        self._rules[row] = replace(self._rules[row], commands=tuple(entries))
        self._edited()

    def _add_command(self) -> None:
        row = self._selected_shell_rule()
        if row is None:
            return
        entry = CommandRule(CommandMatcher.prefix(""), Effect.DENY)
        self._rules[row] = replace(self._rules[row], commands=(*self._rules[row].commands, entry))
        self.table.setCellWidget(row, 2, self._applies_to(row, self._rules[row]))
        self._show_commands()
        self._edited()

    def _remove_command(self) -> None:
        row = self._selected_shell_rule()
        index = self.commands.currentRow()
        if row is None or not 0 <= index < len(self._rules[row].commands):
            return
        entries = list(self._rules[row].commands)
        del entries[index]
        self._rules[row] = replace(self._rules[row], commands=tuple(entries))
        self.table.setCellWidget(row, 2, self._applies_to(row, self._rules[row]))
        self._show_commands()
        self._edited()
