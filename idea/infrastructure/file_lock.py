"""An exclusive lock between IdeA processes on an open file: `flock` on POSIX, a byte-range lock
(`msvcrt.locking`) on Windows.

Windows byte-range locks are mandatory: a locked byte cannot be read by anyone else. The lock therefore
covers one byte far past any content IdeA writes (`LOCK_OFFSET`), so readers of the file are never
blocked, only other lockers. Windows has no blocking lock without a limit, so the lock is retried until
`timeout_s` and then fails with `FileLockedError`, which says which file another program holds.
"""

from __future__ import annotations

import errno
import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import ModuleType

LOCK_OFFSET = 0x7FFF_FFF0
LOCK_TIMEOUT_S = 10.0
RETRY_S = 0.05


class FileLockedError(OSError):
    def __init__(self, path: str, waited_s: float) -> None:
        super().__init__(
            errno.EACCES, f"{path} is locked by another program (waited {waited_s:g} s); close it and try again"
        )
        self.path = path


@contextmanager
def exclusive_lock(
    fd: int,
    path: str,
    *,
    timeout_s: float = LOCK_TIMEOUT_S,
    windows: ModuleType | None = None,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> Iterator[None]:
    """Hold the lock on `fd` for the block. `windows` is the `msvcrt` module (a fake in tests)."""
    msvcrt = windows if windows is not None else (_msvcrt() if sys.platform == "win32" else None)
    if msvcrt is None:
        import fcntl

        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
        return
    deadline = clock() + timeout_s
    while True:
        os.lseek(fd, LOCK_OFFSET, os.SEEK_SET)
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
            break
        except OSError:
            if clock() >= deadline:
                raise FileLockedError(path, timeout_s) from None
            sleep(RETRY_S)
    try:
        yield
    finally:
        os.lseek(fd, LOCK_OFFSET, os.SEEK_SET)
        try:
            msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
        except OSError:
            pass  # closing the handle releases it as well


def _msvcrt() -> ModuleType:
    import msvcrt

    return msvcrt
