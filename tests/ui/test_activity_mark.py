"""ActivityMark: one activity() per burst of output, silence() once it has been quiet, activity again after."""

from __future__ import annotations

from PySide6.QtCore import QObject
from pytestqt.qtbot import QtBot

from idea.ui.terminal.activity_mark import ActivityMark


def test_a_burst_marks_once_and_output_after_the_quiet_marks_again(qtbot: QtBot) -> None:
    owner, said = QObject(), []
    mark = ActivityMark(owner, 50, lambda: said.append("activity"), lambda: said.append("silence"))
    mark.output_started()
    mark.output_stopped()
    mark.output_started()  # within the quiet: the same burst
    mark.output()
    assert said == ["activity"]
    qtbot.waitUntil(lambda: said == ["activity", "silence"], timeout=5_000)
    mark.output()
    assert said == ["activity", "silence", "activity"]

