"""A form row holding a wrapped hint beside a check box is as tall as the hint needs at the row's width: one
line when it fits, more when the row narrows or the hint grows (a plain widget took three lines' height)."""

from __future__ import annotations

from PySide6.QtWidgets import QCheckBox, QDialog, QFormLayout, QHBoxLayout, QLineEdit
from pytestqt.qtbot import QtBot

from idea.ui.widgets.labels import FittedRow, HintLabel

SHORT = "Not available: the repository has no commit yet; commit once before creating worktrees."


def test_the_row_takes_the_height_its_hint_needs_at_its_width(qtbot: QtBot) -> None:
    dialog = QDialog()
    qtbot.addWidget(dialog)
    form = QFormLayout(dialog)
    form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
    form.addRow("Name", QLineEdit())
    row = FittedRow()
    line = QHBoxLayout(row)
    line.setContentsMargins(0, 0, 0, 0)
    box, hint = QCheckBox("Run in its own worktree"), HintLabel("Looking at the repository…")
    line.addWidget(box)
    line.addWidget(hint, 1)
    form.addRow("", row)
    dialog.resize(940, 300)
    dialog.show()
    qtbot.waitExposed(dialog)

    hint.show_hint(SHORT)
    one_line = hint.fontMetrics().lineSpacing()
    qtbot.waitUntil(lambda: hint.height() < 2 * one_line)  # one line, where a plain widget row took three
    assert row.height() == max(box.sizeHint().height(), hint.height())

    dialog.resize(420, 300)  # narrower: the hint wraps and the row grows to show all of it
    qtbot.waitUntil(lambda: hint.height() >= 3 * one_line)
    assert hint.height() >= hint.heightForWidth(hint.width())
