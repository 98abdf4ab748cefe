"""How the bridge and the hook relay reach their project's endpoint, whichever transport serves it.

Two transports share one wire format (a handshake line, then JSON lines):
- a Unix socket, `<runtime dir>/idea-mcp/<project>.sock` (Linux, macOS);
- loopback TCP (Windows, where asyncio's Proactor loop has no AF_UNIX): the endpoint is a small file
  `<temp dir>/idea-mcp/<project>.endpoint` in the user's private temporary folder, written by IdeA once it
  listens on 127.0.0.1. It names the port and a proof: a random value IdeA sends as its first line on every
  connection. The client compares it before it sends anything, so the launch token never reaches another
  program that took over the port of an IdeA that died.

The endpoint's form tells which transport serves it. Standard library only: the bridge and the relay
import this for every tool call and hook.
"""

from __future__ import annotations

import hmac
import json
import socket
from typing import Any

LOOPBACK_SUFFIX = ".endpoint"
LOOPBACK_HOST = "127.0.0.1"
GREETING_LIMIT = 4096
GREETING_TIMEOUT_S = 2.0


class NotIdeaError(ConnectionRefusedError):
    """Something answers at the endpoint's port, but it is not the IdeA that wrote the endpoint file."""


def is_loopback_endpoint(endpoint: str) -> bool:
    return endpoint.endswith(LOOPBACK_SUFFIX)


def read_loopback_endpoint(endpoint: str) -> dict[str, Any]:
    """The endpoint file's fields; OSError when it is missing, ValueError-derived OSError when unreadable."""
    with open(endpoint, "rb") as handle:
        raw = handle.read(GREETING_LIMIT)
    try:
        fields = json.loads(raw.decode("utf-8"))
        port = fields["port"]
        proof = fields["proof"]
        if not (isinstance(port, int) and 0 < port < 65536 and isinstance(proof, str) and proof):
            raise ValueError
    except (ValueError, KeyError, TypeError, UnicodeDecodeError):
        raise ConnectionRefusedError(f"the endpoint file {endpoint} is damaged") from None
    return fields


def greeting_line(proof: str) -> bytes:
    """What IdeA says first on a loopback connection."""
    return json.dumps({"v": 1, "idea": proof}, separators=(",", ":")).encode("utf-8") + b"\n"


def connect_endpoint(endpoint: str, timeout: float | None = None) -> socket.socket:
    """A connected socket to the endpoint, greeting checked; OSError (with a strerror) when it cannot be."""
    if not is_loopback_endpoint(endpoint):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)  # type: ignore[attr-defined,unused-ignore]
        try:
            sock.settimeout(timeout)
            sock.connect(endpoint)
        except BaseException:
            sock.close()
            raise
        return sock
    fields = read_loopback_endpoint(endpoint)
    sock = socket.create_connection((LOOPBACK_HOST, fields["port"]), timeout=timeout or GREETING_TIMEOUT_S)
    try:
        sock.settimeout(min(timeout, GREETING_TIMEOUT_S) if timeout else GREETING_TIMEOUT_S)
        check_greeting(read_first_line(sock), fields["proof"])
        sock.settimeout(timeout)
    except BaseException:
        sock.close()
        raise
    return sock


def read_first_line(sock: socket.socket) -> bytes:
    """The greeting, read byte by byte: nothing after its newline may be taken from the socket."""
    received = bytearray()
    while len(received) < GREETING_LIMIT:
        byte = sock.recv(1)
        if not byte:
            break
        received += byte
        if byte == b"\n":
            break
    return bytes(received)


def check_greeting(line: bytes, proof: str) -> None:
    try:
        said = json.loads(line.decode("utf-8")).get("idea")
    except (ValueError, AttributeError, UnicodeDecodeError):
        said = None
    if not (isinstance(said, str) and hmac.compare_digest(said.encode(), proof.encode())):
        raise NotIdeaError("the program at this endpoint's port is not the IdeA that wrote it (stale endpoint)")
