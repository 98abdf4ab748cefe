"""Checks of the installed IdeA from inside Windows (run under Wine by smoke.sh with the installed
python.exe; never shipped). Each check prints `ok <name>` or `FAIL <name>: why`; the exit status is the
number of failures.

    python.exe smoke_checks.py <install root> <work folder>
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(sys.argv[1])
WORK = Path(sys.argv[2])
IDEA = ROOT / "bin" / "idea.exe"
PYTHON = ROOT / "python" / "python.exe"
PROJECT = "0f3c2a9e-6b1d-4c1e-9d0a-2f6f1f7b8c11"
AGENT = "5a1e3b0c-1d2e-4f50-8a9b-0c1d2e3f4a5b"
TOKEN = "t0k3n" * 8
failures: list[str] = []


def check(name: str) -> Callable[[Callable[[], None]], None]:
    def run(body: Callable[[], None]) -> None:
        started = time.monotonic()
        try:
            body()
        except Exception:
            failures.append(name)
            print(f"FAIL {name}: {traceback.format_exc().strip().splitlines()[-1]}", flush=True)
            traceback.print_exc()
            return
        print(f"ok   {name} ({(time.monotonic() - started) * 1000:.0f} ms)", flush=True)

    return run


class Gateway:
    """Just enough of the orchestration gateway for the transport: one agent, its token, and records."""

    def __init__(self) -> None:
        self.events: list[tuple[str, str, str]] = []
        self.connected: list[str] = []

    def authenticate(self, agent_id: str, token: str) -> bool:
        return agent_id == AGENT and token == TOKEN

    def bridge_connected(self, agent_id: str) -> None:
        self.connected.append(agent_id)

    def bridge_initialized(self, agent_id: str) -> None:
        pass

    def bridge_disconnected(self, agent_id: str) -> None:
        pass

    def hook_event(self, agent_id: str, source: str, event: str, payload: dict[str, object]) -> None:
        self.events.append((agent_id, source, event))

    async def dispatch(self, caller: object, command: object, source: object) -> object:
        raise NotImplementedError


class _Log:
    def beacon(self, message: str) -> None:
        print(f"     {message}", flush=True)


def _run_until_cancelled(main: Callable[[], object]) -> None:
    try:
        asyncio.run(main())  # type: ignore[arg-type]
    except asyncio.CancelledError:
        pass


@contextlib.contextmanager
def serving(door: Any) -> Iterator[asyncio.AbstractEventLoop]:
    """`door` (`start()` / `close()`) served on an event loop of its own thread, as IdeA's core loop serves
    it; yields that loop, and ends it (the door closed) when the block is left."""
    ready = threading.Event()
    loops: list[asyncio.AbstractEventLoop] = []

    async def serve() -> None:
        await door.start()
        loops.append(asyncio.get_running_loop())
        ready.set()
        try:
            await asyncio.Event().wait()
        finally:
            await door.close()

    thread = threading.Thread(target=lambda: _run_until_cancelled(serve), daemon=True)
    thread.start()
    assert ready.wait(30), f"{type(door).__name__} did not start"
    try:
        yield loops[0]
    finally:
        for task in asyncio.all_tasks(loops[0]):
            loops[0].call_soon_threadsafe(task.cancel)
        thread.join(10)


def run_subcommand(args: list[str], stdin: bytes, timeout: float = 30) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "IDEA_MCP_TOKEN": TOKEN}
    return subprocess.run([str(IDEA), *args], input=stdin, capture_output=True, timeout=timeout, env=env)


@check("every IdeA module imports on Windows, but for the POSIX-only ones")
def imports() -> None:
    import importlib
    import pkgutil

    import idea

    posix_only = {"pyside6_qtermwidget", "ptyprocess", "pwd", "fcntl", "termios", "pty"}
    broken, posix = [], []
    for module in pkgutil.walk_packages(idea.__path__, "idea."):
        try:
            importlib.import_module(module.name)
        except ModuleNotFoundError as error:
            (posix if error.name in posix_only else broken).append(f"{module.name} ({error})")
        except Exception as error:  # noqa: BLE001 - any other failure is a Windows bug
            broken.append(f"{module.name} ({type(error).__name__}: {error})")
    print(f"     POSIX-only here: {', '.join(sorted(posix)) or 'none'}", flush=True)
    assert not broken, broken


@check("every module imported so far was loaded from the payload's bytecode")
def bytecode() -> None:
    # The installed interpreter writes no bytecode (its ._pth file): a module without its .pyc in the payload
    # is compiled again at every start of IdeA.
    site = ROOT / "python" / "Lib" / "site-packages"
    loaded = [module.__spec__ for module in list(sys.modules.values()) if getattr(module, "__spec__", None)]
    sources = [
        spec for spec in loaded if spec.origin and spec.origin.endswith(".py") and Path(spec.origin).is_relative_to(site)
    ]
    uncompiled = sorted(spec.name for spec in sources if not (spec.cached and Path(spec.cached).is_file()))
    print(f"     {len(sources)} modules of site-packages loaded", flush=True)
    assert sys.dont_write_bytecode, "the installed interpreter writes bytecode: this check no longer applies"
    assert len(sources) > 100 and not uncompiled, uncompiled[:20]


@check("bridge fails clearly on a missing endpoint")
def missing_endpoint() -> None:
    endpoint = str(WORK / "nowhere" / "missing.endpoint")
    started = time.monotonic()
    done = run_subcommand(["mcp-server", "--endpoint", endpoint, "--project", PROJECT, "--requester", AGENT], b"")
    stderr = done.stderr.decode("utf-8", "replace")
    assert done.returncode == 1, (done.returncode, stderr)
    assert f"cannot reach IdeA at {endpoint}" in stderr and "is the project open in IdeA?" in stderr, stderr
    assert 4 <= time.monotonic() - started < 20


@check("MCP round trip over loopback TCP: server, bridge and hook relay")
def round_trip() -> None:
    from idea.infrastructure.mcp.server import McpSocketServer
    from idea.infrastructure.mcp.transport import mcp_loopback_endpoint

    endpoint = mcp_loopback_endpoint(PROJECT)
    gateway = Gateway()
    server = McpSocketServer(PROJECT, endpoint, gateway, version="smoke", diagnostics=_Log(), ask_safety_net_s=5)
    with serving(server) as loop:
        assert type(loop).__name__ == "ProactorEventLoop", type(loop).__name__
        fields = json.loads(Path(endpoint).read_text())
        assert fields["host"] == "127.0.0.1", fields
        messages = [
            {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "smoke", "version": "1"}}},
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        ]
        stdin = b"".join(json.dumps(m).encode() + b"\n" for m in messages)
        done = subprocess.Popen(
            [str(IDEA), "mcp-server", "--endpoint", endpoint, "--project", PROJECT, "--requester", AGENT],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env={**os.environ, "IDEA_MCP_TOKEN": TOKEN},
        )
        assert done.stdin is not None and done.stdout is not None
        done.stdin.write(stdin)
        done.stdin.flush()
        answers = [json.loads(done.stdout.readline()) for _ in range(2)]
        done.stdin.close()
        assert done.wait(30) == 0
        assert answers[0]["result"]["serverInfo"]["name"] == "idea", answers[0]
        assert any(tool["name"] == "idea_ask_agent" for tool in answers[1]["result"]["tools"]), answers[1]

        hook = run_subcommand(
            ["hook", "--source", "claude", "--endpoint", endpoint, "--project", PROJECT, "--agent", AGENT],
            json.dumps({"hook_event_name": "Stop", "session_id": "s"}).encode(),
        )
        assert hook.returncode == 0 and hook.stdout == b"", hook
        deadline = time.monotonic() + 10
        while not gateway.events and time.monotonic() < deadline:
            time.sleep(0.05)
        assert gateway.events == [(AGENT, "claude", "Stop")], gateway.events

        # The GUI launcher starts pythonw.exe (no console, no stdio) and returns at once; IdeA still runs.
        started = time.monotonic()
        subprocess.run(
            [str(ROOT / "IdeA.exe"), "hook", "--source", "codex", "--endpoint", endpoint, "--project", PROJECT,
             "--agent", AGENT, "--event", "launcher-check", "{}"],
            timeout=30, env={**os.environ, "IDEA_MCP_TOKEN": TOKEN}, check=True,
        )
        returned_s = time.monotonic() - started
        deadline = time.monotonic() + 20
        while len(gateway.events) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert gateway.events[1:] == [(AGENT, "codex", "launcher-check")], gateway.events
        print(f"     IdeA.exe returned in {returned_s * 1000:.0f} ms; pythonw relayed the event", flush=True)

        wrong = subprocess.run(
            [str(IDEA), "mcp-server", "--endpoint", endpoint, "--project", PROJECT, "--requester", AGENT,
             "--token", "wrong"], input=stdin, capture_output=True, timeout=30)
        assert wrong.returncode == 1 and b"PERMISSION_DENIED" in wrong.stderr, wrong.stderr
    assert not Path(endpoint).exists(), "the endpoint file outlived the server"


@check("Claude's HTTP hooks reach the project's hook door on the Proactor loop, the peer's owner checked")
def hook_door() -> None:
    import http.client

    from idea.infrastructure.hooks.http_door import HookHttpDoor, HookUrls, hook_url
    from idea.infrastructure.mcp.transport import LoopbackTransport

    gateway, urls = Gateway(), HookUrls()
    with serving(HookHttpDoor(PROJECT, gateway, _Log(), urls, admit=LoopbackTransport().admit)):
        prefix = urls.url_for(PROJECT)
        assert prefix is not None and prefix.startswith("http://127.0.0.1:"), prefix
        port = int(prefix.split(":")[2].split("/")[0])
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        path = "/" + hook_url(prefix, AGENT, "Stop").split("/", 3)[3]
        body = json.dumps({"hook_event_name": "Stop", "session_id": "s"}).encode()
        statuses = []
        for token in (TOKEN, "wrong"):
            connection.request("POST", path, body=body, headers={"Authorization": f"Bearer {token}"})
            answer = connection.getresponse()
            answer.read()
            statuses.append(answer.status)
        connection.close()
        assert statuses == [200, 401], statuses
        assert gateway.events == [(AGENT, "claude", "Stop")], gateway.events


@check("Job objects end a program and the process it started")
def job_objects() -> None:
    import psutil

    from idea.infrastructure.windows.job_objects import JobTrees

    parent = subprocess.Popen(
        [str(PYTHON), "-c",
         "import subprocess, sys, time; subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)']);"
         " time.sleep(120)"],
    )
    trees = JobTrees()
    assert trees.adopt(parent.pid), "AssignProcessToJobObject refused"
    deadline = time.monotonic() + 20
    while len(trees.members(parent.pid)) < 2 and time.monotonic() < deadline:
        time.sleep(0.1)
    members = trees.members(parent.pid)
    assert len(members) == 2, members
    asyncio.run(trees.end(parent.pid, 300))
    assert parent.wait(10) is not None
    time.sleep(0.5)
    assert not any(psutil.pid_exists(pid) and psutil.Process(pid).status() != "zombie" for pid in members), members


@check("msvcrt file lock: a second process waits, then reports the file")
def file_lock() -> None:
    from idea.infrastructure.file_lock import exclusive_lock

    path = WORK / "lock-test.jsonl"
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND)
    try:
        with exclusive_lock(fd, str(path)):
            os.write(fd, b'{"line": 1}\n')
            probe = subprocess.run(
                [str(PYTHON), "-c",
                 "import os, sys; from idea.infrastructure.file_lock import exclusive_lock\n"
                 f"fd = os.open({str(path)!r}, os.O_RDWR)\n"
                 "print(open(sys.argv[1], 'rb').read().decode().strip())\n"
                 "try:\n"
                 "    with exclusive_lock(fd, sys.argv[1], timeout_s=0.5): print('acquired')\n"
                 "except OSError as e: print(e.strerror)", str(path)],
                capture_output=True, text=True, timeout=60)
    finally:
        os.close(fd)
    lines = probe.stdout.strip().splitlines()
    assert lines[0] == '{"line": 1}', probe  # readers are never blocked by the lock
    assert "is locked by another program" in lines[-1], probe


@check("atomic replace waits for a program holding the target")
def replace_retry() -> None:
    from idea.infrastructure.fs import atomic_write_text

    target = WORK / "settings.json"
    target.write_text("old", encoding="utf-8")
    holder = open(target, "rb")  # CPython opens without FILE_SHARE_DELETE: a replace must wait

    def release() -> None:
        time.sleep(0.4)
        holder.close()

    threading.Thread(target=release).start()
    started = time.monotonic()
    atomic_write_text(target, "new")
    waited = time.monotonic() - started
    assert target.read_text(encoding="utf-8") == "new"
    print(f"     replaced after {waited * 1000:.0f} ms (Wine {'enforces' if waited > 0.3 else 'does not enforce'}"
          " the sharing mode)", flush=True)


@check("an npm .cmd shim is found with PATHEXT and started through node")
def npm_shim() -> None:
    from idea.infrastructure.platform import local_host
    from idea.infrastructure.windows.program_lookup import launch_command_line

    npm = WORK / "npm bin ü"
    script = npm / "node_modules" / "@anthropic-ai" / "claude-code" / "cli.js"
    script.parent.mkdir(parents=True, exist_ok=True)
    # node.exe stands in as a copy of python.exe; the "script" prints its arguments.
    (npm / "node.exe").write_bytes(PYTHON.read_bytes())
    for dll in (ROOT / "python").glob("*.dll"):
        (npm / dll.name).write_bytes(dll.read_bytes())
    (npm / "python313._pth").write_text("python313.zip\n.\n", encoding="utf-8")
    (npm / "python313.zip").write_bytes((ROOT / "python" / "python313.zip").read_bytes())
    script.write_text("import sys, json; print(json.dumps(sys.argv[1:]))\n", encoding="utf-8")
    (npm / "claude").write_text("#!/bin/sh\nexit 1\n", encoding="utf-8")
    (npm / "claude.cmd").write_text(
        "@ECHO off\r\nGOTO start\r\n:find_dp0\r\nSET dp0=%~dp0\r\nEXIT /b\r\n:start\r\nSETLOCAL\r\nCALL :find_dp0\r\n\r\n"
        'IF EXIST "%dp0%\\node.exe" (\r\n  SET "_prog=%dp0%\\node.exe"\r\n) ELSE (\r\n  SET "_prog=node"\r\n)\r\n\r\n'
        'endLocal & goto #_undefined_# 2>NUL || title %COMSPEC% & "%_prog%"  '
        '"%dp0%\\node_modules\\@anthropic-ai\\claude-code\\cli.js" %*\r\n',
        encoding="utf-8",
    )
    host = local_host()
    found = host.which("claude", f"{os.environ.get('PATH', '')};{npm}")
    assert found is not None and found.lower().endswith("claude.cmd"), found
    argv = host.launch_argv(found, ["--print", "a & b", "Jean Dupré"])
    assert Path(argv[0]).name == "node.exe", argv
    done = subprocess.run(launch_command_line(argv), capture_output=True, text=True, timeout=60)
    assert json.loads(done.stdout) == ["--print", "a & b", "Jean Dupré"], (done.stdout, done.stderr)


@check("cmd.exe reads a hook command line as Git Bash does")
def hook_line_in_cmd() -> None:
    from idea.domain.command_line import windows_shell_line

    words = [str(PYTHON), "-c", "import sys, json; print(json.dumps(sys.argv[1:]))", "--endpoint",
             r"C:\users\Jean Dupré\Temp\idea-mcp\x.endpoint", "a&b|c", "--event", "Stop"]
    line = windows_shell_line(words)
    done = subprocess.run(f'cmd.exe /d /s /c "{line}"', capture_output=True, text=True, timeout=60)
    assert json.loads(done.stdout) == words[3:], (line, done.stdout, done.stderr)


QT_WINDOW = (
    "import sys\n"
    "from PySide6.QtWidgets import QApplication, QMainWindow, QPlainTextEdit, QSplitter, QTreeWidget\n"
    "app = QApplication([sys.argv[0], '-platform', sys.argv[1]])\n"
    "w = QMainWindow(); w.resize(640, 400); w.setWindowTitle('IdeA')\n"
    "menu = w.menuBar().addMenu('&File'); menu.addAction('Open project…')\n"
    "split = QSplitter(); tree = QTreeWidget(); tree.setHeaderLabels(['Agents'])\n"
    "edit = QPlainTextEdit('IdeA ✓ ünicode'); split.addWidget(tree); split.addWidget(edit)\n"
    "w.setCentralWidget(split); w.show(); app.processEvents()\n"
    "ok = w.grab().save(sys.argv[2], 'PNG'); print(app.platformName(), ok)\n"
)


def qt_window(platform: str) -> None:
    shot = WORK / f"qt-{platform}.png"
    done = subprocess.run(
        [str(PYTHON), "-c", QT_WINDOW, platform, str(shot)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0 and done.stdout.split() == [platform, "True"], (done.stdout, done.stderr[-2000:])
    assert shot.stat().st_size > 2000


@check("Qt starts from the trimmed payload and paints a widgets window offscreen")
def qt_offscreen() -> None:
    qt_window("offscreen")


if os.environ.get("DISPLAY"):  # smoke.sh runs Xvfb: Qt's own Windows platform, what users get

    @check("Qt's windows platform paints the same window (Xvfb)")
    def qt_windows_platform() -> None:
        qt_window("windows")


# Each check ran where it was defined, in order.
sys.exit(len(failures))
