"""The Windows machine IdeA runs on: environment, the shell for shell cells, PATH lookups with PATHEXT."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence

from idea.infrastructure.scratch import new_scratch_dir
from idea.infrastructure.windows.program_lookup import find_program, launch_argv


def windows_shell(
    environ: Mapping[str, str], which: Callable[[str], str | None], is_file: Callable[[str], bool] = os.path.isfile
) -> str:
    """PowerShell 7 when installed, else Windows PowerShell, else `%ComSpec%` (cmd.exe)."""
    found = which("pwsh")
    if found:
        return found
    root = environ.get("SystemRoot") or environ.get("SYSTEMROOT") or r"C:\Windows"
    powershell = rf"{root}\System32\WindowsPowerShell\v1.0\powershell.exe"
    if is_file(powershell):
        return powershell
    return environ.get("ComSpec") or environ.get("COMSPEC") or rf"{root}\System32\cmd.exe"


class WindowsHost:
    def __init__(self, is_frozen: Callable[[], bool]) -> None:
        self._is_frozen = is_frozen  # installation.is_frozen (not imported here: it imports this package)

    def environ(self) -> dict[str, str]:
        return dict(os.environ)

    def login_shell(self) -> str:
        return windows_shell(os.environ, lambda name: self.which(name, os.environ.get("PATH")))

    def which(self, program: str, path: str | None) -> str | None:
        return find_program(program, path if path is not None else os.environ.get("PATH"), os.environ.get("PATHEXT"))

    def launch_argv(self, program: str, args: Sequence[str]) -> list[str]:
        return launch_argv(program, args, path=os.environ.get("PATH"))

    def is_dir(self, path: str) -> bool:
        return os.path.isdir(path)

    def scratch_dir(self, prefix: str) -> str:
        return new_scratch_dir(prefix)

    def is_frozen(self) -> bool:
        return self._is_frozen()


def available_shells(environ: Mapping[str, str], which: Callable[[str], str | None]) -> list[str]:
    """The shells a shell cell can run here, for `idea doctor`: PowerShell 7, Windows PowerShell, cmd.exe,
    Git Bash."""
    root = environ.get("SystemRoot") or environ.get("SYSTEMROOT") or r"C:\Windows"
    candidates = [
        which("pwsh"),
        which("powershell") or rf"{root}\System32\WindowsPowerShell\v1.0\powershell.exe",
        environ.get("ComSpec") or rf"{root}\System32\cmd.exe",
        which("bash"),
    ]
    return [shell for shell in dict.fromkeys(candidates) if shell and os.path.isfile(shell)]
