"""Two IdeA processes on one project (issue 16): the second is refused clearly — whether it shares the first
one's user-data and runtime folders (the socket answers) or not (the folder lock holds) — and writes
nothing into the project, so no file is corrupted."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from idea.infrastructure.mcp.endpoint import ALREADY_OPEN, ENDPOINT_DIR
from tests.ui.gui_support import complete_first_run

START_TIMEOUT_S = 90.0


def idea_env(data_dir: Path, runtime: Path, home: Path) -> dict[str, str]:
    return {
        **os.environ,
        "IDEA_DATA_DIR": str(data_dir),
        "XDG_RUNTIME_DIR": str(runtime),
        "HOME": str(home),
        "QT_QPA_PLATFORM": "offscreen",
    }


def project_files(project: Path) -> dict[str, bytes]:
    ideai = project / ".ideai"
    return {
        str(path.relative_to(ideai)): path.read_bytes()
        for path in sorted(ideai.rglob("*"))
        if path.is_file() and not path.name.endswith(".tmp")
    }


@pytest.mark.parametrize("shared", [True, False], ids=["same-data-and-runtime", "other-data-and-runtime"])
def test_a_second_process_on_the_same_project_is_refused_and_writes_nothing(tmp_path: Path, shared: bool) -> None:
    project, home = tmp_path / "project", tmp_path / "home"
    project.mkdir()
    home.mkdir()
    runtimes = [Path(tempfile.mkdtemp(prefix="idea-2p-", dir="/tmp")) for _ in range(2)]
    data_dirs = [tmp_path / "data-a", tmp_path / "data-b"]
    for data_dir in data_dirs:
        complete_first_run(data_dir)
    second = 0 if shared else 1
    first = subprocess.Popen(
        [sys.executable, "-m", "idea", str(project)],
        env=idea_env(data_dirs[0], runtimes[0], home),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while not list((runtimes[0] / ENDPOINT_DIR).glob("*.sock")):
            assert first.poll() is None and time.monotonic() < deadline, "the first IdeA did not open the project"
            time.sleep(0.1)
        time.sleep(1.0)  # let the first one finish writing what an opening writes
        before = project_files(project)

        refused = subprocess.run(
            [sys.executable, "-m", "idea", str(project), "--quit-after", "3000"],
            env=idea_env(data_dirs[second], runtimes[second], home),
            capture_output=True,
            text=True,
            timeout=START_TIMEOUT_S,
        )

        assert refused.returncode == 0, refused.stderr
        log = (data_dirs[second] / "logs" / "idea.log").read_text(encoding="utf-8")
        assert f"[project] not opened {project}: {ALREADY_OPEN}" in log
        assert project_files(project) == before  # the second process wrote nothing into the project
        assert first.poll() is None  # and the first one runs on
    finally:
        first.send_signal(signal.SIGTERM)
        first.wait(60)
    for name, content in project_files(project).items():
        if name.endswith(".json"):
            json.loads(content)  # every file parses
    for runtime in runtimes:
        assert not list(runtime.glob(f"{ENDPOINT_DIR}/*.sock"))
        for path in sorted(runtime.rglob("*"), reverse=True):
            path.rmdir()
        runtime.rmdir()
