"""The command line agent CLIs run for the hook relay, as cheap as this installation allows.

From a Python installation (a checkout, a virtual environment, a wheel, the Windows setup's embedded
Python) the relay runs as `<python> -I -S -c "<import relay from its folder, run it>" <folder>`: isolated
(no user site, no `PYTHON*` variables), without the `site` module and without importing the `idea` package;
the relay module comes from its cached bytecode (a script given by path would be compiled at every start).
An event then costs little more than starting the interpreter. The folder is an argument of its own, not a
literal in the code, so the code has no quote or backslash and a Windows hook line (which cmd.exe and Git
Bash must read alike, `domain/command_line.py`) can carry it. On Windows the interpreter is the console
`python.exe` even when the GUI runs under `pythonw.exe`: the relay reads the CLI's stdin. A frozen build or
an AppImage has no separate interpreter: there it is `<idea> hook`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping

from idea.infrastructure.agents.executable import idea_command
from idea.infrastructure.hooks import relay

HOOK_SUBCOMMAND = "hook"
MODULE = "relay"
RELAY_CODE = f"import sys;sys.path[:0]=[sys.argv.pop(1)];import {MODULE};sys.exit({MODULE}.run_hook(sys.argv[1:]))"


def hook_relay_command(
    environ: Mapping[str, str] | None = None, *, executable: str | None = None, platform: str = sys.platform
) -> list[str]:
    """The argv prefix before the relay's options."""
    env = os.environ if environ is None else environ
    script = os.path.abspath(relay.__file__)
    interpreter = sys.executable if executable is None else executable
    frozen = getattr(sys, "frozen", False) or bool(env.get("APPIMAGE"))
    if not frozen and interpreter and os.path.isfile(script) and script.endswith(f"{MODULE}.py"):
        if platform == "win32":
            from idea.infrastructure.windows.installation import console_interpreter

            interpreter = console_interpreter(interpreter)
        return [interpreter, "-I", "-S", "-c", RELAY_CODE, os.path.dirname(script)]
    return [*idea_command(env), HOOK_SUBCOMMAND]
