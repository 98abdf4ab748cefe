"""Folders of this user's own in shared places (the endpoint folders of `mcp/`, the scratch folders)."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

PRIVATE_DIR_MODE = 0o700


def ensure_private_dir(directory: Path) -> bool:
    """True when `directory` is (or was just made) a folder of this user's own. On POSIX: a real directory,
    owned by this user, of mode 0700 (created, or tightened); in a shared /tmp another user could have planted
    the directory, or a link, first. On Windows: a real directory (the temporary folders there are private to
    the user's profile already). Never raises."""
    if sys.platform == "win32":
        try:
            directory.mkdir(parents=True, exist_ok=True)  # inherits the ACL of the user's profile folder
            return directory.is_dir() and not directory.is_symlink()
        except OSError:
            return False
    try:
        directory.mkdir(mode=PRIVATE_DIR_MODE, exist_ok=True)
        info = os.lstat(directory)
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
            return False
        if stat.S_IMODE(info.st_mode) != PRIVATE_DIR_MODE:
            os.chmod(directory, PRIVATE_DIR_MODE)
        return True
    except OSError:
        return False
