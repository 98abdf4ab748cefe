"""How the MCP server listens: a Unix socket, or loopback TCP where there is no AF_UNIX (Windows).

Both give the server an asyncio stream per connection and the same rules: one live owner per project
(PROJECT_ALREADY_OPEN otherwise), stale endpoints of a killed process cleared, peers of another user
refused. What differs is kept here; the handshake and everything after it is the server's and identical.

Why loopback TCP rather than a named pipe on Windows: asyncio's pipe server creates its pipes with the
default security descriptor (every local user may open them for reading) and without
PIPE_REJECT_REMOTE_CLIENTS, and a pipe has no half-close, which the bridge and the hook relay use to say
"done" while answers are still on their way. A socket bound to 127.0.0.1 is unreachable from other
machines, keeps the bridge's standard-library socket code, and is made private by three checks: the
per-agent launch token (as on Linux), the peer's owner read from the TCP table (the Windows equivalent of
SO_PEERCRED), and the proof the endpoint file carries, which tells the clients they reached this IdeA.
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import socket
import sys
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import psutil

from idea.application.ports import Diagnostics
from idea.domain.errors import AppError, ErrorCode
from idea.domain.ids import ProjectId, simple_hex
from idea.infrastructure.fs import atomic_write_text
from idea.infrastructure.mcp import endpoint as unix
from idea.infrastructure.mcp.connect import (
    GREETING_TIMEOUT_S,
    LOOPBACK_HOST,
    LOOPBACK_SUFFIX,
    NotIdeaError,
    check_greeting,
    greeting_line,
    is_loopback_endpoint,
    read_first_line,
    read_loopback_endpoint,
)
from idea.infrastructure.private_dirs import ensure_private_dir

ConnectionHandler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]
LIVENESS_PROBE_TIMEOUT_S = 0.5


class Listening(Protocol):
    def release(self) -> None: ...


class McpTransport(Protocol):
    """What the MCP server needs from its transport."""

    async def listen(
        self, endpoint: str, handler: ConnectionHandler, limit: int, diagnostics: Diagnostics
    ) -> tuple[asyncio.AbstractServer, Listening]: ...

    async def admit(self, writer: asyncio.StreamWriter) -> str | None:
        """Why this peer is refused (another user's process), or None once it is admitted and may send its
        handshake (the loopback transport greets it with the proof then, never before the check)."""
        ...


class _BoundSocket(Protocol):
    sock: socket.socket

    def release(self) -> None: ...


async def _serve(
    bound: _BoundSocket, start: Callable[[socket.socket], Awaitable[asyncio.AbstractServer]]
) -> tuple[asyncio.AbstractServer, Listening]:
    """Serve on a bound socket; if serving cannot start, the socket is closed and its endpoint released."""
    try:
        return await start(bound.sock), bound
    except BaseException:
        bound.sock.close()
        bound.release()
        raise


def transport_for(endpoint: str) -> McpTransport:
    return LoopbackTransport() if is_loopback_endpoint(endpoint) else UnixTransport()


class UnixTransport:
    async def listen(
        self, endpoint: str, handler: ConnectionHandler, limit: int, diagnostics: Diagnostics
    ) -> tuple[asyncio.AbstractServer, Listening]:
        bound = unix.bind_endpoint(endpoint, diagnostics)
        return await _serve(bound, lambda sock: asyncio.start_unix_server(handler, sock=sock, limit=limit))

    async def admit(self, writer: asyncio.StreamWriter) -> str | None:
        sock = writer.get_extra_info("socket")
        uid = unix.peer_uid(sock) if sock is not None else None
        if uid is None or uid == os.getuid():
            return None
        return f"uid {uid}"


# --- loopback TCP ---


def mcp_loopback_endpoint(
    project_id: ProjectId, environ: Mapping[str, str] | None = None, *, diagnostics: Diagnostics | None = None
) -> str:
    """`<temp dir>/idea-mcp/<32 hex>.endpoint`: the user's own temporary folder (`%TEMP%`, which Windows
    makes private to the user), `$TMPDIR` elsewhere. Computed from the environment alone, like the socket."""
    env = os.environ if environ is None else environ
    bases = [base for base in (env.get("IDEA_RUNTIME_DIR"), env.get("TEMP"), env.get("TMPDIR")) if base]
    bases.append(_system_temp())
    name = f"{simple_hex(project_id)}{LOOPBACK_SUFFIX}"
    for base in bases:
        directory = Path(base) / unix.ENDPOINT_DIR
        if ensure_private_dir(directory):
            return str(directory / name)
        if diagnostics is not None:
            diagnostics.beacon(f"[mcp] endpoint folder unusable: {directory}")
    return str(Path(bases[-1]) / unix.ENDPOINT_DIR / name)


def _system_temp() -> str:
    import tempfile

    return tempfile.gettempdir()


@dataclass
class LoopbackListening:
    """A listening socket on 127.0.0.1 and its endpoint file; `release` removes the file only if it is
    still ours (a later IdeA may have written its own)."""

    endpoint: str
    sock: socket.socket
    proof: str

    def release(self) -> None:
        try:
            if read_loopback_endpoint(self.endpoint).get("proof") == self.proof:
                os.unlink(self.endpoint)
        except OSError:
            pass


class LoopbackTransport:
    def __init__(self, owner_of: Callable[[tuple[str, int], tuple[str, int]], object] | None = None) -> None:
        # Injectable for tests: who owns the client end of a connection.
        self._owner_of = owner_of or connection_owner
        self._greeting = b""  # set by `listen`

    async def listen(
        self, endpoint: str, handler: ConnectionHandler, limit: int, diagnostics: Diagnostics
    ) -> tuple[asyncio.AbstractServer, Listening]:
        listening = await asyncio.to_thread(bind_loopback, endpoint, diagnostics)
        self._greeting = greeting_line(listening.proof)
        return await _serve(listening, lambda sock: asyncio.start_server(handler, sock=sock, limit=limit))

    async def admit(self, writer: asyncio.StreamWriter) -> str | None:
        """Another user's process is refused before it is greeted: the proof never reaches it (with it, that
        process could later pose as this IdeA on the same port and collect the hooks' tokens)."""
        refusal = await self._refusal(writer)
        if refusal is None:
            writer.write(self._greeting)
            await writer.drain()  # a peer already gone raises ConnectionError: the server ends the connection
        return refusal

    async def _refusal(self, writer: asyncio.StreamWriter) -> str | None:
        peer = writer.get_extra_info("peername")
        local = writer.get_extra_info("sockname")
        if not peer or not local:
            return None
        owner = await asyncio.to_thread(self._owner_of, tuple(local[:2]), tuple(peer[:2]))
        if owner is None or owner == _this_user():
            return None
        return f"user {owner}"


