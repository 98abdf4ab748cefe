"""The temporary files an atomic write leaves when IdeA is killed between writing and renaming them.

`fs.atomic_write_bytes` writes `<dir>/.<name>.tmp-<8 random characters>` (tempfile.mkstemp's alphabet) and
renames it over `<dir>/<name>`; a crash in between leaves that file forever. At start IdeA removes the ones
it recognises — its own names only, regular files only, and only once they are old enough that no write of
another IdeA process (sharing the user-data folder) can still be in progress.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path

TEMP_INFIX = ".tmp-"  # fs.atomic_write_bytes: mkstemp(prefix=f".{name}{TEMP_INFIX}")
_RANDOM_LENGTH = 8  # tempfile's names
_RANDOM_ALPHABET = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_")
LEFTOVER_MIN_AGE_S = 15 * 60  # a write takes milliseconds; a quarter of an hour leaves no doubt


def is_write_leftover_name(name: str) -> bool:
    """`.<name>.tmp-<8 characters of tempfile's alphabet>`, as an atomic write of IdeA names its file."""
    if not name.startswith("."):
        return False
    base, infix, tail = name.rpartition(TEMP_INFIX)
    return bool(infix) and len(base) > 1 and len(tail) == _RANDOM_LENGTH and set(tail) <= _RANDOM_ALPHABET


def sweep_write_leftovers(
    folder: Path,
    *,
    now_s: float,
    min_age_s: float = LEFTOVER_MIN_AGE_S,
    recursive: bool = True,
    skip: Iterable[str] = (),
) -> list[Path]:
    """Remove the leftovers under `folder` (not following links; sub-folders named in `skip` are left
    alone); returns what was removed. Files that vanish or cannot be removed meanwhile are passed over."""
    skipped = set(skip)
    removed: list[Path] = []
    for directory, subfolders, files in os.walk(folder, followlinks=False, onerror=lambda _error: None):
        subfolders[:] = [name for name in subfolders if name not in skipped] if recursive else []
        for name in files:
            if not is_write_leftover_name(name):
                continue
            path = Path(directory) / name
            try:
                info = path.lstat()
                if not stat.S_ISREG(info.st_mode) or now_s - info.st_mtime < min_age_s:
                    continue
                path.unlink()
            except OSError:
                continue
            removed.append(path)
    return removed
