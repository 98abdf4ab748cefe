"""Help ▸ Diagnostics: the end of the log, followed as it grows and filtered by tag, project and text; the
last lines shown copied; a bug report saved off the GUI thread; the echo on standard error as a setting."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest
from PySide6.QtGui import QGuiApplication

from idea.domain.diagnostics_log import parse_line, project_mark
from idea.infrastructure.bug_report import crash_report_name
from idea.ui.windows import window_manager
from idea.ui.windows.diagnostics_window import COPIED_LINES, DiagnosticsWindow
from tests.ui.accessibility import unnamed_controls
from tests.ui.gui_support import Gui
from tests.ui.test_knowledge_window import menu_action

ABOUT = [("IdeA", "9.9.9 (test)"), ("codex", "not found on PATH")]


def open_diagnostics(gui: Gui) -> DiagnosticsWindow:
    menu_action(gui, "&Help", "Diagnostics").trigger()
    [window] = [w for w in gui.windows[0].findChildren(DiagnosticsWindow) if w.isVisible()]
    return window


def shown_messages(window: DiagnosticsWindow) -> list[str]:
    return [line.split("  ", 1)[1] for line in window.text.toPlainText().splitlines()]


def test_the_log_is_shown_filtered_by_tag_project_and_text_and_followed(gui_factory, tmp_path: Path) -> None:
    gui: Gui = gui_factory()
    first, first_tab = gui.open_new_project(tmp_path, "first")
    second, second_tab = gui.open_new_project(tmp_path, "second")
    log = gui.session.app.diagnostics
    window = open_diagnostics(gui)
    assert unnamed_controls(window) == []
    assert menu_action(gui, "&Help", "Diagnostics") and open_diagnostics(gui) is window  # one window

    messages = shown_messages(window)
    assert messages[0] == "[startup] IdeA launched; diagnostics log armed"
    assert messages == [parse_line(line).message for line in log.recent_lines(10_000)]
    tags = [window.tag.itemData(index) for index in range(window.tag.count())]
    assert tags[0] is None and {"startup", "project", "mcp"} <= set(tags[1:])

    window.project.setCurrentIndex(window.project.findData(first_tab.project_id))
    about_first = shown_messages(window)
    assert any(message.startswith(f"[project] opened id={first_tab.project_id}") for message in about_first)
    assert any(message.startswith("[mcp] listening") for message in about_first)
    assert any(message.endswith(f" {project_mark(first_tab.project_id)}") for message in about_first)  # its services'
    assert not any(second_tab.project_id in message or str(second) in message for message in about_first)
    window.tag.setCurrentIndex(window.tag.findData("mcp"))
    assert shown_messages(window) and all(message.startswith("[mcp] ") for message in shown_messages(window))
    assert "match" in window.status.text()

    window.tag.setCurrentIndex(0)
    window.project.setCurrentIndex(0)
    window.find.setText("SOMETHING NEW")
    assert shown_messages(window) == []
    assert not window.copy_button.isEnabled()
    log.beacon("[test] something new happened")
    gui.qtbot.waitUntil(lambda: shown_messages(window) == ["[test] something new happened"])  # followed
    assert window.tag.findData("test") > 0  # its tag is offered as soon as it appears


def test_the_last_lines_shown_are_copied_as_the_log_has_them(gui_factory) -> None:
    gui: Gui = gui_factory()
    gui.restore([])
    log = gui.session.app.diagnostics
    for index in range(COPIED_LINES + 100):
        log.beacon(f"[flood] line {index}")
    window = open_diagnostics(gui)
    window.find.setText("line")

    window.copy_last_lines()

    copied = QGuiApplication.clipboard().text().splitlines()
    assert len(copied) == COPIED_LINES
    assert copied == log.recent_lines(COPIED_LINES)  # the raw lines, their times in epoch milliseconds
    assert copied[-1].endswith(f"[flood] line {COPIED_LINES + 99}")
    assert window.notice.text() == f"Copied the last {COPIED_LINES} lines shown"
    log.beacon("[flood] one more")
    window.refresh()
    assert window.notice.text() == f"Copied the last {COPIED_LINES} lines shown"  # the log moving on keeps it


def test_printing_on_standard_error_is_the_verbose_setting(gui_factory, isolated_data_dir: Path) -> None:
    gui: Gui = gui_factory()
    gui.restore([])
    log = gui.session.app.diagnostics
    window = open_diagnostics(gui)
    assert not window.echo.isChecked() and not log.echo

    window.echo.setChecked(True)

    assert log.echo and gui.session.app.preferences.settings.diagnostics_verbose
    assert json.loads((isolated_data_dir / "settings.json").read_text(encoding="utf-8"))["diagnosticsVerbose"] is True
    gui.close()
    restarted = gui_factory()
    assert restarted.session.app.diagnostics.echo  # a new start reads it back


def test_a_bug_report_is_saved_off_the_gui_thread_with_what_idea_runs_on(
    gui_factory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(window_manager, "about_rows", lambda: ABOUT)
    gui: Gui = gui_factory()
    gui.restore([])
    window = open_diagnostics(gui)
    destination = tmp_path / "reports" / "idea-bug-report.zip"
    crash = gui.session.app.diagnostics.path.parent / crash_report_name(1796330611000)
    crash.write_text("IdeA hit an unexpected error.\n")

    window.save_bug_report(destination)
    assert not window.report_button.isEnabled()  # once at a time
    gui.qtbot.waitUntil(window.report_button.isEnabled)

    assert window.notice.text() == f"Bug report saved: {destination}"
    with zipfile.ZipFile(destination) as archive:
        assert {"about.txt", "settings.json", "logs/idea.log", f"logs/{crash.name}"} <= set(archive.namelist())
        assert archive.read("about.txt").decode().splitlines() == ["IdeA   9.9.9 (test)", "codex  not found on PATH"]

    (tmp_path / "blocked").write_text("a file where the folder should be")
    window.save_bug_report(tmp_path / "blocked" / "report.zip")
    gui.qtbot.waitUntil(window.report_button.isEnabled)
    assert window.notice.text().startswith("The bug report was not saved: ")
