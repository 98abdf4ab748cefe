"""The `idea` command as a user and the documentation tooling run it: black-box, in subprocesses."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest
from PySide6.QtGui import QImage

from idea import __version__
from tests.ui.gui_support import complete_first_run


def run_idea(args: list[str], data_dir: Path, home: Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "IDEA_DATA_DIR": str(data_dir), "HOME": str(home), "QT_QPA_PLATFORM": "offscreen"}
    return subprocess.run(
        [sys.executable, "-m", "idea", *args], env=env, capture_output=True, text=True, timeout=timeout
    )


def test_version(tmp_path: Path) -> None:
    done = run_idea(["--version"], tmp_path / "data", tmp_path)
    assert done.returncode == 0 and done.stdout.strip() == f"IdeA {__version__}"


def test_the_version_is_the_one_in_pyproject_read_from_the_installed_metadata() -> None:
    declared = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())["project"]["version"]
    assert __version__ == declared


def test_help_names_the_doctor_and_the_doctor_has_its_own_help(tmp_path: Path) -> None:
    done = run_idea(["--help"], tmp_path / "data", tmp_path)
    assert done.returncode == 0 and "idea doctor" in done.stdout
    doctor = run_idea(["doctor", "--help"], tmp_path / "data", tmp_path)
    assert doctor.returncode == 0 and doctor.stdout.startswith("usage: idea doctor\n\nWhat IdeA finds")
    assert max(len(line) for line in doctor.stdout.splitlines()) < 80
    wrong = run_idea(["doctor", "--fix"], tmp_path / "data", tmp_path)
    assert wrong.returncode == 2 and "unexpected --fix" in wrong.stderr and not wrong.stdout


def test_doctor_reports_what_it_finds(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake_codex = bin_dir / "codex"
    fake_codex.write_text("#!/bin/sh\necho codex-cli 9.9.9\n")
    fake_codex.chmod(0o755)
    env_path = f"{bin_dir}:/usr/bin:/bin"
    env = {**os.environ, "PATH": env_path, "IDEA_DATA_DIR": str(tmp_path / "data"), "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run([sys.executable, "-m", "idea", "doctor"], env=env, capture_output=True, text=True, timeout=60)

    assert done.returncode == 0, done.stderr
    report = dict(line.split(None, 1) if len(line.split(None, 1)) == 2 else (line, "") for line in done.stdout.splitlines())
    assert "offscreen" in done.stdout
    assert "QTermWidget (pyside6-qtermwidget 0.6.6.11.2)" in done.stdout
    assert str(tmp_path / "data") in done.stdout
    assert report["codex"].startswith("codex-cli 9.9.9")
    assert report["gemini"] == "not found on PATH (to install it: npm install -g @google/gemini-cli)"


def test_screenshot_saves_one_png_per_window_and_exits(tmp_path: Path) -> None:
    data_dir, home = tmp_path / "data", tmp_path / "home"
    home.mkdir()
    complete_first_run(data_dir)
    projects = []
    for name in ("alpha", "beta"):
        folder = tmp_path / name
        folder.mkdir()
        projects.append({"id": f"00000000-0000-4000-8000-00000000000{len(projects) + 1}", "name": name, "root": str(folder)})
    (data_dir / "projects.json").write_text(json.dumps({"version": 1, "projects": projects}))
    windows = [{"id": f"w{i}", "tabs": [p["id"]], "activeTab": p["id"]} for i, p in enumerate(projects)]
    (data_dir / "workspace.json").write_text(json.dumps({"version": 1, "windows": windows}))

    target = tmp_path / "shots" / "out.png"
    target.parent.mkdir()
    done = run_idea(["--screenshot", str(target), "--quit-after", "2000"], data_dir, home)

    assert done.returncode == 0, done.stderr
    second = target.with_name("out-2.png")
    assert done.stdout.splitlines() == [str(target), str(second)]
    for path in (target, second):
        image = QImage(str(path))
        assert not image.isNull() and image.width() > 400 and image.height() > 300
    workspace = json.loads((data_dir / "workspace.json").read_text())
    assert [w["tabs"] for w in workspace["windows"]] == [[p["id"]] for p in projects]


def test_an_unknown_project_path_is_reported_not_crashed_on(tmp_path: Path) -> None:
    data_dir, home = tmp_path / "data", tmp_path / "home"
    home.mkdir()
    complete_first_run(data_dir)
    done = run_idea([str(tmp_path / "missing"), "--quit-after", "1500"], data_dir, home)
    assert done.returncode == 0, done.stderr


def test_a_screenshot_target_that_cannot_be_used_is_refused_at_once_and_creates_nothing(tmp_path: Path) -> None:
    data_dir, home = tmp_path / "data", tmp_path / "home"
    home.mkdir()
    complete_first_run(data_dir)
    a_file = tmp_path / "notes.txt"
    a_file.write_text("x")
    for target, said in (
        (a_file / "out.png", f"{a_file} is a file, not a folder"),
        (a_file / "deeper" / "out.png", f"{a_file} is a file, not a folder"),
        (tmp_path / "missing" / "deeper" / "out.png", f"the folder {tmp_path / 'missing' / 'deeper'} does not exist"),
        (tmp_path, f"{tmp_path} is a folder"),
    ):
        done = run_idea(["--screenshot", str(target), "--quit-after", "60000"], data_dir, home, timeout=60)
        assert done.returncode == 2, (target, done.stderr)
        assert said in done.stderr and done.stdout == ""
    assert not (tmp_path / "missing").exists()


def test_a_screenshot_that_cannot_be_written_is_reported_and_idea_still_quits(tmp_path: Path) -> None:
    data_dir, home = tmp_path / "data", tmp_path / "home"
    home.mkdir()
    complete_first_run(data_dir)
    (data_dir / "workspace.json").write_text(json.dumps({"version": 1, "windows": [{"id": "w1"}, {"id": "w2"}]}))
    shots = tmp_path / "shots"
    shots.mkdir()
    (shots / "out-2.png").mkdir()  # the second window's file cannot be written

    done = run_idea(["--screenshot", str(shots / "out.png"), "--quit-after", "1500"], data_dir, home)

    assert done.returncode == 1
    assert done.stdout.splitlines() == [str(shots / "out.png")]  # only what was really saved
    assert f"could not save {shots / 'out-2.png'}" in done.stderr


def run_idea_with_read_only(folder: Path, args: list[str], data_dir: Path, home: Path) -> subprocess.CompletedProcess[str]:
    """`idea args` with `folder` mounted read-only in a private mount namespace (skipped where that cannot be)."""
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        pytest.skip("needs root and unshare(1) to mount a read-only folder in a private namespace")
    script = (
        f"mount --bind {folder} {folder} && mount -o remount,bind,ro {folder} && "
        f"exec {sys.executable} -m idea {' '.join(args)}"
    )
    env = {**os.environ, "IDEA_DATA_DIR": str(data_dir), "HOME": str(home), "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c", script], env=env,
                          capture_output=True, text=True, timeout=60)
    if "mount:" in done.stderr:
        pytest.skip(f"this machine refuses the mount: {done.stderr.strip()}")
    return done


def test_a_screenshot_into_a_read_only_folder_is_refused(tmp_path: Path) -> None:
    data_dir, home = tmp_path / "data", tmp_path / "home"
    home.mkdir()
    complete_first_run(data_dir)
    shots = tmp_path / "shots"
    shots.mkdir()
    done = run_idea_with_read_only(
        shots, ["--screenshot", str(shots / "out.png"), "--quit-after", "60000"], data_dir, home
    )
    assert done.returncode == 2 and f"the folder {shots} is not writable" in done.stderr


def test_a_data_folder_that_cannot_be_written_stops_the_start_with_what_to_do(tmp_path: Path) -> None:
    data_dir, home = tmp_path / "data", tmp_path / "home"
    home.mkdir()
    complete_first_run(data_dir)
    settings = (data_dir / "settings.json").read_bytes()
    done = run_idea_with_read_only(data_dir, ["--quit-after", "60000"], data_dir, home)
    assert done.returncode == 1
    assert done.stderr.startswith(
        f"IdeA could not start: its data folder {data_dir} cannot be written (Read-only file system). "
        "Make it writable or free some space, or set IDEA_DATA_DIR to a folder you can write."
    )
    assert (data_dir / "settings.json").read_bytes() == settings


def test_screenshot_captures_the_dialogs_over_the_windows(tmp_path: Path) -> None:
    data_dir, home = tmp_path / "data", tmp_path / "home"
    home.mkdir()  # no profile chosen yet: the first-run wizard opens over the window
    target = tmp_path / "out.png"

    done = run_idea(["--screenshot", str(target), "--quit-after", "2000"], data_dir, home)

    assert done.returncode == 0, done.stderr
    window, wizard = QImage(str(target)), QImage(str(tmp_path / "out-2.png"))
    assert done.stdout.splitlines() == [str(target), str(tmp_path / "out-2.png")]
    assert not window.isNull() and not wizard.isNull()
    assert wizard.size() != window.size()


def test_broken_user_data_files_never_hold_up_an_automated_start(tmp_path: Path) -> None:
    data_dir, home = tmp_path / "data", tmp_path / "home"
    home.mkdir()
    complete_first_run(data_dir)
    for name in ("projects.json", "workspace.json", "profiles.json", "settings.json"):
        (data_dir / name).write_text('{"version": 1, oops')
    project = tmp_path / "project"
    project.mkdir()

    done = run_idea([str(project), "--quit-after", "1500"], data_dir, home, timeout=90)

    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    for name in ("projects.json", "workspace.json", "profiles.json", "settings.json"):
        assert len(list(data_dir.glob(f"{name}.corrupt-*"))) == 1, name


def test_a_start_that_fails_says_why_keeps_the_report_and_exits(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    a_file = tmp_path / "not-a-folder"
    a_file.write_text("x")
    temp = tmp_path / "tmp"
    temp.mkdir()
    env = {**os.environ, "IDEA_DATA_DIR": str(a_file / "data"), "HOME": str(home), "QT_QPA_PLATFORM": "offscreen",
           "TMPDIR": str(temp)}

    done = subprocess.run([sys.executable, "-m", "idea", "--quit-after", "60000"], env=env, capture_output=True,
                          text=True, timeout=60)

    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    [report] = temp.glob("idea-crash-*.log")  # the data folder is unusable: the report goes to the temp folder
    assert done.stderr.startswith(
        f"IdeA could not start: its data folder {a_file / 'data'} cannot be written (Not a directory). Make it "
        f"writable or free some space, or set IDEA_DATA_DIR to a folder you can write. The full report was kept in "
        f"{report}."
    )
    assert "Traceback" in report.read_text() and "NotADirectoryError" in report.read_text()


def test_missing_resources_are_a_clear_start_failure_with_the_report_in_the_log_folder(tmp_path: Path) -> None:
    data_dir, home = tmp_path / "data", tmp_path / "home"
    home.mkdir()
    complete_first_run(data_dir)
    without_resources = (
        "import sys, pathlib, idea.infrastructure.resources as r; "
        "r.resources_dir = lambda: pathlib.Path(sys.argv[1]); "
        "from idea.__main__ import main; sys.exit(main(['--quit-after', '60000']))"
    )
    env = {**os.environ, "IDEA_DATA_DIR": str(data_dir), "HOME": str(home), "QT_QPA_PLATFORM": "offscreen"}

    done = subprocess.run([sys.executable, "-c", without_resources, str(tmp_path / "no-resources")], env=env,
                          capture_output=True, text=True, timeout=60)

    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    [report] = (data_dir / "logs").glob("crash-*.log")
    assert f"IdeA could not start: The reference profiles are missing: {tmp_path / 'no-resources'}" in done.stderr
    assert str(report) in done.stderr and "[crash] IdeA could not start" in (data_dir / "logs" / "idea.log").read_text()
def test_dump_screens_reads_back_what_a_shell_cell_shows(tmp_path: Path) -> None:
    data_dir, home, project = tmp_path / "data", tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    (home / ".bashrc").write_text('echo "dumped-$((6*7))"\n')
    complete_first_run(data_dir)
    target = tmp_path / "screens.txt"

    done = run_idea([str(project), "--quit-after", "4000", "--dump-screens", str(target)], data_dir, home)

    assert done.returncode == 0, done.stderr
    text = target.read_text(encoding="utf-8")
    assert text.startswith("--- terminal 1\n") and "dumped-42" in text
    assert "Unable to load translator" not in done.stderr  # the terminal widget's known noise


def test_qt_messages_go_through_but_the_terminal_widget_s_known_noise(tmp_path: Path) -> None:
    script = (
        "import sys\n"
        "from PySide6.QtCore import qWarning\n"
        "from PySide6.QtWidgets import QApplication\n"
        "from pyside6_qtermwidget import QTermWidget\n"
        "from idea.ui.qt_messages import drop_known_noise\n"
        "app = QApplication([])\n"
        "QTermWidget(0)\n"
        "drop_known_noise()\n"
        "drop_known_noise()\n"  # once per process, however often asked
        "QTermWidget(0)\n"
        "qWarning('a warning of its own')\n"
    )
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stderr.count('Unable to load translator "default"') == 1  # the widget made before the filter
    assert done.stderr.count("a warning of its own") == 1


def test_a_screen_dump_that_cannot_be_written_is_reported_and_idea_still_quits(tmp_path: Path) -> None:
    data_dir, home = tmp_path / "data", tmp_path / "home"
    home.mkdir()
    complete_first_run(data_dir)
    target = tmp_path / "missing" / "screens.txt"

    done = run_idea(["--quit-after", "1500", "--dump-screens", str(target)], data_dir, home)

    assert done.returncode == 1
    assert "idea: screen dump not saved:" in done.stderr and str(target) in done.stderr
    assert "Traceback" not in done.stderr


def test_quit_at_first_paint_prints_when_the_window_was_painted(tmp_path: Path) -> None:
    data_dir, home = tmp_path / "data", tmp_path / "home"
    home.mkdir()
    complete_first_run(data_dir)
    before = time.time()

    done = run_idea(["--quit-at-first-paint"], data_dir, home)

    assert done.returncode == 0, done.stderr
    [line] = [line for line in done.stdout.splitlines() if line.startswith("first-paint ")]
    assert before < float(line.split()[1]) < time.time()


def test_qt_platform_arguments_are_set_apart_from_ideas_own() -> None:
    from idea.ui.app import split_qt_arguments

    assert split_qt_arguments(["proj", "-platform", "offscreen", "--quit-after", "5"]) == (
        ["-platform", "offscreen"],
        ["proj", "--quit-after", "5"],
    )
    assert split_qt_arguments(["-platform=windows"]) == (["-platform", "windows"], [])
