"""`idea mcp-server`: the stdio MCP server an agent CLI starts, relaying to its project's endpoint (spec 03 §4).

The bridge connects to the project's endpoint (a Unix socket, or loopback TCP on Windows: `connect.py`) and
introduces its agent with one handshake line. On a Unix socket it then hands its stdin and stdout (the CLI's
pipes) to IdeA, which serves the CLI on them directly, and waits for the session to end
(`stdio_handoff.py`). Otherwise (Windows, a terminal or a file for stdio, an IdeA that declines) it is a
byte relay with two independent pumps: the CLI's stdin to the socket and the socket to the CLI's
stdout. Neither pump waits for the other, because MCP is not one answer per line: notifications have no
answer, and a pending `idea_ask_agent` must not hold back the next request. Bytes are forwarded as soon as
they arrive, so every line is flushed the moment it is complete.

Standard library only, imported lazily by `idea/__main__.py`: the CLI waits for this process to start.
"""

from __future__ import annotations

import errno
import json
import os
import queue
import socket
import stat
import sys
import threading
import time

from idea.domain.launch_secret import TOKEN_ENV_VAR
from idea.infrastructure.mcp.connect import NotIdeaError, connect_endpoint, is_loopback_endpoint
from idea.infrastructure.mcp.stdio_handoff import (
    HANDOFF_FIELD,
    HANDOFF_STDIO,
    READY,
    VERDICT_TIMEOUT_S,
    HandoffRefused,
    hand_over,
    offers_stdio,
    read_verdict,
    refusal_of,
    wait_for_session_end,
)

CONNECT_TIMEOUT_S = 5.0
CONNECT_RETRY_S = 0.2
# After the CLI closes stdin, IdeA answers what it already read (it lets calls finish for half a second,
# then cancels the rest, each with an answer) and hangs up; the bridge relays until then, at most this long.
DRAIN_GRACE_S = 3.0
CHUNK = 64 * 1024
FIRST_LINE_LIMIT = 16 * 1024 * 1024
USAGE = (
    "usage: idea mcp-server --endpoint <socket path> --project <32hex> --requester <agentId> [--token <secret>]"
)
_OPTIONS = ("--endpoint", "--project", "--requester", "--token")

_SUN_PATH_SIZE = 104 if sys.platform == "darwin" else 108
# A socket file with no listener (IdeA restarting) or none yet: worth retrying. Anything else is final.
_WORTH_RETRYING = {errno.ENOENT, errno.ECONNREFUSED, errno.EAGAIN}

# What ends the relay, as reported by the pumps.
_STDIN_CLOSED = "stdin closed"
_SOCKET_CLOSED = "socket closed"
_STDOUT_CLOSED = "stdout closed"


class _UsageError(Exception):
    pass


class _Refused(Exception):
    pass


class _Unreachable(Exception):
    """An endpoint no retry can reach: the reason is final."""


def run_bridge(argv: list[str]) -> int:
    """Exit status: 0 when either side hung up, 1 when IdeA cannot be reached or refuses, 2 on bad usage."""
    try:
        options = _parse(argv)
    except _UsageError as exc:
        _say(str(exc))
        print(USAGE, file=sys.stderr)
        return 2
    endpoint = options["--endpoint"]
    token = options.get("--token") or os.environ.get(TOKEN_ENV_VAR, "")
    if not token:
        _say(f"no launch token ({TOKEN_ENV_VAR} is not set); IdeA will refuse this connection")
    if not options.get("--project"):
        _say("no --project given; IdeA will refuse this connection")
    try:
        sock = _connect(endpoint)
    except _Unreachable as exc:
        _say(f"cannot reach IdeA at {endpoint}: {exc}")
        return 1
    except OSError as exc:
        _say(
            f"cannot reach IdeA at {endpoint} after {CONNECT_TIMEOUT_S:g} s ({exc.strerror or exc}); "
            "is the project open in IdeA?"
        )
        return 1
    offer = offers_stdio(endpoint, os.environ)
    try:
        sock.sendall(_handshake_line(options.get("--project", ""), options.get("--requester", ""), token, offer))
        return _hand_over(sock) if offer else _relay(sock)
    except (_Refused, HandoffRefused) as exc:
        _say(f"IdeA refused the connection: {exc}")
        return 1
    except OSError as exc:
        _say(f"the connection to IdeA failed: {exc.strerror or exc}")
        return 1
    finally:
        sock.close()


def _parse(argv: list[str]) -> dict[str, str]:
    options: dict[str, str] = {}
    args = iter(argv)
    for arg in args:
        name, has_value, value = arg.partition("=")
        if name not in _OPTIONS:
            raise _UsageError(f"unknown argument {arg!r}")
        if not has_value:
            value = next(args, None)  # type: ignore[assignment]
            if value is None:
                raise _UsageError(f"{name} needs a value")
        options[name] = value
    if not options.get("--endpoint"):
        raise _UsageError("--endpoint is required")
    return options


