"""Where IdeA keeps its files on this machine."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

APP_ID = "app.idea.ide"


def user_data_dir() -> Path:
    """`IDEA_DATA_DIR` when set (isolated instances, tests), else the platform's user-data directory."""
    override = os.environ.get("IDEA_DATA_DIR")
    if override:
        return Path(override).expanduser().resolve()
    return Path(platformdirs.user_data_dir(APP_ID, appauthor=False, roaming=True))


def logs_dir() -> Path:
    return user_data_dir() / "logs"
