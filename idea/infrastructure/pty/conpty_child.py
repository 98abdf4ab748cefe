"""A program in a Windows pseudo console (ConPTY) through `pywinpty`, as a `PtyChild` for the PTY pump.

pywinpty's low-level `winpty.PTY` is used rather than its `PtyProcess`, which relays the output through a
loopback socket and a thread of its own: the pump already reads on a thread. The console speaks text: output
arrives decoded, input is given as text, so bytes are turned into UTF-8 text and back here.

The program starts as the other Windows adapters start it (`windows/program_lookup.py`): an npm `.cmd` shim
through node with its script, any other batch file through `cmd.exe /d /s /c` with its arguments escaped for
cmd.exe, everything else directly; the command line is `launch_command_line`'s. Right after it starts, the
program goes into a Job object of its own (`windows/job_objects.py`, PROCESS_JOBS): ending it closes the
console, then ends whatever is left in the job after the grace; a normal exit closes the job, which ends what
the program left running (KILL_ON_JOB_CLOSE).

Runs only on Windows; its logic is tested on Linux against a fake of the `winpty` module.
"""

from __future__ import annotations

import codecs
import importlib
import os
import threading
import time
from collections.abc import Callable, Mapping
from types import ModuleType

import psutil

from idea.domain.command_line import windows_argument
from idea.infrastructure.terminal.start import start_refused
from idea.infrastructure.windows.job_objects import PROCESS_JOBS, JobTrees
from idea.infrastructure.windows.program_lookup import launch_argv, launch_command_line

_POLL_S = 0.05


def load_winpty() -> ModuleType:
    return importlib.import_module("winpty")