def bind_loopback(endpoint: str, diagnostics: Diagnostics) -> LoopbackListening:
    """Listen on 127.0.0.1 (a port the system chooses) and publish it in the endpoint file."""
    if _loopback_answers(endpoint, diagnostics):
        raise unix._already_open(endpoint)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        if hasattr(socket, "SO_EXCLUSIVEADDRUSE"):  # Windows: no other socket may bind this port over ours
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_EXCLUSIVEADDRUSE, 1)
        sock.bind((LOOPBACK_HOST, 0))
        sock.listen(unix.LISTEN_BACKLOG)
        sock.setblocking(False)
        port = sock.getsockname()[1]
        proof = secrets.token_hex(16)
        document = {"v": 1, "host": LOOPBACK_HOST, "port": port, "proof": proof, "pid": os.getpid()}
        atomic_write_text(endpoint, json.dumps(document) + "\n", mode=0o600)
    except OSError as exc:
        sock.close()
        raise AppError(
            ErrorCode.PROCESS, f"the MCP endpoint {endpoint} could not be bound: {exc.strerror or exc}"
        ) from exc
    return LoopbackListening(endpoint=endpoint, sock=sock, proof=proof)


def _loopback_answers(endpoint: str, diagnostics: Diagnostics) -> bool:
    """True when the IdeA that wrote the endpoint file still serves it; a stale file is removed."""
    try:
        fields = read_loopback_endpoint(endpoint)
    except FileNotFoundError:
        return False
    except OSError as exc:
        if isinstance(exc, ConnectionRefusedError):  # damaged: nobody can use it
            return _remove_stale(endpoint, diagnostics)
        raise AppError(
            ErrorCode.PROCESS, f"the MCP endpoint {endpoint} could not be checked: {exc.strerror or exc}"
        ) from exc
    try:
        with socket.create_connection((LOOPBACK_HOST, fields["port"]), timeout=LIVENESS_PROBE_TIMEOUT_S) as probe:
            probe.settimeout(GREETING_TIMEOUT_S)
            check_greeting(read_first_line(probe), fields["proof"])
    except (NotIdeaError, ConnectionRefusedError, TimeoutError, OSError):
        # Nothing listens there any more, or another program took the port: the file is a corpse.
        return _remove_stale(endpoint, diagnostics)
    return True


def _remove_stale(endpoint: str, diagnostics: Diagnostics) -> bool:
    try:
        os.unlink(endpoint)
        diagnostics.beacon(f"[mcp] removed stale endpoint {endpoint}")
    except FileNotFoundError:
        pass
    return False


def connection_owner(local: tuple[str, int], peer: tuple[str, int]) -> object:
    """The user owning the process at the client end of a loopback connection (the Windows TCP table has
    its process id, as /proc does on Linux), or None when the system does not tell."""
    try:
        connections = psutil.net_connections(kind="tcp4")
    except psutil.Error:
        return None
    for connection in connections:
        if connection.laddr and connection.raddr and tuple(connection.laddr) == peer:
            if tuple(connection.raddr) == local and connection.pid:
                try:
                    return _user_of(psutil.Process(connection.pid))
                except psutil.Error:
                    # Our own processes are always readable: one we cannot read belongs to someone else.
                    return f"of process {connection.pid}"
    return None


def _user_of(process: psutil.Process) -> object:
    if sys.platform == "win32":
        return process.username()
    return process.uids().real


def _this_user() -> object:
    return _user_of(psutil.Process())


async def open_endpoint_stream(
    endpoint: str, limit: int = 2**16
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """An asyncio client connection to either transport, the loopback greeting read and checked (tools and
    tests speak to the endpoint directly; the bridge and the relay use `connect.connect_endpoint`)."""
    if not is_loopback_endpoint(endpoint):
        return await asyncio.open_unix_connection(endpoint, limit=limit)
    fields = read_loopback_endpoint(endpoint)
    reader, writer = await asyncio.open_connection(LOOPBACK_HOST, fields["port"], limit=limit)
    try:
        check_greeting(await asyncio.wait_for(reader.readline(), GREETING_TIMEOUT_S), fields["proof"])
    except BaseException:
        writer.close()
        raise
    return reader, writer
