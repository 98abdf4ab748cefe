"""Stale sockets (issue 16): a terminated IdeA removes its projects' sockets like a quit does, and a start
sweeps away those a killed one left."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from idea.infrastructure.mcp import endpoint as endpoint_module
from idea.infrastructure.mcp.endpoint import ENDPOINT_DIR, sweep_dead_endpoints
from tests.fakes import RecordingDiagnostics
from tests.ui.gui_support import complete_first_run

START_TIMEOUT_S = 90.0
QUIT_TIMEOUT_S = 30.0


def sockets_in(runtime: Path) -> list[Path]:
    folder = runtime / ENDPOINT_DIR
    return sorted(folder.glob("*.sock")) if folder.exists() else []


def wait_for(condition, timeout: float, what: str):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not (value := condition()):
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)
    return value


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT], ids=lambda s: s.name)
def test_a_terminated_idea_quits_cleanly_and_leaves_no_socket(tmp_path: Path, signum: signal.Signals) -> None:
    runtime = Path(tempfile.mkdtemp(prefix="idea-q-", dir="/tmp"))  # short: a socket path fits in 108 bytes
    data_dir, home, project = tmp_path / "data", tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    complete_first_run(data_dir)
    env = {
        **os.environ,
        "IDEA_DATA_DIR": str(data_dir),
        "HOME": str(home),
        "XDG_RUNTIME_DIR": str(runtime),
        "QT_QPA_PLATFORM": "offscreen",
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "idea", str(project)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        wait_for(lambda: sockets_in(runtime), START_TIMEOUT_S, "the project's socket")
        process.send_signal(signum)
        status = process.wait(QUIT_TIMEOUT_S)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        process.stdout.close()  # type: ignore[union-attr]
        process.stderr.close()  # type: ignore[union-attr]

    assert status == 0
    assert sockets_in(runtime) == []
    log = (data_dir / "logs" / "idea.log").read_text(encoding="utf-8")
    assert "[mcp] closed" in log
    os.rmdir(runtime / ENDPOINT_DIR)
    os.rmdir(runtime)


def test_a_start_sweeps_the_sockets_killed_processes_left(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    runtime = Path(tempfile.mkdtemp(prefix="idea-q-", dir="/tmp"))
    folder = runtime / ENDPOINT_DIR
    folder.mkdir(mode=0o700)
    dead, live, fresh = folder / "dead.sock", folder / "live.sock", folder / "fresh.sock"
    corpse = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    corpse.bind(str(dead))  # bound, never listening: what a killed process leaves
    corpse.close()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(live))
    listener.listen()
    (folder / "notes.sock").write_text("not a socket")
    an_hour_ago = time.time() - 3600
    for path in (dead, live, folder / "notes.sock"):
        os.utime(path, (an_hour_ago, an_hour_ago), follow_symlinks=False)
    starting = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    starting.bind(str(fresh))  # just bound by a process that is about to listen: not judged yet
    diagnostics = RecordingDiagnostics()
    try:
        removed = sweep_dead_endpoints(diagnostics, {"XDG_RUNTIME_DIR": str(runtime)})

        assert removed == [str(dead)]
        assert sorted(p.name for p in folder.iterdir()) == ["fresh.sock", "live.sock", "notes.sock"]
        assert any("removed dead endpoints" in line for line in diagnostics.lines)
    finally:
        listener.close()
        starting.close()
        for path in folder.iterdir():
            path.unlink()
        folder.rmdir()
        runtime.rmdir()
    assert endpoint_module.SWEEP_MIN_AGE_S >= 5
