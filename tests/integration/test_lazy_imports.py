"""Starting IdeA does not load libgit2 nor Pygments: the first git call (on the worker pool) and the first
diff viewer load them."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import REPO_ROOT


def test_the_gui_modules_import_without_pygit2_or_pygments() -> None:
    probe = "import sys, idea.ui.app; print(sorted({'pygit2', 'pygments'} & set(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", probe], cwd=REPO_ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
