"""Where a project's MCP endpoint lives and how it is bound (spec 03 §3.1-§3.2).

One Unix socket per project, in a private directory; no network port. The path is computed from the
environment alone so the binder, the run-dir writer and the tests always agree on it.
"""

from __future__ import annotations

import atexit
import errno
import os
import socket
import stat
import struct
import sys
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from idea.application.ports import Diagnostics
from idea.domain.errors import AppError, ErrorCode
from idea.domain.ids import ProjectId, simple_hex
from idea.infrastructure.private_dirs import ensure_private_dir

ENDPOINT_DIR = "idea-mcp"
SOCKET_MODE = 0o600
LISTEN_BACKLOG = 64
LIVENESS_PROBE_TIMEOUT_S = 0.2
SWEEP_MIN_AGE_S = 10.0
ALREADY_OPEN = "another IdeA process already has this project open; use its window, or close the project there first"
# Size of sockaddr_un.sun_path, terminating NUL included.
SUN_PATH_SIZE = 104 if sys.platform == "darwin" else 108


def mcp_endpoint(
    project_id: ProjectId, environ: Mapping[str, str] | None = None, *, diagnostics: Diagnostics | None = None
) -> str:
    """`<base>/idea-mcp/<32 hex>.sock` under the first usable base: `$XDG_RUNTIME_DIR`, `$TMPDIR`, the
    system temporary directory. A base is usable when its `idea-mcp` directory is (or can be made) a
    private directory of this user and the socket path fits in a `sockaddr_un`. When none is, the last
    candidate is returned anyway so that binding reports the real error."""
    socket_name = f"{simple_hex(project_id)}.sock"
    bases = _bases(environ)
    for base in bases:
        directory = Path(base) / ENDPOINT_DIR
        path = str(directory / socket_name)
        if not fits_sockaddr(path):
            if diagnostics is not None:
                diagnostics.beacon(f"[mcp] endpoint path too long: {path}")
            continue
        if ensure_private_dir(directory):
            return path
    return str(Path(bases[-1]) / ENDPOINT_DIR / socket_name)


def _bases(environ: Mapping[str, str] | None) -> list[str]:
    env = os.environ if environ is None else environ
    return [base for base in (env.get("XDG_RUNTIME_DIR"), env.get("TMPDIR"), tempfile.gettempdir()) if base]


def sweep_dead_endpoints(diagnostics: Diagnostics, environ: Mapping[str, str] | None = None) -> list[str]:
    """Remove the sockets that killed IdeA processes left in this user's endpoint directories (no process
    listens on them any more); a live endpoint, anything that is not a socket, and a socket bound in the
    last seconds (its process may not listen yet) are left alone. Returns the paths removed. Run once at
    start."""
    if not hasattr(socket, "AF_UNIX"):
        return []  # Windows: endpoints are loopback files, not sockets
    settled_before = time.time() - SWEEP_MIN_AGE_S
    removed = []
    for base in dict.fromkeys(_bases(environ)):
        directory = Path(base) / ENDPOINT_DIR
        try:
            info = os.lstat(directory)
            if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
                continue
            entries = [entry for entry in os.scandir(directory) if entry.name.endswith(".sock")]
        except OSError:
            continue
        for entry in entries:
            try:
                info = os.lstat(entry.path)
                if stat.S_ISSOCK(info.st_mode) and info.st_mtime < settled_before and _is_dead(entry.path):
                    os.unlink(entry.path)
                    removed.append(entry.path)
            except OSError:
                continue
    if removed:
        diagnostics.beacon(f"[mcp] removed dead endpoints left by earlier runs: {', '.join(removed)}")
    return removed


def _is_dead(path: str) -> bool:
    try:
        return _probe(path) == _DEAD
    except OSError:
        return False  # not ours to judge


_ABSENT, _DEAD, _LIVE = "absent", "dead", "live"


def _probe(path: str) -> str:
    """Whether a process listens on the socket at `path`; OSError for what a connect cannot tell."""
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    probe.settimeout(LIVENESS_PROBE_TIMEOUT_S)
    try:
        probe.connect(path)
    except FileNotFoundError:
        return _ABSENT
    except ConnectionRefusedError:
        return _DEAD
    except TimeoutError:
        return _LIVE  # a listener whose backlog is full is still alive
    finally:
        probe.close()
    return _LIVE


def fits_sockaddr(path: str) -> bool:
    return len(os.fsencode(path)) < SUN_PATH_SIZE


@dataclass
class BoundEndpoint:
    """A listening socket and the file it is bound to; `release` removes the file only if it is still ours."""

    path: str
    sock: socket.socket
    inode: int

    def __post_init__(self) -> None:
        _BOUND[self.path] = self

    def release(self) -> None:
        _BOUND.pop(self.path, None)
        try:
            if os.lstat(self.path).st_ino == self.inode:
                os.unlink(self.path)
        except FileNotFoundError:
            pass


# Endpoints bound by this process and not yet released: removed at exit if nothing closed them first.
_BOUND: dict[str, BoundEndpoint] = {}


@atexit.register
def _release_at_exit() -> None:
    for endpoint in list(_BOUND.values()):
        try:
            endpoint.release()
        except OSError:
            pass


def bind_endpoint(path: str, diagnostics: Diagnostics) -> BoundEndpoint:
    """Bind and listen on `path` (mode 0600, backlog 64).

    A socket that answers belongs to another live IdeA process: PROJECT_ALREADY_OPEN, because two
    processes on one project would corrupt its stores. A socket that refuses is the corpse of a killed
    process and is unlinked first; otherwise bind would fail with EADDRINUSE.
    """
    if _endpoint_answers(path, diagnostics):
        raise _already_open(path)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.bind(path)
        os.chmod(path, SOCKET_MODE)
        sock.listen(LISTEN_BACKLOG)
        sock.setblocking(False)
        inode = os.lstat(path).st_ino
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise _already_open(path) from exc  # another process bound it between our probe and bind
        raise AppError(
            ErrorCode.PROCESS, f"the MCP endpoint {path} could not be bound: {exc.strerror or exc}"
        ) from exc
    return BoundEndpoint(path=path, sock=sock, inode=inode)


def _endpoint_answers(path: str, diagnostics: Diagnostics) -> bool:
    try:
        state = _probe(path)
    except OSError as exc:
        raise AppError(
            ErrorCode.PROCESS, f"the MCP endpoint {path} could not be checked: {exc.strerror or exc}"
        ) from exc
    if state == _DEAD:
        try:
            os.unlink(path)
            diagnostics.beacon(f"[mcp] removed stale endpoint {path}")
        except FileNotFoundError:
            pass
    return state == _LIVE


def _already_open(path: str) -> AppError:
    return AppError(
        ErrorCode.PROJECT_ALREADY_OPEN,
        ALREADY_OPEN,
        data={"endpoint": path},
    )


def peer_uid(sock: socket.socket) -> int | None:
    """The user id of the process at the other end of a Unix socket, where the OS tells it (Linux)."""
    if not hasattr(socket, "SO_PEERCRED"):
        return None
    credentials = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    _pid, uid, _gid = struct.unpack("3i", credentials)
    return uid
