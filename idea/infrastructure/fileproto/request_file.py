"""Reading one request file without ever blocking (issue 16: a FIFO named `*.json` stopped the door).

Opening a FIFO for reading waits for a writer; reading a device may never end; a symlink may lead
anywhere. A request is a regular file of the agent's own folder, so anything else is refused from its
`lstat` alone, and the file is then opened with `O_NONBLOCK | O_NOFOLLOW` and checked again on the open
descriptor (it may have been swapped in between) before a bounded read.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path

UNREAD_DIGEST = "-"  # the digest of a request that was refused unread

_OPEN_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)  # POSIX: a FIFO opens at once (Windows has none to block on)
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_NOCTTY", 0)
    | getattr(os, "O_BINARY", 0)
)
_OPEN_FLAGS |= getattr(os, "O_CLOEXEC", 0)


@dataclass(frozen=True)
class FileContent:
    """What a request file held: its bytes and their digest, or why it was refused unread."""

    body: bytes | None
    digest: str
    problem: str | None = None


def read_request_file(path: Path, limit: int) -> FileContent | None:
    """The content of the request at `path`, read without blocking; None when there is no file there
    (already answered, or never a file: a folder named `*.json` is not a request)."""
    try:
        kind = _kind(os.lstat(path).st_mode)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return _refused(f"the request file cannot be examined: {exc.strerror or exc}")
    if kind == "directory":
        return None
    if kind != "regular file":
        return _refused(f"a request must be a regular file, and this one is a {kind}; it was not read")
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.EMLINK):  # replaced by a symlink since the lstat
            return _refused("a request must be a regular file, and this one is a symbolic link; it was not read")
        return _refused(f"the request file cannot be opened: {exc.strerror or exc}")
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return _refused(f"a request must be a regular file, and this one is a {_kind(info.st_mode)}")
        if info.st_size > limit:
            return _refused(f"the request is larger than {limit} bytes; it was not read")
        body = _read_at_most(fd, limit + 1)
    except OSError as exc:
        return _refused(f"the request file cannot be read: {exc.strerror or exc}")
    finally:
        os.close(fd)
    if len(body) > limit:
        return _refused(f"the request is larger than {limit} bytes; it was not read")
    return FileContent(body, hashlib.sha256(body).hexdigest()[:16])


def _read_at_most(fd: int, size: int) -> bytes:
    chunks: list[bytes] = []
    remaining = size
    while remaining > 0:
        chunk = os.read(fd, min(remaining, 64 * 1024))
        if not chunk:
            break
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


def _refused(problem: str) -> FileContent:
    return FileContent(None, UNREAD_DIGEST, problem)


def _kind(mode: int) -> str:
    if stat.S_ISREG(mode):
        return "regular file"
    if stat.S_ISDIR(mode):
        return "directory"
    if stat.S_ISLNK(mode):
        return "symbolic link"
    if stat.S_ISFIFO(mode):
        return "named pipe (FIFO)"
    if stat.S_ISSOCK(mode):
        return "socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device"
    return "special file"
