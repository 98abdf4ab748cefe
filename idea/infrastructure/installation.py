"""How this IdeA is installed, and the command that starts it again.

Other processes start IdeA again long after this one wrote their configuration: an agent CLI runs the MCP
bridge and the hook relay, a desktop menu starts the GUI. They must name the executable the user actually
has: the AppImage file (not its temporary mount), the frozen executable of a one-dir install (the `.deb`'s
`/opt/idea/idea`, an unpacked `.tar.gz`), the `idea` console script of a venv or pipx install, and
`python -m idea` only for a checkout that was never installed.
"""

from __future__ import annotations

import enum
import os
import re
import sys
from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass
from pathlib import Path

from idea.domain.spawn_env import LIVE_APPDIR_ENV

CONSOLE_SCRIPT = "idea"
FALLBACK_COMMAND = "idea"


class Kind(enum.Enum):
    APPIMAGE = "AppImage"
    FROZEN = "one-dir"  # PyInstaller: the .deb, the .tar.gz
    VENV = "Python package"  # pip / pipx, editable or not
    WINDOWS = "Windows setup"  # setup.exe: %LOCALAPPDATA%\Programs\IdeA
    CHECKOUT = "source checkout"


@dataclass(frozen=True)
class Installation:
    kind: Kind
    command: tuple[str, ...]  # argv prefix that starts this IdeA again
    appimage: str | None = None  # the AppImage file, when kind is APPIMAGE
    appdir: str | None = None  # the image's mount (or extracted copy) this process runs from, when APPIMAGE


def is_frozen() -> bool:
    """A PyInstaller executable (one-dir, AppImage): its bootloader set LD_LIBRARY_PATH to its own libraries."""
    return bool(getattr(sys, "frozen", False))


def detect(
    environ: Mapping[str, str] | None = None,
    *,
    executable: str | None = None,
    frozen: bool | None = None,
) -> Installation:
    """This process's installation. `$APPIMAGE` counts only when the frozen executable runs from the
    image's own mount (`$APPDIR`): a variable inherited from some other AppImage app must not win."""
    env = os.environ if environ is None else environ
    exe = sys.executable if executable is None else executable
    if (is_frozen() if frozen is None else frozen) and exe:
        appimage, appdir = env.get("APPIMAGE", ""), env.get("APPDIR", "")
        if appimage and appdir and _inside(exe, appdir):
            return Installation(Kind.APPIMAGE, (appimage,), appimage, appdir)
        return Installation(Kind.FROZEN, (exe,))
    if not exe:
        return Installation(Kind.CHECKOUT, (FALLBACK_COMMAND,))
    if sys.platform == "win32":
        windows = _windows_installation(exe)
        if windows is not None:
            return windows
    script = _console_script_of(exe)
    if script is not None:
        return Installation(Kind.VENV, (script,))
    return Installation(Kind.CHECKOUT, (exe, "-m", "idea"))


def name_live_appdir(environ: MutableMapping[str, str] | None = None) -> None:
    """From an AppImage, names the AppDir this IdeA runs from (its mount, or its extracted copy) in
    `LIVE_APPDIR_ENV`, which every process it starts inherits: IdeA's own subcommands that agents start (the
    bridge, the hook relay, the sandbox wrapper) then run from that mount instead of mounting the image
    again, which a Landlock sandbox refuses — the runtime first checks that it is a live mount of the same
    image — and AppRun skips the system checks this IdeA passed there. Elsewhere it changes nothing."""
    env = os.environ if environ is None else environ
    appdir = detect(env).appdir
    if appdir:
        env[LIVE_APPDIR_ENV] = appdir


def idea_command(environ: Mapping[str, str] | None = None) -> list[str]:
    """The argv prefix that starts this IdeA again (see `detect`)."""
    return list(detect(environ).command)


def _windows_installation(exe: str) -> Installation | None:
    from idea.infrastructure.windows import installation as windows

    if windows.setup_root(exe) is not None:
        return Installation(Kind.WINDOWS, (windows.console_interpreter(exe), "-m", "idea"))
    script = windows.venv_script(exe)
    return Installation(Kind.VENV, (script,)) if script is not None else None


def _inside(path: str, directory: str) -> bool:
    try:
        return Path(path).resolve().is_relative_to(Path(directory).resolve())
    except (OSError, ValueError):
        return False


def _console_script_of(interpreter: str) -> str | None:
    """The `idea` script pip installed beside `interpreter`, if it runs that same interpreter.

    A script of another installation in the same folder (`/usr/bin/idea` of the .deb beside
    `/usr/bin/python3`) does not count: its first line names a different interpreter or none.
    """
    script = Path(interpreter).parent / CONSOLE_SCRIPT
    try:
        with script.open("rb") as handle:
            head = handle.read(1024)
    except OSError:
        return None
    if not os.access(script, os.X_OK):
        return None
    runs = _script_interpreter(head)
    if runs is None or Path(runs).parent != Path(interpreter).parent:
        return None
    return str(script)


# pip's launcher for an interpreter whose path a `#!` line cannot hold (a space, or too long): a shell script
# that execs it, named in double quotes on its second line.
_SH_LAUNCHER = re.compile(rb"#!/bin/sh\n'''exec' \"?(?P<interpreter>[^\"\n]+?)\"? \"\$0\" \"\$@\"\n")


def _script_interpreter(head: bytes) -> str | None:
    """The interpreter a console script runs: its `#!` line's, or the one pip's shell launcher execs."""
    launcher = _SH_LAUNCHER.match(head)
    if launcher is not None:
        return launcher["interpreter"].decode(errors="replace")
    if not head.startswith(b"#!"):
        return None
    return head[2:].split(b"\n", 1)[0].strip().split(b" ", 1)[0].decode(errors="replace")
