"""The grid size asked with two bounded spin boxes: nothing out of a layout's range can be chosen, the picture
and the count of cells follow the choice, and only an accepted choice is given."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from idea.domain import layout as lay
from idea.ui.windows.grid_size_dialog import GridSizeDialog
from tests.ui.accessibility import unnamed_controls


def test_the_choice_stays_in_range_is_pictured_and_is_given_only_when_accepted(qtbot: QtBot) -> None:
    dialog = GridSizeDialog("Make grid", "The cell becomes a grid.", (2, 2), True)
    qtbot.addWidget(dialog)
    dialog.show()
    assert unnamed_controls(dialog) == []
    chosen: list[tuple[int, int]] = []
    dialog.chosen.connect(lambda rows, cols: chosen.append((rows, cols)))

    dialog.rows_box.setValue(lay.MAX_COUNT + 5)
    dialog.cols_box.setValue(0)
    assert dialog.size() == (lay.MAX_COUNT, 1)
    assert (dialog.preview.rows, dialog.preview.cols) == (lay.MAX_COUNT, 1)
    assert dialog.summary.text() == f"{lay.MAX_COUNT} cells"
    dialog.cols_box.setValue(1)
    dialog.rows_box.setValue(1)
    assert dialog.summary.text() == "1 cell"

    dialog.reject()
    assert chosen == []
    dialog.rows_box.setValue(3)
    dialog.cols_box.setValue(4)
    dialog.accept()
    assert chosen == [(3, 4)]


def test_a_size_out_of_range_is_offered_within_it(qtbot: QtBot) -> None:
    dialog = GridSizeDialog("Grid size", "", (0, lay.MAX_COUNT + 1), False)
    qtbot.addWidget(dialog)
    assert dialog.size() == (1, lay.MAX_COUNT)
