"""Test-wide setup: Qt offscreen, an isolated user-data dir per test, short timeouts."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# Tests must never pick up the developer's own IdeA settings or projects.
os.environ.pop("IDEA_DATA_DIR", None)

REPO_ROOT = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).resolve().parent / "fixtures"
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))


@pytest.fixture(autouse=True)
def isolated_data_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    data_dir = tmp_path_factory.mktemp("idea-data")
    monkeypatch.setenv("IDEA_DATA_DIR", str(data_dir))
    return data_dir
