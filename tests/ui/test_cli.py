"""The `idea` command as a user and the documentation tooling run it: black-box, in subprocesses."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import tomllib
from pathlib import Path

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
    assert "not found on PATH" in report["gemini"]


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
    done = run_idea(["--screenshot", str(target), "--quit-after", "2000"], data_dir, home)

    assert done.returncode == 0, done.stderr
    second = target.with_name("out-2.png")
    assert done.stdout.split() == [str(target), str(second)]
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


def test_quit_at_first_paint_prints_when_the_window_was_painted(tmp_path: Path) -> None:
    data_dir, home = tmp_path / "data", tmp_path / "home"
    home.mkdir()
    complete_first_run(data_dir)
    before = time.time()

    done = run_idea(["--quit-at-first-paint"], data_dir, home)

    assert done.returncode == 0, done.stderr
    [line] = [line for line in done.stdout.splitlines() if line.startswith("first-paint ")]
    assert before < float(line.split()[1]) < time.time()
