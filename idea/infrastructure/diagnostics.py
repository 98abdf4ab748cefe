"""The persistent diagnostics log: `<user-data>/logs/idea.log`, one `<epoch_ms> <message>` line each.

Beacons are written on the hot paths of every ask (a dozen per ask), from any thread: the log stays open in
append mode and each beacon is one `write`. Its size is counted as it grows; at 5 MiB it is rotated
(`idea.log.1` … `.5`). Every so often, and at each rotation, the path is looked at again, so a log removed
or rotated by someone else is reopened rather than written into a file nobody reads.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

MAX_BYTES = 5 * 1024 * 1024
KEPT_ROTATIONS = 5
RECHECK_EVERY = 256  # beacons between two looks at the path


class FileDiagnostics:
    def __init__(self, directory: Path) -> None:
        self._path = directory / "idea.log"
        self._lock = threading.Lock()
        self._fd: int | None = None
        self._size = 0
        self._since_check = 0
        directory.mkdir(parents=True, exist_ok=True)

    @property
    def path(self) -> Path:
        return self._path

    def beacon(self, message: str) -> None:
        line = f"{time.time_ns() // 1_000_000} {' '.join(message.splitlines())}\n".encode()
        with self._lock:
            try:
                fd = self._open_log()
                os.write(fd, line)
                self._size += len(line)
            except OSError:
                self._close()  # diagnostics must never break the feature they observe; reopened next time

    def close(self) -> None:
        with self._lock:
            self._close()

    def _open_log(self) -> int:
        self._since_check += 1
        if self._fd is not None and (self._size >= MAX_BYTES or self._since_check >= RECHECK_EVERY):
            if self._size >= MAX_BYTES or not self._still_the_log(self._fd):
                self._close()
            self._since_check = 0
        if self._fd is None:
            self._rotate_if_full()
            self._fd = os.open(self._path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            self._size = os.fstat(self._fd).st_size
        return self._fd

    def _still_the_log(self, fd: int) -> bool:
        try:
            on_disk, held = self._path.stat(), os.fstat(fd)
        except OSError:
            return False
        self._size = on_disk.st_size  # another IdeA process may write to it too
        return (on_disk.st_dev, on_disk.st_ino) == (held.st_dev, held.st_ino)

    def _close(self) -> None:
        if self._fd is not None:
            try:
                os.close(self._fd)
            except OSError:
                pass
            self._fd = None

    def _rotate_if_full(self) -> None:
        """A rotation that fails (on Windows, another process holding the log) leaves the log growing a
        little longer: a beacon is worth more than the size limit."""
        try:
            if self._path.stat().st_size < MAX_BYTES:
                return
            for index in range(KEPT_ROTATIONS - 1, 0, -1):
                older = self._path.with_name(f"idea.log.{index}")
                if older.exists():
                    os.replace(older, self._path.with_name(f"idea.log.{index + 1}"))
            os.replace(self._path, self._path.with_name("idea.log.1"))
        except OSError:
            pass
