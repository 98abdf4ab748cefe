"""Opening a project folder IdeA cannot write to, with the real doors and stores: a clear refusal."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

OPEN_AND_REPORT = """
import sys
from pathlib import Path
from idea.bootstrap import bootstrap
from idea.domain.errors import AppError
app = bootstrap(data_dir=Path(sys.argv[2]))
try:
    app.core.submit(app.projects.open(sys.argv[1])).result(60)
    print("opened")
except AppError as error:
    print(f"{error.code.value}: {error.message}")
finally:
    app.shutdown()
"""


def test_a_read_only_project_folder_is_refused_with_cannot_prepare(tmp_path: Path) -> None:
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        pytest.skip("needs root and unshare(1) to mount a read-only folder in a private namespace")
    project = tmp_path / "project"
    project.mkdir()
    script = (
        f'mount --bind "{project}" "{project}" && mount -o remount,bind,ro "{project}" && '
        f'exec "{sys.executable}" -c "$0" "{project}" "{tmp_path / "data"}"'
    )
    done = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c", script, OPEN_AND_REPORT],
                          capture_output=True, text=True, timeout=120, cwd=Path(__file__).resolve().parents[2])
    if "mount:" in done.stderr:
        pytest.skip(f"this machine refuses the mount: {done.stderr.strip()}")

    assert done.stdout.strip() == f"STORE: Cannot prepare {project} for IdeA: Read-only file system", done.stderr
    assert not (project / ".ideai").exists()
