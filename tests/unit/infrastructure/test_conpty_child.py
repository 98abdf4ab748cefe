"""ConPtyChild and the PTY pump against a fake of pywinpty's `winpty` module (ConPTY does not exist here).

The fake records what the adapter asks of the console and plays the console's side: output to read, the
end of output, the program's exit and status, a read blocked until cancelled.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
import types
from typing import Any

import pytest

from idea.domain.errors import AppError, ErrorCode
from idea.infrastructure.pty import conpty_child
from idea.infrastructure.pty.conpty_child import ConPtyChild
from idea.infrastructure.pty.pty_pump import PtyPump
from idea.infrastructure.windows.job_objects import EXIT_CODE_TERMINATED, JobTrees
from tests.unit.infrastructure.windows.test_job_objects import FakeJobs
from tests.unit.infrastructure.windows.test_program_lookup import CLAUDE_SHIM, files

NPM = r"C:\Users\Ana Lúcia\AppData\Roaming\npm"
SHIM = NPM + r"\claude.cmd"
NODE = r"C:\Program Files\nodejs\node.exe"
SCRIPT = NPM + r"\node_modules\@anthropic-ai\claude-code\cli.js"


class FakeWinptyError(Exception):
    pass


class FakePty:
    """winpty.PTY as the adapter uses it; the test drives the console side."""

    instances: list[FakePty] = []
    refuse_spawn = False

    def __init__(self, cols: int, rows: int, backend: int | None = None) -> None:
        self.size = (cols, rows)
        self.backend = backend
        self.spawned: dict[str, Any] | None = None
        self.written: list[str] = []
        self.output: list[str] = []
        self.available = threading.Condition()
        self.eof = False
        self.alive = True
        self.status: int | None = None
        self.cancelled = False
        self.pid = 4242
        FakePty.instances.append(self)

    def spawn(self, appname: str, cmdline: str | None = None, cwd: str | None = None, env: str | None = None) -> bool:
        if FakePty.refuse_spawn:
            raise FakeWinptyError("CreateProcessW failed: The system cannot find the file specified (os error 2)")
        self.spawned = {"appname": appname, "cmdline": cmdline, "cwd": cwd, "env": env}
        return True

    def set_size(self, cols: int, rows: int) -> None:
        self.size = (cols, rows)

    def read(self, blocking: bool = False) -> str:
        with self.available:
            self.available.wait_for(lambda: self.output or self.eof or self.cancelled)
            return self.output.pop(0) if self.output else ""

    def write(self, text: str) -> int:
        if not self.alive:
            raise FakeWinptyError("the pipe is closed")
        self.written.append(text)
        return len(text)

    def isalive(self) -> bool:
        return self.alive

    def iseof(self) -> bool:
        return self.eof and not self.output

    def get_exitstatus(self) -> int | None:
        return self.status

    def cancel_io(self) -> bool:
        with self.available:
            self.cancelled = True
            self.available.notify_all()
        return True

    # The console's side

    def emit(self, text: str) -> None:
        with self.available:
            self.output.append(text)
            self.available.notify_all()

    def exit(self, status: int, *, close_output: bool = True) -> None:
        with self.available:
            self.alive = False
            self.status = status
            self.eof = close_output
            self.available.notify_all()


@pytest.fixture
def winpty(monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    FakePty.instances = []
    FakePty.refuse_spawn = False
    module = types.ModuleType("winpty")
    module.PTY = FakePty  # type: ignore[attr-defined]
    module.WinptyError = FakeWinptyError  # type: ignore[attr-defined]
    module.Backend = types.SimpleNamespace(ConPTY=0, WinPTY=1)  # type: ignore[attr-defined]
    # The process is Windows's: psutil has no such pid here, so the adapter waits on the console instead.
    monkeypatch.setattr(conpty_child.psutil, "Process", _no_such_process)
    return module


def _no_such_process(pid: int) -> Any:
    raise conpty_child.psutil.AccessDenied(pid)


def spawn(
    winpty: types.ModuleType,
    argv: list[str] | None = None,
    *,
    jobs: FakeJobs | None = None,
    existing: tuple[str, ...] = (NODE, SCRIPT),
) -> tuple[ConPtyChild, FakePty]:
    child = ConPtyChild.spawn(
        "claude",
        argv or [SHIM, "--resume", "my session", 'say "hi"'],
        r"C:\Projects\my app",
        {"Path": r"C:\Windows;C:\Program Files\nodejs", "TERM": "xterm-256color", "IDEA_AGENT_ID": "a-1"},
        120,
        40,
        winpty=winpty,
        jobs=JobTrees(jobs or FakeJobs()),
        read_text=lambda path: CLAUDE_SHIM,
        is_file=files(*existing),
    )
    return child, FakePty.instances[-1]


def test_spawn_asks_for_conpty_with_a_windows_command_line_and_the_exact_environment(winpty: Any) -> None:
    child, pty = spawn(winpty, [NODE, "--resume", "my session", 'say "hi"'])
    assert pty.backend == winpty.Backend.ConPTY and pty.size == (120, 40)
    assert pty.spawned == {
        # pywinpty's ConPTY joins both with a space as CreateProcess's command line: the program is quoted.
        "appname": f'"{NODE}"',
        "cmdline": '--resume "my session" "say \\"hi\\""',
        "cwd": r"C:\Projects\my app",
        "env": "Path=C:\\Windows;C:\\Program Files\\nodejs\0TERM=xterm-256color\0IDEA_AGENT_ID=a-1\0",
    }
    assert child.pid == 4242


def test_an_npm_shim_starts_node_with_its_script_not_the_command_interpreter(winpty: Any) -> None:
    _, pty = spawn(winpty)  # claude.cmd in a folder with a space and an accent; node on the Path
    assert pty.spawned is not None
    assert pty.spawned["appname"] == f'"{NODE}"'
    assert pty.spawned["cmdline"] == f'"{SCRIPT}" --resume "my session" "say \\"hi\\""'


def test_another_batch_file_runs_through_cmd_with_its_arguments_escaped(winpty: Any) -> None:
    _, pty = spawn(winpty, [r"C:\tools\agent.bat", "a&b"], existing=())
    assert pty.spawned is not None
    assert pty.spawned["appname"] == r"C:\Windows\System32\cmd.exe"
    assert pty.spawned["cmdline"] == r'/d /s /c "C:\tools\agent.bat ^"a^&b^""'


def test_a_program_without_arguments_gets_no_command_line(winpty: Any) -> None:
    _, pty = spawn(winpty, [r"C:\Windows\System32\cmd.exe"])
    assert pty.spawned is not None and pty.spawned["cmdline"] is None


def test_the_program_goes_into_a_job_and_ending_it_hangs_up_then_ends_the_rest_of_the_job(winpty: Any) -> None:
    jobs = FakeJobs()
    child, pty = spawn(winpty, jobs=jobs)
    (job,) = jobs.jobs
    assert jobs.jobs[job] == {4242}
    jobs.spawn_child(job, 4300)  # a daemon the agent started (Codex's app-server): it ignores the hang-up

    asyncio.run(child.end(50, has_exited=False, agent_marker=None))

    assert pty.cancelled  # hung up: the console is closed
    assert jobs.terminated == [(job, EXIT_CODE_TERMINATED)] and jobs.closed == [job]


def test_a_normal_exit_closes_the_job_and_a_later_end_touches_no_process(winpty: Any) -> None:
    jobs = FakeJobs()
    child, _ = spawn(winpty, jobs=jobs)
    (job,) = jobs.jobs
    child.close()  # what the pump does once the program has exited
    assert jobs.closed == [job]  # KILL_ON_JOB_CLOSE ends what it left running

    asyncio.run(child.end(50, has_exited=True, agent_marker="a-1"))

    assert jobs.terminated == [] and jobs.closed == [job]


def test_a_refused_start_is_a_process_error_naming_the_program(winpty: Any) -> None:
    FakePty.refuse_spawn = True
    with pytest.raises(AppError) as raised:
        spawn(winpty)
    assert raised.value.code is ErrorCode.PROCESS
    assert raised.value.message.startswith("Cannot start claude: CreateProcessW failed")


def test_text_goes_in_as_text_even_when_a_character_is_split_across_writes(winpty: Any) -> None:
    child, pty = spawn(winpty)
    data = "é中\r".encode()
    assert child.write(data[:3]) == 3
    assert child.write(data[3:]) == len(data) - 3
    assert "".join(pty.written) == "é中\r"
    child.resize(100, 30)
    assert pty.size == (100, 30)


def test_the_pump_reads_output_reports_the_exit_once_after_it_and_fails_later_input(winpty: Any) -> None:
    child, pty = spawn(winpty)
    events: list[object] = []
    exited = threading.Event()

    def on_exit(code: int | None) -> None:
        events.append(("exit", code))
        exited.set()

    pump = PtyPump(child, events.append, on_exit)
    pump.start()
    written = pump.write("dir\r".encode())
    written.result(timeout=5)
    pty.emit("C:\\> dir\r\n")
    pty.emit("中文\r\n")
    pty.exit(3)
    assert exited.wait(5)
    assert events == ["C:\\> dir\r\n".encode(), "中文\r\n".encode(), ("exit", 3)]
    assert pty.written == ["dir\r"]
    late = pump.write(b"too late")
    with pytest.raises(AppError):
        late.result(timeout=5)


def test_an_exit_with_the_console_still_open_stops_the_read_and_still_reports(winpty: Any) -> None:
    # A background process keeps the pseudo console open: no end of output comes.
    child, pty = spawn(winpty)
    exits: concurrent.futures.Future[int | None] = concurrent.futures.Future()
    pump = PtyPump(child, lambda _chunk: None, exits.set_result)
    pump.start()
    pty.exit(0, close_output=False)
    assert exits.result(timeout=5) == 0
    assert pty.cancelled
    assert pump.has_exited()
