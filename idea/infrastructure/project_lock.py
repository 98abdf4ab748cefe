"""One IdeA process per project folder, whatever its user-data or runtime folder.

The endpoint's socket already refuses a second process that computes the same socket path, but a second
IdeA with another user-data folder (another project id) or another `XDG_RUNTIME_DIR` (an ssh session)
computes another path, and both would then write the same `.ideai/` files. So the doors also hold an
exclusive `flock` on the project folder itself for as long as the project is open: nothing is written
to take it, a crash releases it with the process, and a symlinked path to the same folder meets the
same lock. Where `flock` does not exist the lock is not taken (the endpoint still guards).
"""

from __future__ import annotations

import os

from idea.domain.errors import AppError, ErrorCode
from idea.infrastructure.mcp.endpoint import ALREADY_OPEN

try:
    import fcntl
except ImportError:  # not on Windows
    fcntl = None  # type: ignore[assignment]


class ProjectLock:
    def __init__(self, root: str) -> None:
        self._root = root
        self._fd: int | None = None

    def acquire(self) -> None:
        """Raises AppError(PROJECT_ALREADY_OPEN) when another process holds the folder."""
        if fcntl is None or self._fd is not None:
            return
        try:
            fd = os.open(self._root, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0))
        except OSError:
            return  # a folder IdeA cannot open is refused by the steps that need it, with their own words
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise AppError(ErrorCode.PROJECT_ALREADY_OPEN, ALREADY_OPEN, data={"root": self._root}) from None
        except OSError:
            os.close(fd)  # a file system without locks: the endpoint still guards
            return
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the descriptor drops the lock
            self._fd = None
