"""Scratch folders (a profile's Test run): each a new folder under one parent of IdeA's own in the system's
temporary folder, `idea-scratch-<user>`. Every new one first clears the folders there older than a day — a
test run is long over by then — so they do not pile up where nothing else would remove them (Windows never
empties `%TEMP%`). Only entries of that parent are removed, and only when it is a folder of this user's own; a
link is unlinked, never followed; whatever cannot be removed (a folder still in use on Windows) stays for the
next time.
"""

from __future__ import annotations

import getpass
import os
import shutil
import tempfile
import time
from pathlib import Path

from idea.infrastructure.private_dirs import ensure_private_dir

KEEP_SECONDS = 24 * 3600


def scratch_parent() -> Path:
    try:
        user = getpass.getuser()
    except (KeyError, OSError):  # no name for this user id (containers)
        user = str(os.getuid()) if hasattr(os, "getuid") else "user"
    return Path(tempfile.gettempdir()) / f"idea-scratch-{user}"


def new_scratch_dir(prefix: str, parent: Path | None = None, now: float | None = None) -> str:
    """A new empty folder whose name starts with `prefix`, after the parent's day-old folders are removed. A
    parent that is not a folder of this user's own (a link, or one made by someone else in a shared `/tmp`) is
    neither cleared nor used: the folder is made in the temporary folder itself."""
    parent = parent if parent is not None else scratch_parent()
    if not ensure_private_dir(parent):
        return tempfile.mkdtemp(prefix=prefix)
    _clear_old(parent, time.time() if now is None else now)
    return tempfile.mkdtemp(prefix=prefix, dir=parent)


def _clear_old(parent: Path, now: float) -> None:
    try:
        entries = list(os.scandir(parent))
    except OSError:
        return
    for entry in entries:
        try:
            if now - entry.stat(follow_symlinks=False).st_mtime < KEEP_SECONDS:
                continue
            if entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path)
            else:
                os.unlink(entry.path)
        except OSError:
            continue
