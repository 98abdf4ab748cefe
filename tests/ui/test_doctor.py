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
