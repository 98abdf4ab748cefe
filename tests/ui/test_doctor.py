"""`idea doctor` fails, with the fix to apply, when what the GUI needs is missing (issue: a broken install
must not be reported as healthy)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from idea.infrastructure.resources import REQUIRED_RESOURCES, missing_resources, resources_dir
from idea.ui import doctor


def run_doctor(tmp_path: Path, extra_env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "IDEA_DATA_DIR": str(tmp_path / "data"), "QT_QPA_PLATFORM": "offscreen", **extra_env}
    return subprocess.run([sys.executable, "-m", "idea", "doctor"], env=env, capture_output=True, text=True,
                          timeout=90)


def test_a_missing_terminal_widget_fails_with_the_install_command(tmp_path: Path) -> None:
    # What a user had after `pip install` when the widget was an optional extra: the module is not there.
    shadow = tmp_path / "shadow" / "pyside6_qtermwidget"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("raise ModuleNotFoundError(\"No module named 'pyside6_qtermwidget'\")\n")

    done = run_doctor(tmp_path, {"PYTHONPATH": str(shadow.parent)})

    assert done.returncode == 1, done.stdout + done.stderr
    assert "QTermWidget unavailable (No module named 'pyside6_qtermwidget')" in done.stdout
    assert "IdeA cannot start: 1 problem." in done.stdout
    assert f"- Terminal backend: IdeA cannot draw terminal cells without it: {sys.executable} -m pip install " \
           "'pyside6-qtermwidget==0.6.6.11.2'" in done.stdout


def test_a_healthy_install_passes(tmp_path: Path) -> None:
    done = run_doctor(tmp_path, {})

    assert done.returncode == 0, done.stdout + done.stderr
    assert "cannot start" not in done.stdout
    assert f"Resources           {resources_dir()}" in done.stdout


def test_missing_resources_are_named_and_fail_the_check(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    partial = tmp_path / "resources"
    shutil.copytree(resources_dir(), partial)
    (partial / "prompts" / "orchestration_mcp.md").unlink()
    (partial / "templates" / "architect.md").unlink()
    monkeypatch.setattr(doctor, "resources_dir", lambda: partial)

    row = doctor._resources(doctor.detect())

    assert row.value == f"{partial}: missing prompts/orchestration_mcp.md, templates/architect.md"
    assert row.fix is not None and "incomplete" in row.fix and "--force-reinstall" in row.fix


def test_a_frozen_build_missing_files_is_told_to_download_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(doctor, "resources_dir", lambda: tmp_path)
    installation = doctor.Installation(doctor.Kind.APPIMAGE, ("/home/ada/IdeA.AppImage",), "/home/ada/IdeA.AppImage")

    row = doctor._resources(installation)

    assert "and" in row.value and "more" in row.value
    assert row.fix is not None and "download it again" in row.fix


def test_the_shipped_resources_are_complete() -> None:
    assert missing_resources() == []
    assert len(REQUIRED_RESOURCES) == len(set(REQUIRED_RESOURCES))


def test_every_problem_is_listed_after_the_report(capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(doctor, "report", lambda: [
        doctor.Row("IdeA", "0.1.0"),
        doctor.Row("Terminal backend", "QTermWidget unavailable (x)", fix="install it"),
        doctor.Row("Resources", "missing y", fix="reinstall"),
    ])

    assert doctor.run_doctor([]) == 1
    out = capsys.readouterr().out
    assert out.endswith("IdeA cannot start: 2 problems.\n- Terminal backend: install it\n- Resources: reinstall\n")


# --- Windows: the same checks over a fake platform ("win32"), with Windows fixes only ---

WINDOWS_SETUP = doctor.Installation(doctor.Kind.WINDOWS, (r"C:\Users\Ana\AppData\Local\Programs\IdeA\bin\idea.exe",))
LINUX_ONLY_ADVICE = ("apt", "sudo", "FUSE", "AppImage", ".deb", "system libraries", "DISPLAY", "QT_QPA_PLATFORM",
                     "IDEA_TERMINAL", "QTermWidget", "pip ")


def assert_windows_advice(fix: str | None) -> None:
    assert fix is not None and "setup.exe" in fix, fix
    assert not [word for word in LINUX_ONLY_ADVICE if word in fix], fix


def test_on_windows_a_missing_conpty_binding_is_fixed_by_running_the_setup_again(monkeypatch: pytest.MonkeyPatch) -> None:
    def import_module(name: str) -> object:
        if name == "winpty":
            raise ModuleNotFoundError("No module named 'winpty'")
        return object()

    monkeypatch.setattr(doctor.importlib, "import_module", import_module)

    row = doctor._terminal_backend(WINDOWS_SETUP, platform="win32")

    assert row.value == "native view unavailable (No module named 'winpty')"
    assert_windows_advice(row.fix)


def test_on_windows_the_native_view_over_conpty_is_the_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(doctor.importlib, "import_module", lambda name: object())
    monkeypatch.setenv("IDEA_TERMINAL", "qtermwidget")  # not an option there: QTermWidget is POSIX-only

    row = doctor._terminal_backend(WINDOWS_SETUP, platform="win32")

    assert row.fix is None and row.value.startswith("native view (libghostty-vt through evp ")
    assert row.value.endswith(f"over ConPTY (pywinpty {doctor._package_version('pywinpty')})")


def test_on_windows_a_qt_platform_that_fails_is_a_damaged_install_not_a_missing_display(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    failed = subprocess.CompletedProcess(
        [], 1, "", 'qt.qpa.plugin: Could not load the Qt platform plugin "windows" in "" even though it was found.\n'
    )
    monkeypatch.setattr(doctor.subprocess, "run", lambda *args, **kwargs: failed)
    for variable in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
        monkeypatch.delenv(variable, raising=False)

    row = doctor._qt_platform(WINDOWS_SETUP, platform="win32")
    linux = doctor._qt_platform(WINDOWS_SETUP, platform="linux")

    assert row.value.startswith('unavailable (qt.qpa.plugin: Could not load the Qt platform plugin "windows"')
    assert "qwindows.dll" in (row.fix or "")
    assert_windows_advice(row.fix)
    assert linux.fix is None and "no display" in linux.value  # the same failure reads otherwise on Linux


def test_on_windows_missing_resources_are_fixed_by_running_the_setup_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(doctor, "resources_dir", lambda: tmp_path)

    assert_windows_advice(doctor._resources(WINDOWS_SETUP).fix)


def test_on_windows_there_is_no_x11_display_nor_ptyprocess_to_report() -> None:
    assert doctor._display_rows("win32") == []
    assert [row.name for row in doctor._display_rows("linux")] == ["Display", "Headless terminals"]
