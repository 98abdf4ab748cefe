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