class ConPtyChild:
    def __init__(self, pty: object, winpty: ModuleType, jobs: JobTrees) -> None:
        self._pty = pty
        self._winpty = winpty
        self._jobs = jobs
        self._pid: int = pty.pid  # type: ignore[attr-defined]
        self._interrupted = threading.Event()
        self._input_decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")

    @classmethod
    def spawn(
        cls,
        program: str,
        argv: list[str],
        cwd: str,
        env: dict[str, str],
        columns: int,
        lines: int,
        *,
        winpty: ModuleType | None = None,
        jobs: JobTrees | None = None,
        read_text: Callable[[str], str] | None = None,
        is_file: Callable[[str], bool] = os.path.isfile,
    ) -> ConPtyChild:
        """Start `argv` (argv[0] the full path of the executable) in a new pseudo console, in a Job object of
        its own. `jobs`, `read_text` and `is_file` replace the Win32 calls and the file system in tests."""
        module = winpty or load_winpty()
        try:
            application, command_line = command_line_for(argv, env, read_text=read_text, is_file=is_file)
            pty = module.PTY(columns, lines, backend=module.Backend.ConPTY)
            arguments = {"cmdline": command_line} if command_line is not None else {}
            environment = "".join(f"{name}={value}\0" for name, value in env.items())
            if not pty.spawn(application, cwd=cwd, env=environment, **arguments):
                raise OSError("the pseudo console did not start it")
        except (OSError, module.WinptyError) as error:
            raise start_refused(program, str(error) or type(error).__name__) from error
        child = cls(pty, module, PROCESS_JOBS if jobs is None else jobs)
        # Refused (it exited at once, or access was denied): ending it falls back to psutil's view of its tree.
        child._jobs.adopt(child.pid)
        return child

    @property
    def pid(self) -> int:
        return self._pid

    def read(self) -> bytes | None:
        while not self._interrupted.is_set():
            try:
                text = self._pty.read(blocking=True)  # type: ignore[attr-defined]
            except self._winpty.WinptyError:
                return b""
            if text:
                return text.encode("utf-8")
            if self._pty.iseof():  # type: ignore[attr-defined]
                return b""
        return None

    def write(self, data: bytes) -> int:
        if self._interrupted.is_set() or not self._pty.isalive():  # type: ignore[attr-defined]
            raise OSError("the pseudo console is closed")
        # The console takes text: a character split across two writes is completed by the next one.
        text = self._input_decoder.decode(data)
        try:
            if text:
                self._pty.write(text)  # type: ignore[attr-defined]
        except self._winpty.WinptyError as error:
            raise OSError(str(error)) from error
        return len(data)

    def resize(self, columns: int, lines: int) -> None:
        try:
            self._pty.set_size(columns, lines)  # type: ignore[attr-defined]
        except self._winpty.WinptyError as error:
            raise OSError(str(error)) from error

    def wait(self) -> int | None:
        waited: int | None = None
        try:
            waited = psutil.Process(self._pid).wait()
        except psutil.NoSuchProcess:
            pass
        except psutil.Error:
            while self._pty.isalive():  # type: ignore[attr-defined]
                time.sleep(_POLL_S)
        # The console reports the status once it has noticed the exit itself (not after a hang-up).
        deadline = time.monotonic() + 1.0
        while self._pty.isalive() and time.monotonic() < deadline:  # type: ignore[attr-defined]
            time.sleep(_POLL_S)
        status = self._pty.get_exitstatus()  # type: ignore[attr-defined]
        return int(status) if status is not None else waited

    def foreground_pid(self) -> int | None:
        """Windows has no foreground process group: the newest process started by the program, down to the
        last generation (what a shell runs in front), else the program itself."""
        try:
            process = psutil.Process(self._pid)
            while True:
                children = [child for child in process.children() if child.is_running()]
                if not children:
                    return process.pid
                process = max(children, key=lambda child: child.create_time())
        except psutil.Error:
            return None

    def interrupt(self) -> None:
        self._interrupted.set()
        try:
            self._pty.cancel_io()  # type: ignore[attr-defined]
        except self._winpty.WinptyError:
            pass

    def close(self) -> None:
        """The program has exited and the reader stopped: the console goes, and the job with what is left in
        it (KILL_ON_JOB_CLOSE)."""
        self._pty = _Closed()
        self._jobs.forget(self._pid)

    def _hang_up(self) -> None:
        """Close the pseudo console (its programs get CTRL_CLOSE_EVENT, the Windows SIGHUP): the reader is
        cancelled, and the console object goes with the last reference to it."""
        self.interrupt()
        self._pty = _Closed()

    async def end(self, grace_ms: int, *, has_exited: bool, agent_marker: str | None) -> None:
        if has_exited and not self._jobs.holds(self._pid):
            return  # its job is closed already, and its pid may be another process's by now
        hang_up = None if has_exited else self._hang_up
        await self._jobs.end(self._pid, grace_ms, hang_up=hang_up, agent_marker=agent_marker)


def command_line_for(
    argv: list[str],
    env: Mapping[str, str],
    *,
    read_text: Callable[[str], str] | None = None,
    is_file: Callable[[str], bool] = os.path.isfile,
) -> tuple[str, str | None]:
    """(the program, the rest of its command line) for pywinpty, from `launch_argv` and
    `launch_command_line`: an npm shim (`claude.cmd`, `codex.cmd`, `gemini.cmd`) runs node with its script.
    pywinpty's ConPTY joins the two with a space into CreateProcess's command line (no application name), so
    the program is quoted as an argument too: a path with a space is one program, not a search."""
    path, comspec = _variable(env, "PATH"), _variable(env, "ComSpec")
    launch = launch_argv(argv[0], argv[1:], read_text=read_text, is_file=is_file, path=path, comspec=comspec)
    program = windows_argument(launch[0])
    line = launch_command_line(launch)
    return program, line[len(program) + 1 :] or None


def _variable(env: Mapping[str, str], name: str) -> str | None:
    """A Windows environment variable: names are case-insensitive there."""
    return next((value for key, value in env.items() if key.upper() == name.upper()), None)


class _Closed:
    """What a closed console answers: nothing left to read, write or wait for."""

    def read(self, blocking: bool = False) -> str:
        return ""

    def iseof(self) -> bool:
        return True

    def isalive(self) -> bool:
        return False

    def get_exitstatus(self) -> None:
        return None

    def cancel_io(self) -> bool:
        return True

    def set_size(self, cols: int, rows: int) -> None:
        pass

    def write(self, text: str) -> int:
        raise OSError("the pseudo console is closed")
