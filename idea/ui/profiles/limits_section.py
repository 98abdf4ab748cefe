"""The profile form's collapsible "Usage limits and liveness" group: `rateLimitPattern` (the pattern, checked as
it is typed, its reset capture group and time format, and a "Try it" box) and `liveness` (stall threshold and
turn timeout in seconds or minutes). What each field means, what is wrong with it and what the pattern finds
are decided by `profile_limit_fields` and `LimitPatternCheck`; this group only shows them."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLineEdit,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from idea.application.agents.limit_patterns import LimitPatternCheck, TrialLevel
from idea.application.agents.profile_limit_fields import (
    AUTOMATIC_FORMS,
    TIME_FORMATS,
    UNITS,
    LimitFields,
    pattern_of,
    stall_placeholder,
    turn_timeout_placeholder,
)
from idea.ui.theme import monospace_font
from idea.ui.widgets.labels import HintLabel, label_for, with_hint

TITLE = "Usage limits and liveness"
PATTERN_HINT = "Searched in the CLI's output and screen; a match means its usage limit is reached."
STALL_HINT = "A busy agent without a sign of work this long is marked stalled (advisory)."
TURN_HINT = "An ask to this agent ends after this long without activity."


class LimitsSection(QWidget):
    """`changed` follows every edit of the profile's fields (not of the "Try it" line)."""

    changed = Signal()

    def __init__(self, check: LimitPatternCheck, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._check = check
        self._loading = False
        self.toggle = QToolButton()
        self.toggle.setText(TITLE)
        self.toggle.setCheckable(True)
        self.toggle.setAutoRaise(True)
        self.toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.toggle.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.toggle.setToolTip("Level-2 usage-limit detection (rateLimitPattern) and liveness thresholds")
        self.toggle.setProperty("expandsSection", True)  # what the accessibility checks open to see its controls
        self.toggle.toggled.connect(self.set_expanded)
        self.body = QFrame()
        self.body.setFrameShape(QFrame.Shape.StyledPanel)
        self.form = QFormLayout(self.body)
        self.form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self._pattern_rows()
        self._liveness_rows()
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(2)
        column.addWidget(self.toggle)
        column.addWidget(self.body)
        self.set_expanded(False)
        for edit in (self.pattern, self.reset_capture, self.stall_after, self.turn_timeout):
            edit.textChanged.connect(self._edited)
        self.time_format.currentTextChanged.connect(self._edited)
        for unit in (self.stall_unit, self.turn_timeout_unit):
            unit.currentIndexChanged.connect(self._edited)
        self.trial_line.textChanged.connect(self._show_trial)

    def _pattern_rows(self) -> None:
        self.pattern = QLineEdit()
        self.pattern.setFont(monospace_font())
        self.pattern.setPlaceholderText("regular expression; empty: no detection from the screen")
        self.pattern_message = HintLabel(PATTERN_HINT)
        self.reset_capture = QLineEdit()
        self.reset_capture.setPlaceholderText("name or number of the group holding the reset time")
        self.capture_message = HintLabel()
        self.time_format = QComboBox()
        self.time_format.setEditable(True)
        self.time_format.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.time_format.addItem("")
        for value, example in TIME_FORMATS:
            self.time_format.addItem(value)
            self.time_format.setItemData(self.time_format.count() - 1, example, Qt.ItemDataRole.ToolTipRole)
        self.time_format.lineEdit().setPlaceholderText("automatic")
        self.time_format.setToolTip(f"Empty or auto: {AUTOMATIC_FORMS}. Else a strftime format such as %-I:%M%p")
        self.trial_line = QLineEdit()
        self.trial_line.setPlaceholderText("paste a line of the CLI's output")
        self.trial_result = HintLabel()
        form = self.form
        form.addRow(label_for("Limit pattern", self.pattern), with_hint(self.pattern, self.pattern_message))
        form.addRow(label_for("Reset capture", self.reset_capture), with_hint(self.reset_capture, self.capture_message))
        form.addRow("Time format", self.time_format)
        form.addRow(label_for("Try it", self.trial_line), with_hint(self.trial_line, self.trial_result))

    def _liveness_rows(self) -> None:
        self.stall_after, self.stall_unit, stall_row = _duration_row("Stall after", STALL_HINT)
        self.turn_timeout, self.turn_timeout_unit, turn_row = _duration_row("Turn timeout", TURN_HINT)
        self.turn_timeout.setPlaceholderText(turn_timeout_placeholder())
        self.form.addRow(label_for("Stall after", self.stall_after), stall_row)
        self.form.addRow(label_for("Turn timeout", self.turn_timeout), turn_row)

    # -- the fields --

    def load(self, fields: LimitFields) -> None:
        """Show `fields`; the group opens when the profile sets any of them, else stays as it was."""
        self._loading = True
        self.pattern.setText(fields.pattern)
        self.reset_capture.setText(fields.reset_capture)
        self.time_format.setEditText(fields.time_format)
        self.stall_after.setText(fields.stall_after)
        _select(self.stall_unit, fields.stall_unit)
        self.turn_timeout.setText(fields.turn_timeout)
        _select(self.turn_timeout_unit, fields.turn_timeout_unit)
        self._loading = False
        if fields != LimitFields(stall_unit=fields.stall_unit, turn_timeout_unit=fields.turn_timeout_unit):
            self.toggle.setChecked(True)
        self._show_checks()

    def fields(self) -> LimitFields:
        return LimitFields(
            pattern=self.pattern.text(),
            reset_capture=self.reset_capture.text(),
            time_format=self.time_format.currentText(),
            stall_after=self.stall_after.text(),
            stall_unit=self.stall_unit.currentData(),
            turn_timeout=self.turn_timeout.text(),
            turn_timeout_unit=self.turn_timeout_unit.currentData(),
        )

    def set_cli(self, structured_adapter: str | None, hooks: str | None) -> None:
        """What an empty "Stall after" means depends on whether IdeA sees this CLI working."""
        self.stall_after.setPlaceholderText(stall_placeholder(structured_adapter, hooks))

    # -- presentation --

    def set_expanded(self, expanded: bool) -> None:
        self.toggle.setChecked(expanded)
        self.toggle.setArrowType(Qt.ArrowType.DownArrow if expanded else Qt.ArrowType.RightArrow)
        self.body.setVisible(expanded)

    def _edited(self) -> None:
        if self._loading:
            return
        self._show_checks()
        self.changed.emit()

    def _show_checks(self) -> None:
        has_pattern = bool(self.pattern.text())
        self.reset_capture.setEnabled(has_pattern)
        self.time_format.setEnabled(has_pattern)
        verdict = self._check.verdict(pattern_of(self.fields()))
        _show(self.pattern_message, verdict.pattern_error)
        _show(self.capture_message, verdict.capture_error)
        self._show_trial()

    def _show_trial(self) -> None:
        trial = self._check.trial(pattern_of(self.fields()), self.trial_line.text())
        if trial.level is TrialLevel.OK:
            self.trial_result.show_ok(trial.text)
        elif trial.level is TrialLevel.PROBLEM:
            self.trial_result.show_error(trial.text)
        else:
            self.trial_result.show_hint(trial.text)


def _duration_row(name: str, hint: str) -> tuple[QLineEdit, QComboBox, QVBoxLayout]:
    number = QLineEdit()
    number.setMaximumWidth(number.fontMetrics().horizontalAdvance("0") * 40)
    unit = QComboBox()
    for value, text in UNITS:
        unit.addItem(text, value)
    unit.setAccessibleName(f"{name} unit")
    row = QHBoxLayout()
    row.setContentsMargins(0, 0, 0, 0)
    row.addWidget(number, 1)
    row.addWidget(unit)
    row.addStretch(0)
    column = QVBoxLayout()
    column.setSpacing(3)
    column.addLayout(row)
    column.addWidget(HintLabel(hint))
    return number, unit, column


def _select(combo: QComboBox, value: str) -> None:
    combo.setCurrentIndex(max(combo.findData(value), 0))


def _show(label: HintLabel, error: str) -> None:
    if error:
        label.show_error(error)
    else:
        label.show_hint()
