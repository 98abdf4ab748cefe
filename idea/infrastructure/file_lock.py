"""An exclusive lock between IdeA processes on an open file: `flock` on POSIX, a byte-range lock
(`msvcrt.locking`) on Windows.

Windows byte-range locks are mandatory: a locked byte cannot be read by anyone else. The lock therefore
covers one byte far past any content IdeA writes (`LOCK_OFFSET`), so readers of the file are never
blocked, only other lockers. Windows has no blocking lock without a limit, so the lock is retried until
`timeout_s` and then fails with `FileLockedError`, which says which file another program holds.

A file that is ever renamed, replaced or deleted must not be the locked one: Windows refuses to replace a
file while any handle holds it open (CPython opens files without FILE_SHARE_DELETE). Such files are guarded
by a lock file of their own beside them (`locked_file`), which is never renamed nor deleted.
"""

from __future__ import annotations

import errno
import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
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
    wait: bool = True,
    windows: ModuleType | None = None,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> Iterator[None]:
    """Hold the lock on `fd` for the block. `wait=False`: one attempt, `FileLockedError` when another
    holder has it. `windows` is the `msvcrt` module (a fake in tests)."""
    msvcrt = windows if windows is not None else (_msvcrt() if sys.platform == "win32" else None)
    if msvcrt is None:
        import fcntl

        try:
            fcntl.flock(fd, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise FileLockedError(path, 0) from None
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
        return
    deadline = clock() + (timeout_s if wait else 0)
    while True:
        os.lseek(fd, LOCK_OFFSET, os.SEEK_SET)
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
            break
        except OSError:
            if clock() >= deadline:
                raise FileLockedError(path, timeout_s if wait else 0) from None
            sleep(RETRY_S)
    try:
        yield
    finally:
        os.lseek(fd, LOCK_OFFSET, os.SEEK_SET)
        try:
            msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
        except OSError:
            pass  # closing the handle releases it as well


@contextmanager
def locked_file(path: Path, *, wait: bool = True, folder_mode: int = 0o777) -> Iterator[None]:
    """Hold the exclusive lock of the lock file `path` (created, with its folder, when missing; never
    deleted: a deleted lock file would let two holders lock two different files)."""
    flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags, 0o600)
    except FileNotFoundError:
        path.parent.mkdir(mode=folder_mode, parents=True, exist_ok=True)
        fd = os.open(path, flags, 0o600)
    try:
        with exclusive_lock(fd, str(path), wait=wait):
            yield
    finally:
        os.close(fd)


def _msvcrt() -> ModuleType:
    import msvcrt

    return msvcrt
