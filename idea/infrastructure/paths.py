"""Where IdeA keeps its files on this machine."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import platformdirs

from idea.domain.errors import AppError, ErrorCode

APP_ID = "app.idea.ide"


def user_data_dir() -> Path:
    """`IDEA_DATA_DIR` when set (isolated instances, tests), else the platform's user-data directory."""
    override = os.environ.get("IDEA_DATA_DIR")
    if override:
        return Path(override).expanduser().resolve()
    return Path(platformdirs.user_data_dir(APP_ID, appauthor=False, roaming=True))


def logs_dir() -> Path:
    return user_data_dir() / "logs"


def prepare_data_dir(directory: Path) -> Path:
    """Create IdeA's data folder and check that IdeA can write in it: a start that cannot would lose every
    setting and log it writes, so it stops at once and says what to do."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=directory):
            pass
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise AppError(
            ErrorCode.STORE,
            f"its data folder {directory} cannot be written ({reason}). Make it writable or free some space, or "
            "set IDEA_DATA_DIR to a folder you can write",
        ) from exc
    return directory
