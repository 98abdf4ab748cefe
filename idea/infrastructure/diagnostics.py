"""The persistent diagnostics log: `<user-data>/logs/idea.log`, one `<epoch_ms> <message>` line each.

Beacons are written on the hot paths of every ask (a dozen per ask), from any thread: the log stays open in
append mode and each beacon is one `write`. Its size is counted as it grows; at 10 MiB it is rotated
(`idea.log.1` … `.5`). Every so often, and at each rotation, the path is looked at again, so a log removed
or rotated by someone else is reopened rather than written into a file nobody reads. With `echo` on (the
`diagnosticsVerbose` setting) each line is also printed on IdeA's standard error, for a person who started it
from a terminal. `recent_lines` reads the end of the log back, across its rotations, for Help ▸ Diagnostics.
"""

from __future__ import annotations

import os
import stat
import sys
import threading
import time
from pathlib import Path
from typing import BinaryIO

MAX_BYTES = 10 * 1024 * 1024
KEPT_ROTATIONS = 5
RECHECK_EVERY = 256  # beacons between two looks at the path
RECENT_BYTES = 4 * 1024 * 1024  # at most this much of each file is read back
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)


class FileDiagnostics:
    def __init__(self, directory: Path) -> None:
        self._path = directory / "idea.log"
        self._lock = threading.Lock()
        self._fd: int | None = None
        self._size = 0
        self._since_check = 0
        self.echo = False
        directory.mkdir(parents=True, exist_ok=True)

    @property
    def path(self) -> Path:
        return self._path

    def files(self) -> list[Path]:
        """The log and its rotations that exist, newest first."""
        candidates = [self._path, *(self._path.with_name(f"idea.log.{n}") for n in range(1, KEPT_ROTATIONS + 1))]
        return [path for path in candidates if path.is_file()]

    def recent_lines(self, count: int) -> list[str]:
        """The last `count` lines written (fewer when the log holds fewer), oldest first, read from the end of
        the log and then of its rotations; never raises (an unreadable file reads as empty)."""
        return _recent_lines(self.files(), count)

    def beacon(self, message: str) -> None:
        line = f"{time.time_ns() // 1_000_000} {' '.join(message.splitlines())}\n".encode()
        with self._lock:
            try:
                fd = self._open_log()
                os.write(fd, line)
                self._size += len(line)
            except OSError:
                self._close()  # diagnostics must never break the feature they observe; reopened next time
        if self.echo:
            _echo(line)

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
            # O_NONBLOCK: a FIFO put in the log's place fails the open instead of blocking the beacon.
            self._fd = os.open(self._path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | _NONBLOCK, 0o600)
            held = os.fstat(self._fd)
            if not stat.S_ISREG(held.st_mode):
                self._close()
                raise OSError(f"{self._path} is not a regular file")
            self._size = held.st_size
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


class LogFollower:
    """A log read as it grows: its last `count` lines first (across its rotations), then only the lines appended
    since. It starts over when the log was rotated, replaced or cut."""

    def __init__(self, log: FileDiagnostics, count: int) -> None:
        self._log = log
        self._count = count
        self._file: tuple[int, int] | None = _UNREAD  # the log's device and inode when last read; None: no log
        self._offset = 0  # where its next line starts

    def read(self) -> tuple[bool, list[str]]:
        """(started over, lines): all the lines to show when it started over, else the new ones."""
        path = self._log.path
        try:
            info = os.stat(path)
        except OSError:
            if self._file is None:
                return False, []
            self._file, self._offset = None, 0
            return True, self._log.recent_lines(self._count)  # its rotations, if any are left
        if (info.st_dev, info.st_ino) != self._file or info.st_size < self._offset:
            self._file = (info.st_dev, info.st_ino)
            lines, self._offset = _tail(path, self._count)
            older = _recent_lines([file for file in self._log.files() if file != path], self._count - len(lines))
            return True, [*older, *lines]
        if info.st_size == self._offset:
            return False, []
        lines, self._offset = _read_from(path, self._offset)
        return False, lines[-self._count:]


_UNREAD = (-1, -1)


def _recent_lines(files: list[Path], count: int) -> list[str]:
    """The last `count` lines of `files`, the newest file first, oldest line first."""
    gathered: list[str] = []
    for path in files:
        if len(gathered) >= count:
            break
        gathered[:0] = _tail(path, count - len(gathered))[0]
    return gathered[-count:] if count > 0 else []


def _echo(line: bytes) -> None:
    stream = sys.stderr
    if stream is None:  # a windowed build has no standard error
        return
    try:
        stream.write(line.decode())
        stream.flush()
    except (OSError, ValueError):  # a closed or broken stream: the file has the line
        pass


def _tail(path: Path, count: int) -> tuple[list[str], int]:
    """The last `count` whole lines of the file's last `RECENT_BYTES`, and where the line after them starts."""
    try:
        with _open_regular(path) as handle:
            start = max(0, handle.seek(0, os.SEEK_END) - RECENT_BYTES)
            handle.seek(start)
            data = handle.read()
    except OSError:
        return [], 0
    end = data.rfind(b"\n") + 1  # a line being written is read when it is whole
    lines = data[:end].decode("utf-8", "replace").splitlines()
    if start > 0 and lines:
        lines = lines[1:]  # cut in its middle
    return (lines[-count:] if count > 0 else []), start + end


def _read_from(path: Path, offset: int) -> tuple[list[str], int]:
    """The whole lines written from `offset` on (at most `RECENT_BYTES` of them), and where the next starts."""
    try:
        with _open_regular(path) as handle:
            handle.seek(offset)
            data = handle.read(RECENT_BYTES)
    except OSError:
        return [], offset
    end = data.rfind(b"\n") + 1
    if not end and len(data) == RECENT_BYTES:
        end = len(data)  # one line longer than a read: skipped rather than waited for
    return data[:end].decode("utf-8", "replace").splitlines(), offset + end


def _open_regular(path: Path) -> BinaryIO:
    """The file open for reading; OSError, at once, for a FIFO, a socket or a device under its name."""
    fd = os.open(path, os.O_RDONLY | _NONBLOCK | getattr(os, "O_BINARY", 0))
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise OSError(f"{path} is not a regular file")
    return os.fdopen(fd, "rb")
