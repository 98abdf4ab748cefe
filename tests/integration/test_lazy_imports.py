"""Starting IdeA loads neither libgit2, Pygments nor the MCP SDK: the first git call (on the worker pool), the
first diff viewer and the first project open load them, and the window shows sooner without them."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import REPO_ROOT


def test_the_gui_modules_import_without_pygit2_pygments_or_the_mcp_sdk() -> None:
    probe = "import sys, idea.ui.app; print(sorted({'pygit2', 'pygments', 'mcp'} & set(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", probe], cwd=REPO_ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
