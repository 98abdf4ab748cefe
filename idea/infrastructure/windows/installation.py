"""How IdeA is installed on Windows, for `installation.detect`.

setup.exe lays out `<root>\\python\\python.exe` (and `pythonw.exe`, which runs the GUI) beside
`<root>\\IdeA.exe`; the bridge and the hook relay are started again as `<root>\\python\\python.exe -m idea`
(the console interpreter: the agent CLIs give it their pseudo console, so no window appears, and its
stdio is theirs). A pip install in a venv has `Scripts\\idea.exe` beside the interpreter.
"""

from __future__ import annotations

import ntpath
import os
from collections.abc import Callable

GUI_LAUNCHER = "IdeA.exe"
CONSOLE_INTERPRETER = "python.exe"


def setup_root(executable: str, exists: Callable[[str], bool] = os.path.exists) -> str | None:
    """The install folder when `executable` is the interpreter setup.exe installed, else None."""
    folder = ntpath.dirname(executable)
    if ntpath.basename(folder).lower() != "python":
        return None
    root = ntpath.dirname(folder)
    return root if exists(ntpath.join(root, GUI_LAUNCHER)) else None


def console_interpreter(executable: str) -> str:
    """python.exe for pythonw.exe: what starts subcommands must have stdio."""
    folder, name = ntpath.split(executable)
    return ntpath.join(folder, CONSOLE_INTERPRETER) if name.lower() == "pythonw.exe" else executable


def venv_script(executable: str, exists: Callable[[str], bool] = os.path.exists) -> str | None:
    script = ntpath.join(ntpath.dirname(executable), "idea.exe")
    return script if exists(script) else None
