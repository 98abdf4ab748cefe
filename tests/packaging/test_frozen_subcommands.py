"""The subcommands agent CLIs start on every turn (`idea hook`, `idea mcp-server`) load no Qt from a built
IdeA: checked on the artifact itself, from the dynamic loader's own record of the files it loads.

Run by packaging/smoke/smoke_linux.py with `IDEA_SMOKE_COMMAND` set to the JSON argv prefix of the artifact;
skipped otherwise. (`tests/integration/test_bridge.py` checks the same import graph in the venv.)
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

COMMAND: list[str] = json.loads(os.environ.get("IDEA_SMOKE_COMMAND", "[]"))
pytestmark = pytest.mark.skipif(not COMMAND, reason="IDEA_SMOKE_COMMAND names no built IdeA")
QT_NAMES = ("libQt6", "PySide6", "shiboken6", "qtermwidget", "libicu")
ENDPOINT = "/nonexistent/idea-smoke.sock"


def loaded_by(args: list[str], tmp_path: Path, stdin: str = "") -> list[str]:
    """Every shared object the processes of `idea <args>` loaded (ld.so's LD_DEBUG=files record)."""
    record = tmp_path / "ld"
    env = {**os.environ, "LD_DEBUG": "files", "LD_DEBUG_OUTPUT": str(record), "QT_QPA_PLATFORM": "offscreen"}
    subprocess.run([*COMMAND, *args], input=stdin, env=env, capture_output=True, text=True, timeout=60)
    files = []
    for log in tmp_path.glob("ld.*"):
        for line in log.read_text(errors="replace").splitlines():
            if "file=" in line and ("needed by" in line or "dynamically loaded by" in line):
                files.append(line.split("file=", 1)[1].split()[0])
    assert files, "the dynamic loader recorded nothing: LD_DEBUG had no effect"
    return files


@pytest.mark.parametrize(
    "args",
    [
        ["hook", "--source", "claude", "--endpoint", ENDPOINT, "--project", "0" * 32, "--agent", "a", "--event", "Stop"],
        ["mcp-server", "--endpoint", ENDPOINT, "--project", "0" * 32, "--requester", "a"],
    ],
    ids=["hook", "mcp-server"],
)
def test_a_subcommand_loads_no_qt(args: list[str], tmp_path: Path) -> None:
    files = loaded_by(args, tmp_path, stdin="{}")
    assert [name for name in files if any(qt in name for qt in QT_NAMES)] == []


def test_the_gui_does_load_qt_so_the_audit_can_see_it(tmp_path: Path) -> None:
    files = loaded_by(["doctor"], tmp_path)  # doctor asks Qt for its platform in a child process
    assert any("libQt6Core" in name for name in files)
