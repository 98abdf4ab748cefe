"""Finding an agent CLI on a Windows PATH and starting it without a console shim in between.

`find_program` follows `where`'s rules for what IdeA starts: the PATH folders in order; a name without a
known extension is tried with each PATHEXT extension (`.COM;.EXE;.BAT;.CMD` by default) in order, so
npm's `claude.cmd` is found while the extensionless `claude` sh script beside it (for Git Bash) is not. The
current folder is not searched: a project must not be able to plant a `claude.exe` that IdeA would run.

npm installs a CLI as a `.cmd` shim that runs `node.exe <package>\\cli.js %*`. Starting it through
cmd.exe in a terminal means a "Terminate batch job (Y/N)?" question after every Ctrl+C and cmd.exe's
quoting of every argument. `launch_argv` reads the shim and starts node with the script directly, exactly
what the shim would run; any other batch file runs through `cmd.exe /d /s /c` with its arguments escaped.

Pure logic over an injectable file check and reader, so it is tested on Linux.
"""

from __future__ import annotations

import ntpath
import os
from collections.abc import Callable, Sequence
from pathlib import PureWindowsPath

from idea.domain.command_line import cmd_c_line, windows_argument, windows_command_line

DEFAULT_PATHEXT = ".COM;.EXE;.BAT;.CMD"
BATCH_EXTENSIONS = (".cmd", ".bat")
SHIM_SCRIPT_MARK = '"%dp0%\\'
SHIM_LIMIT = 64 * 1024


def pathext_list(pathext: str | None) -> list[str]:
    extensions = [ext.strip().lower() for ext in (pathext or DEFAULT_PATHEXT).split(";") if ext.strip()]
    return [ext if ext.startswith(".") else "." + ext for ext in extensions]


def find_program(
    program: str,
    path: str | None,
    pathext: str | None = None,
    *,
    is_file: Callable[[str], bool] = os.path.isfile,
) -> str | None:
    """The full path of `program` (a name, or a path with or without its extension), or None."""
    extensions = pathext_list(pathext)
    suffix = ntpath.splitext(program)[1].lower()
    candidates = [program] if suffix in extensions else [program + ext for ext in extensions]
    if ntpath.dirname(program) or PureWindowsPath(program).drive:
        return next((candidate for candidate in candidates if is_file(candidate)), None)
    for folder in (path or "").split(";"):
        folder = folder.strip().strip('"')
        if not folder:
            continue
        for candidate in candidates:
            full = ntpath.join(folder, candidate)
            if is_file(full):
                return full
    return None


def npm_shim_target(shim_path: str, text: str) -> tuple[str | None, str] | None:
    """For an npm `.cmd` shim: (node.exe beside the shim or None for `node` on PATH, the script path);
    None when the file is not an npm shim."""
    for line in reversed(text.splitlines()):
        if '"%_prog%"' not in line or SHIM_SCRIPT_MARK not in line:
            continue
        script = line.split(SHIM_SCRIPT_MARK, 1)[1].split('"', 1)[0]
        folder = ntpath.dirname(shim_path)
        node_beside = ntpath.join(folder, "node.exe")
        return (node_beside if "%dp0%\\node.exe" in text else None), ntpath.join(folder, script)
    return None


def launch_argv(
    resolved: str,
    args: Sequence[str],
    *,
    read_text: Callable[[str], str] | None = None,
    is_file: Callable[[str], bool] = os.path.isfile,
    path: str | None = None,
    comspec: str | None = None,
) -> list[str]:
    """The argv that starts `resolved` (found by `find_program`) with `args` on Windows."""
    if ntpath.splitext(resolved)[1].lower() not in BATCH_EXTENSIONS:
        return [resolved, *args]
    reader = read_text or _read_shim
    try:
        shim = npm_shim_target(resolved, reader(resolved))
    except (OSError, UnicodeDecodeError):
        shim = None
    if shim is not None:
        node_beside, script = shim
        node = node_beside if node_beside and is_file(node_beside) else find_program("node", path, is_file=is_file)
        if node is not None and is_file(script):
            return [node, script, *args]
    shell = comspec or os.environ.get("ComSpec") or r"C:\Windows\System32\cmd.exe"
    return [shell, "/d", "/s", "/c", cmd_c_line([resolved, *args])]


def _read_shim(path: str) -> str:
    with open(path, "rb") as handle:
        return handle.read(SHIM_LIMIT).decode("utf-8", errors="replace")


def launch_command_line(argv: Sequence[str]) -> str:
    """The CreateProcess command line for an argv from `launch_argv`: C runtime quoting, except that the
    string after `cmd.exe /d /s /c` is already quoted for cmd.exe and goes verbatim (quoting it again, as
    subprocess.list2cmdline would, breaks it)."""
    if len(argv) == 5 and list(argv[1:4]) == ["/d", "/s", "/c"]:
        return f"{windows_argument(argv[0])} /d /s /c {argv[4]}"
    return windows_command_line(argv)
