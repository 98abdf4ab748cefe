"""What the person is told at start-up never stops the start: broken files are said in the window's notice
area, not in a modal box; a start that fails shows the crash dialog with the reason and the kept report."""

from __future__ import annotations

import json
from pathlib import Path

from PySide6.QtWidgets import QApplication, QMessageBox

from idea.domain.errors import AppError, ErrorCode
from idea.ui.crash import CrashDialog, report_start_failure
from tests.ui.gui_support import Gui
from tests.ui.accessibility import unnamed_controls


def test_broken_user_data_files_are_told_in_the_notice_area_without_a_modal_box(
    qtbot, qapp, isolated_data_dir: Path, quiet_home: Path, tmp_path: Path  # noqa: ANN001
) -> None:
    data = isolated_data_dir
    (data / "settings.json").write_text(json.dumps({"version": 1, "firstRunCompleted": True}))
    (data / "profiles.json").write_text("{")
    (data / "projects.json").write_text("[")
    (data / "workspace.json").write_text("{]")
    gui = Gui(qtbot, qapp, data)
    try:
        gui.restore([])
        [window] = gui.windows
        notices = window.notices.messages
        for name in ("profiles.json", "projects.json", "workspace.json"):
            assert any(name in message and ".corrupt-" in message for message in notices), (name, notices)
        assert any("reference profiles" in message for message in notices)
        qtbot.wait(200)  # events relayed after the restore are in the notices too, never in a box
        assert QApplication.activeModalWidget() is None
        assert not [w for w in QApplication.topLevelWidgets() if isinstance(w, QMessageBox) and w.isVisible()]
        assert [p.id for p in gui.session.app.profiles.profiles()]  # the reference profiles, ready to use
    finally:
        gui.close()


def test_a_failed_start_shows_the_reason_and_where_the_report_is(qapp, tmp_path: Path, capsys) -> None:  # noqa: ANN001
    shown: list[CrashDialog] = []
    try:
        raise AppError(ErrorCode.INTERNAL, "The reference profiles are missing: /opt/idea/resources")
    except AppError as error:
        status = report_start_failure(error, tmp_path / "logs", interactive=True, show=shown.append)

    assert status == 1
    [report] = (tmp_path / "logs").glob("crash-*.log")
    assert "Traceback" in report.read_text()
    [dialog] = shown
    assert "The reference profiles are missing: /opt/idea/resources" in dialog.reason.text()
    assert str(report) in dialog.where.text()
    assert "AppError" in dialog.details.toPlainText() and not dialog.details.isVisibleTo(dialog)
    dialog.show()
    dialog.details.show()
    assert unnamed_controls(dialog) == []
    assert f"The full report was kept in {report}" in capsys.readouterr().err
    dialog.deleteLater()


def test_the_reason_reads_as_a_sentence_under_the_title(qapp, tmp_path: Path) -> None:  # noqa: ANN001
    shown: list[CrashDialog] = []
    error = AppError(ErrorCode.STORE, "its data folder /data cannot be written (Read-only file system)")
    report_start_failure(error, tmp_path / "logs", interactive=True, show=shown.append)
    [dialog] = shown
    assert dialog.reason.text().endswith("<br>Its data folder /data cannot be written (Read-only file system).")
    dialog.deleteLater()


PROJECT_ID = "00000000-0000-4000-8000-000000000001"


def remembered_project(tmp_path: Path, data: Path) -> Path:
    """A project folder, and user data as a previous run left it: the project known, its tab open in the one
    window."""
    project = tmp_path / "alpha"
    project.mkdir()
    (data / "settings.json").write_text(json.dumps({"version": 1, "firstRunCompleted": True}))
    (data / "profiles.json").write_text(json.dumps({"version": 1, "profiles": []}))
    (data / "projects.json").write_text(
        json.dumps({"version": 1, "projects": [{"id": PROJECT_ID, "name": "alpha", "root": str(project)}]})
    )
    (data / "workspace.json").write_text(
        json.dumps({"version": 1, "windows": [{"id": "w1", "tabs": [PROJECT_ID], "activeTab": PROJECT_ID}]})
    )
    return project


def test_a_project_both_restored_and_named_on_the_command_line_opens_once(
    qtbot, qapp, isolated_data_dir: Path, quiet_home: Path, tmp_path: Path  # noqa: ANN001
) -> None:
    data = isolated_data_dir
    project = remembered_project(tmp_path, data)
    gui = Gui(qtbot, qapp, data)
    try:
        gui.restore([project])
        gui.tab(project)
        [window] = gui.windows
        gui.wait(lambda: len(gui.session.app.projects.open_runtimes()) == 1)
        qtbot.wait(300)
        assert window.tabs.count() == 1
        assert not any("another IdeA" in message for message in window.notices.messages), window.notices.messages
    finally:
        gui.close()


def test_quitting_before_the_restored_projects_have_opened_keeps_their_tabs(
    qtbot, qapp, isolated_data_dir: Path, quiet_home: Path, tmp_path: Path  # noqa: ANN001
) -> None:
    data = isolated_data_dir
    remembered_project(tmp_path, data)
    gui = Gui(qtbot, qapp, data)
    try:
        gui.restore([])
        gui.session.windows.quit_without_asking()  # the project's opening has not come back to the window yet
        saved = json.loads((data / "workspace.json").read_text())
        assert [window["tabs"] for window in saved["windows"]] == [[PROJECT_ID]]
    finally:
        gui.close()
