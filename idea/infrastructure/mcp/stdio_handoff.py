"""The bridge's stdio handed to IdeA over a Unix socket (Linux, macOS): the bridge's side, and the wire both
sides share.

A relaying bridge costs every MCP message two more process hops (the CLI's pipe to the bridge, the bridge to
the socket, and back). After an accepted handshake the bridge can instead pass its own standard input and
output (the CLI's pipes) to IdeA with SCM_RIGHTS; IdeA's server then reads the CLI's requests and writes its
answers on them directly, and the bridge only waits:

1. the bridge offers: its handshake carries `"handoff": "stdio"`;
2. IdeA authenticates the handshake as always (token, peer's user); a refusal is the usual error line;
   otherwise it answers one line, `{"handoff":"ready"}` (send them) or `{"handoff":"relay"}` (relay as before);
3. on `ready`, the bridge sends one byte carrying file descriptors 0 and 1. IdeA checks them (a pipe or a
   socket each, readable and writable) and serves MCP on them; if it cannot, it writes an error line;
4. the session ends when IdeA closes the connection: it reached the end of the CLI's input (and answered
   what it read, as the relay's half-close leads it to), the bridge went away, or the project closed.

The bridge keeps its exit rules: it exits 0 when IdeA hangs up, and once the CLI has closed its end of the
bridge's stdin (or stdout) it waits at most `DRAIN_GRACE_S` for IdeA to finish. IdeA treats the end of this
connection as the end of the CLI's input, so a bridge that is killed ends its session as before.

The bridge offers only when both descriptors can be served this way: a pipe or a socket each (what every
CLI spawns an MCP server with), distinct, stdin readable and stdout writable. A terminal or a file keeps the
relay, and so does `IDEA_MCP_BRIDGE=relay` in its environment. Standard library only (the bridge imports it).
"""

from __future__ import annotations

import json
import math
import os
import select
import socket
import stat
import time
from collections.abc import Mapping

from idea.infrastructure.mcp.connect import is_loopback_endpoint, read_first_line

HANDOFF_FIELD = "handoff"
HANDOFF_STDIO = "stdio"
READY = "ready"
RELAY = "relay"
BRIDGE_MODE_ENV = "IDEA_MCP_BRIDGE"  # "relay": never hand the stdio over
# An IdeA that knows the handoff answers the offer as soon as it has checked the handshake; an older one says
# nothing and waits for JSON-RPC. Past this wait the bridge relays.
VERDICT_TIMEOUT_S = 5.0
STDIO_FDS = (0, 1)
CHUNK = 64 * 1024


def verdict_line(verdict: str) -> bytes:
    """IdeA's answer to an offer: `ready` or `relay`."""
    return json.dumps({HANDOFF_FIELD: verdict}, separators=(",", ":")).encode("utf-8") + b"\n"


def offers_stdio(endpoint: str, environ: Mapping[str, str]) -> bool:
    """Whether this bridge offers its stdio: a Unix socket endpoint, fd passing available, the descriptors
    fit (see the module's docstring), and the relay not asked for."""
    if is_loopback_endpoint(endpoint) or not hasattr(socket, "send_fds"):
        return False
    if environ.get(BRIDGE_MODE_ENV, "").strip().lower() == RELAY:
        return False
    return stdio_problem(*STDIO_FDS) is None


def stdio_problem(stdin: int, stdout: int) -> str | None:
    """Why these two descriptors cannot be served as a CLI's stdio, or None. IdeA's server asks the same of
    the descriptors it receives."""
    import fcntl  # POSIX only: never reached on Windows (loopback endpoints relay)

    identities = []
    for fd, name, modes in ((stdin, "stdin", (os.O_RDONLY, os.O_RDWR)), (stdout, "stdout", (os.O_WRONLY, os.O_RDWR))):
        try:
            status = os.fstat(fd)
            access = fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE
        except OSError as exc:
            return f"{name}: {exc.strerror or exc}"
        if not (stat.S_ISFIFO(status.st_mode) or stat.S_ISSOCK(status.st_mode)):
            return f"{name} is neither a pipe nor a socket"
        if access not in modes:
            return f"{name} is not open for {'reading' if name == 'stdin' else 'writing'}"
        identities.append((status.st_dev, status.st_ino))
    if identities[0] == identities[1]:
        return "stdin and stdout are one channel"
    return None


class HandoffRefused(Exception):
    """IdeA's error line, after the offer or after the descriptors were sent."""


def read_verdict(sock: socket.socket) -> str | None:
    """IdeA's answer to the offer: `ready`, `relay`, "" when IdeA hung up instead, None when it said nothing
    in time (an IdeA older than the handoff). Raises HandoffRefused with IdeA's message for an error line."""
    sock.settimeout(VERDICT_TIMEOUT_S)
    try:
        line = read_first_line(sock)
    except TimeoutError:
        return None
    finally:
        sock.settimeout(None)
    if not line:
        return ""
    refusal = refusal_of(line)
    if refusal is not None:
        raise HandoffRefused(refusal)
    try:
        verdict = json.loads(line).get(HANDOFF_FIELD)
    except (ValueError, AttributeError):
        verdict = None
    return verdict if verdict in (READY, RELAY) else None


def hand_over(sock: socket.socket) -> None:
    """Send file descriptors 0 and 1 to IdeA, with one byte."""
    socket.send_fds(sock, [b"\n"], list(STDIO_FDS))  # type: ignore[attr-defined,unused-ignore]


def wait_for_session_end(
    sock: socket.socket, drain_grace_s: float, stdio: tuple[int, int] = STDIO_FDS
) -> None:
    """Wait until IdeA hangs up; once the CLI closed its end of stdin or stdout, at most `drain_grace_s`
    more. Raises HandoffRefused when IdeA writes an error line instead (it could not use the descriptors)."""
    poller = select.poll()
    poller.register(sock, select.POLLIN)
    # Hang-ups only: the data on stdin is IdeA's to read. A pipe reports POLLHUP once its writer is gone,
    # a socket POLLRDHUP once its peer stopped writing; both report POLLERR/POLLHUP on their write side.
    poller.register(stdio[0], getattr(select, "POLLRDHUP", 0))
    poller.register(stdio[1], 0)
    first_line: bytes | None = b""
    deadline: float | None = None
    while True:
        timeout_ms = None if deadline is None else max(0, math.ceil((deadline - time.monotonic()) * 1000))
        events = poller.poll(timeout_ms)
        if not events and deadline is not None:
            return
        for fd, _event in events:
            if fd == sock.fileno():
                chunk = sock.recv(CHUNK)
                if not chunk:
                    return
                if first_line is not None:  # IdeA says nothing once it serves; an error line is its only word
                    first_line += chunk
                    if b"\n" in first_line or len(first_line) > CHUNK:
                        refusal = refusal_of(first_line.split(b"\n", 1)[0])
                        if refusal is not None:
                            raise HandoffRefused(refusal)
                        first_line = None
            else:
                poller.unregister(fd)  # stays hung up: watched once
                if deadline is None:
                    deadline = time.monotonic() + drain_grace_s


def refusal_of(line: bytes) -> str | None:
    """IdeA's message when `line` is its error line (`{"error": {"code", "message"}}`), else None."""
    if not line.startswith(b'{"error"'):
        return None
    try:
        error = json.loads(line)["error"]
        return f"{error['code']}: {error['message']}"
    except (ValueError, KeyError, TypeError):
        return line.decode("utf-8", "replace").strip()
