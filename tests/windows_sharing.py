"""Windows' sharing rule on Linux, for the file operations IdeA's stores make: a file that any handle of this
process holds open cannot be renamed, replaced or deleted (CPython on Windows opens every file without
FILE_SHARE_DELETE; `os.replace` then fails with a sharing violation, as `MoveFileEx` does).

Open handles are read from `/proc/self/fd` at the moment of each rename or delete, so whatever opened the
file (`open`, `os.open`, `mmap`, a worker thread) is seen. Each refusal is recorded and raised as the
`PermissionError` Windows gives (`winerror` 32), which IdeA's replace retries and then reports."""

from __future__ import annotations

import errno
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from idea.infrastructure import fs

ERROR_SHARING_VIOLATION = 32


def open_paths() -> set[str]:
    """The files this process holds open now."""
    found = set()
    for name in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{name}")
        except OSError:  # closed meanwhile (the listing's own descriptor, another thread's file)
            continue
        if target.startswith("/") and not target.endswith(" (deleted)"):
            found.add(target)
    return found


class WindowsSharing:
    def __init__(self) -> None:
        self.refused: list[str] = []  # "replace /path" for each operation Windows would have refused
        self.renames = 0

    def check(self, operation: str, *paths: Any) -> None:
        held = open_paths()
        for path in paths:
            real = os.path.realpath(os.fspath(path))
            if real in held:
                self.refused.append(f"{operation} {real}")
                error = PermissionError(errno.EACCES, "The process cannot access the file because it is being "
                                        "used by another process", os.fspath(path))
                error.winerror = ERROR_SHARING_VIOLATION  # type: ignore[attr-defined]
                raise error

    def wrap(self, operation: str, original: Callable[..., Any], paths: int) -> Callable[..., Any]:
        def checked(*args: Any, **kwargs: Any) -> Any:
            self.check(operation, *args[:paths])
            if operation in ("replace", "rename"):
                self.renames += 1
            return original(*args, **kwargs)

        return checked


@contextmanager
def windows_sharing() -> Iterator[WindowsSharing]:
    """Within the block, renames, replaces and deletes follow Windows' sharing rule."""
    sharing = WindowsSharing()
    with pytest.MonkeyPatch.context() as patch:
        replace = sharing.wrap("replace", os.replace, 2)
        patch.setattr(os, "replace", replace)
        patch.setattr(fs, "replace_file", replace)  # what the stores call (bound at import)
        patch.setattr(os, "rename", sharing.wrap("rename", os.rename, 2))
        patch.setattr(os, "unlink", sharing.wrap("delete", os.unlink, 1))
        patch.setattr(os, "remove", sharing.wrap("delete", os.remove, 1))
        yield sharing

