"""What the native cell needs on Windows, checked here: its modules import without the POSIX-only packages
(QTermWidget, ptyprocess, termios, pty), and the platform picks ConPTY."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import REPO_ROOT

BLOCKED = ("pyside6_qtermwidget", "ptyprocess", "termios", "pty", "fcntl")


def test_the_native_cell_imports_without_posix_only_packages() -> None:
    blocked = "".join(f"sys.modules[{name!r}] = None\n" for name in BLOCKED)
    code = (
        "import sys\n" + blocked + "import idea.ui.terminal.native.session\n"
        "import idea.infrastructure.pty.conpty_child\n"
        "import idea.ui.terminal.backend\n"
        "import idea.ui.terminal.write_portal\n"
        "print('imported')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "imported", done.stderr


def test_windows_spawns_through_conpty(monkeypatch: pytest.MonkeyPatch) -> None:
    from idea.infrastructure.pty.conpty_child import ConPtyChild
    from idea.ui.terminal.native.session import platform_spawner

    monkeypatch.setattr(sys, "platform", "win32")
    assert platform_spawner() == ConPtyChild.spawn


# The modules that may need what Windows lacks; every other IdeA module must import there (the Wine smoke test
# imports them all on Windows, but lists any module that fails on a POSIX-only import as expected).
POSIX_ONLY_MODULES = {
    "idea.infrastructure.host",  # pwd: the login shell from the user database (WindowsHost on Windows)
    "idea.infrastructure.pty.child_process",
    "idea.infrastructure.pty.posix_child",
    "idea.infrastructure.pty.ptyprocess_terminal",
    "idea.ui.terminal.qtermwidget_terminal",
    "idea.ui.terminal.terminal_view",
}
WINDOWS_LACKS = ("pyside6_qtermwidget", "ptyprocess", "pwd", "grp", "fcntl", "termios", "tty", "pty", "resource")
WINDOWS_LACKS_IN_OS = ("O_NONBLOCK", "O_NOFOLLOW", "O_NOCTTY")  # read at import time, they would stop IdeA there


def test_only_the_known_posix_modules_need_what_windows_lacks() -> None:
    """A new `import fcntl` (or pwd, termios…, or `os.O_NONBLOCK` read at import) at the top of a shared module
    breaks IdeA on Windows: found here, on every Linux run, instead of in the Wine smoke test."""
    # Only IdeA's own imports are refused: the standard library and third-party packages import these on
    # Linux and their Windows counterparts on Windows.
    code = (
        "import builtins, importlib, pkgutil, sys\n"
        f"lacks = {WINDOWS_LACKS!r}\n"
        "real_import = builtins.__import__\n"
        "def windows_import(name, globals=None, locals=None, fromlist=(), level=0):\n"
        "    if level == 0 and name.split('.')[0] in lacks and (globals or {}).get('__name__', '').startswith('idea'):\n"
        "        raise ModuleNotFoundError(f'No module named {name!r}', name=name)\n"
        "    return real_import(name, globals, locals, fromlist, level)\n"
        "builtins.__import__ = windows_import\n"
        "import idea, os\n"
        "names = [m.name for m in pkgutil.walk_packages(idea.__path__, 'idea.')]\n"
        "for name in names:  # first with everything, so that other packages are imported as on Linux\n"
        "    try:\n"
        "        importlib.import_module(name)\n"
        "    except ImportError:\n"
        "        pass\n"
        f"for constant in {WINDOWS_LACKS_IN_OS!r}:\n"
        "    delattr(os, constant)\n"
        "for name in [n for n in sys.modules if n == 'idea' or n.startswith('idea.')]:\n"
        "    del sys.modules[name]\n"
        "for name in names:  # then IdeA's modules again, without what os lacks on Windows\n"
        "    try:\n"
        "        importlib.import_module(name)\n"
        "    except ImportError as error:\n"
        "        print(name, error.name, sep='\\t')\n"
        "    except AttributeError as error:\n"
        "        print(name, error, sep='\\t')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr
    failed = dict(line.split("\t") for line in done.stdout.splitlines() if "\t" in line)
    assert set(failed) <= POSIX_ONLY_MODULES, {name: failed[name] for name in set(failed) - POSIX_ONLY_MODULES}
