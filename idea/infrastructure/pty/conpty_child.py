"""A program in a Windows pseudo console (ConPTY) through `pywinpty`, as a `PtyChild` for the PTY pump.

pywinpty's low-level `winpty.PTY` is used rather than its `PtyProcess`, which relays the output through a
loopback socket and a thread of its own: the pump already reads on a thread. The console speaks text: output
arrives decoded, input is given as text, so bytes are turned into UTF-8 text and back here.

Process-tree termination uses psutil (children, then the program; TerminateProcess after the grace) until
Windows Job objects take over that part.

Runs only on Windows; its logic is tested on Linux against a fake of the `winpty` module.
"""

from __future__ import annotations

import asyncio
import codecs
import importlib
import subprocess
import threading
import time
from types import ModuleType

import psutil

from idea.infrastructure.terminal_start import start_refused

_POLL_S = 0.05


def load_winpty() -> ModuleType:
    return importlib.import_module("winpty")


class ConPtyChild:
    def __init__(self, pty: object, winpty: ModuleType) -> None:
        self._pty = pty
        self._winpty = winpty
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
    ) -> ConPtyChild:
        """Start `argv` (argv[0] the full path of the executable) in a new pseudo console."""
        module = winpty or load_winpty()
        application, command_line = command_line_for(argv, env)
        try:
            pty = module.PTY(columns, lines, backend=module.Backend.ConPTY)
            arguments = {"cmdline": command_line} if command_line is not None else {}
            environment = "".join(f"{name}={value}\0" for name, value in env.items())
            if not pty.spawn(application, cwd=cwd, env=environment, **arguments):
                raise OSError("the pseudo console did not start it")
        except (OSError, module.WinptyError) as error:
            raise start_refused(program, str(error) or type(error).__name__) from error
        return cls(pty, module)

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
        try:
            psutil.Process(self._pid).wait()
        except psutil.NoSuchProcess:
            pass
        except psutil.Error:
            while self._pty.isalive():  # type: ignore[attr-defined]
                time.sleep(_POLL_S)
        # The console reports the status once it has noticed the exit itself.
        deadline = time.monotonic() + 1.0
        while self._pty.isalive() and time.monotonic() < deadline:  # type: ignore[attr-defined]
            time.sleep(_POLL_S)
        status = self._pty.get_exitstatus()  # type: ignore[attr-defined]
        return int(status) if status is not None else None

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
        self._pty = _Closed()

    async def end(self, grace_ms: int, *, has_exited: bool, agent_marker: str | None) -> None:
        # `agent_marker`: finding an agent's leftovers by its environment needs the Windows process API
        # (Job objects will contain them instead).
        if has_exited:
            return
        await end_process_tree(self._pid, grace_ms)


def command_line_for(argv: list[str], env: dict[str, str]) -> tuple[str, str | None]:
    """(the application, its command line after the name) as pywinpty's own PtyProcess passes them, the
    arguments quoted for Windows. A batch file (npm installs `claude.cmd`, `codex.cmd`, `gemini.cmd`) is no
    executable: it runs through the command interpreter, `cmd.exe /d /s /c "…"`."""
    if not argv[0].lower().endswith((".cmd", ".bat")):
        return argv[0], (" " + subprocess.list2cmdline(argv[1:])) if len(argv) > 1 else None
    interpreter = env.get("ComSpec") or env.get("COMSPEC") or r"C:\Windows\System32\cmd.exe"
    # /s: cmd takes everything between the outer quotes as the command line, quoted as for any program.
    return interpreter, ' /d /s /c "' + subprocess.list2cmdline(argv) + '"'


async def end_process_tree(pid: int, grace_ms: int) -> None:
    """Terminate `pid` and its descendants, children first; kill what remains after `grace_ms`."""
    try:
        root = psutil.Process(pid)
        processes = [*reversed(root.children(recursive=True)), root]
    except psutil.Error:
        return
    for process in processes:
        try:
            process.terminate()
        except psutil.Error:
            pass
    _, alive = await asyncio.to_thread(psutil.wait_procs, processes, grace_ms / 1000)
    for process in alive:
        try:
            process.kill()
        except psutil.Error:
            pass
    await asyncio.to_thread(psutil.wait_procs, alive, 1.0)


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