def _handshake_line(project: str, requester: str, token: str, offer: bool) -> bytes:
    handshake = {"v": 1, "kind": "mcp", "project": project, "requester": requester, "token": token}
    if offer:
        handshake[HANDOFF_FIELD] = HANDOFF_STDIO
    return json.dumps(handshake, separators=(",", ":")).encode("utf-8") + b"\n"


def _connect(endpoint: str) -> socket.socket:
    """Retry every 200 ms for at most 5 s while IdeA may still be binding the endpoint of a project it
    opens (no socket yet, or the corpse of a previous run). Any other failure is final at once."""
    unix = not is_loopback_endpoint(endpoint)  # a loopback endpoint is a file naming a TCP port (Windows)
    if unix and len(os.fsencode(endpoint)) >= _SUN_PATH_SIZE:
        raise _Unreachable(f"the path is longer than a Unix socket path may be ({_SUN_PATH_SIZE - 1} bytes)")
    deadline = time.monotonic() + CONNECT_TIMEOUT_S
    while True:
        if unix:
            _check_endpoint_file(endpoint)
        try:
            return connect_endpoint(endpoint, timeout=None)
        except NotIdeaError:
            raise  # another program holds the port of an IdeA that died: retrying cannot help
        except OSError as exc:
            if unix and exc.errno not in _WORTH_RETRYING:
                raise _Unreachable(exc.strerror or str(exc)) from exc
            if time.monotonic() + CONNECT_RETRY_S > deadline:
                raise
        time.sleep(CONNECT_RETRY_S)


def _check_endpoint_file(endpoint: str) -> None:
    try:
        mode = os.stat(endpoint).st_mode
    except FileNotFoundError:
        return  # not bound yet: worth waiting for
    except OSError as exc:
        raise _Unreachable(exc.strerror or str(exc)) from exc
    if not stat.S_ISSOCK(mode):
        raise _Unreachable("it is not a socket")


def _hand_over(sock: socket.socket) -> int:
    """IdeA serves the CLI's stdio itself once it has it; the bridge then only waits for the session's end."""
    verdict = read_verdict(sock)
    if verdict == READY:
        hand_over(sock)
        wait_for_session_end(sock, DRAIN_GRACE_S)
        return 0
    if verdict == "":
        return 0  # IdeA hung up before answering (the project closed)
    if verdict is None:
        _say(f"IdeA did not take this bridge's stdio within {VERDICT_TIMEOUT_S:g} s; relaying")
    return _relay(sock)


def _relay(sock: socket.socket) -> int:
    ends: queue.Queue[str | _Refused] = queue.Queue()
    # Daemon threads: a pump blocked on a pipe the CLI keeps open must not keep the process alive.
    threading.Thread(target=_pump_stdin, args=(sock, ends), daemon=True).start()
    threading.Thread(target=_pump_socket, args=(sock, ends), daemon=True).start()
    end = ends.get()
    if end == _STDIN_CLOSED:
        # The CLI is done: the half-close tells IdeA, which cancels this requester's calls in flight.
        # Answers already on their way still reach the CLI during a short grace.
        try:
            sock.shutdown(socket.SHUT_WR)
        except OSError:
            pass
        try:
            end = ends.get(timeout=DRAIN_GRACE_S)
        except queue.Empty:
            return 0
    if isinstance(end, _Refused):
        raise end
    return 0


def _pump_stdin(sock: socket.socket, ends: queue.Queue[str | _Refused]) -> None:
    while True:
        try:
            chunk = os.read(0, CHUNK)
        except OSError:
            chunk = b""
        if not chunk:
            ends.put(_STDIN_CLOSED)
            return
        try:
            sock.sendall(chunk)
        except OSError:
            return  # IdeA hung up; the socket pump reports why


def _pump_socket(sock: socket.socket, ends: queue.Queue[str | _Refused]) -> None:
    try:
        pending = _first_line(sock)
        while pending:
            _write_stdout(pending)
            pending = sock.recv(CHUNK)
        ends.put(_SOCKET_CLOSED)
    except _Refused as refusal:
        ends.put(refusal)
    except BrokenPipeError:
        ends.put(_STDOUT_CLOSED)
    except OSError:
        ends.put(_SOCKET_CLOSED)


def _first_line(sock: socket.socket) -> bytes:
    """What the socket says first, read up to its first line: a refusal of the handshake is IdeA's only
    line that is not JSON-RPC, and it is never forwarded to the CLI."""
    received = b""
    while b"\n" not in received and len(received) < FIRST_LINE_LIMIT:
        chunk = sock.recv(CHUNK)
        if not chunk:
            break
        received += chunk
    refusal = refusal_of(received.split(b"\n", 1)[0])
    if refusal is not None:
        raise _Refused(refusal)
    return received


def _write_stdout(data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(1, view)
        view = view[written:]


def _say(message: str) -> None:
    print(f"[bridge] {message}", file=sys.stderr, flush=True)
