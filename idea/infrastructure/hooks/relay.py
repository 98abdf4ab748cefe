"""`idea hook`: relays one lifecycle event of an agent's CLI to its project's endpoint (spec 05 §3).

Claude Code runs it for each installed hook with the event's JSON on stdin; Codex runs it as its `notify`
program with the JSON as last argument. It must never disturb the CLI that runs it: nothing on stdout (a
Claude hook's stdout can change what the CLI does), exit status 0 whatever happens, done in a fraction of
a second, and only a line on stderr when IdeA is not there to listen.

Standard library only, imported lazily by `idea/__main__.py`.
"""

from __future__ import annotations

import json
import os
import select
import socket
import sys
import threading
import time
from typing import Any

from idea.domain.launch_secret import TOKEN_ENV_VAR
from idea.infrastructure.mcp.connect import connect_endpoint

PAYLOAD_LIMIT = 64 * 1024
CONNECT_TIMEOUT_S = 0.3
STDIN_WAIT_S = 0.25
ANSWER_WAIT_S = 0.2  # time for IdeA to take the event, or to say why it refuses it
STDIN_LIMIT = 16 * 1024 * 1024
SOURCES = ("claude", "codex")
TRUNCATION_MARK = "…[truncated]"
_OPTIONS = ("--source", "--endpoint", "--project", "--agent", "--event")


def run_hook(argv: list[str]) -> int:
    """Always 0: a failing hook must not become the CLI's problem."""
    try:
        _relay(argv)
    except Exception as exc:  # whatever went wrong, the CLI carries on
        _say(str(exc))
    return 0


def _relay(argv: list[str]) -> None:
    options, positional = _parse(argv)
    source = options.get("--source", "")
    if source not in SOURCES or not options.get("--endpoint"):
        raise ValueError(
            "usage: idea hook --source claude|codex --endpoint <socket> --project <32hex> --agent <agentId> "
            "[--event <name>] [<json payload>]"
        )
    raw = _read_stdin() if source == "claude" else (positional[-1].encode("utf-8") if positional else b"{}")
    payload = _capped(_decoded(raw))
    event = options.get("--event") or payload.get("hook_event_name") or payload.get("type") or "unknown"
    handshake = {
        "v": 1,
        "kind": "hook",
        "project": options.get("--project", ""),
        "agent": options.get("--agent", ""),
        "token": os.environ.get(TOKEN_ENV_VAR, ""),
    }
    message = {
        "source": source,
        "event": str(event),
        "receivedAtMs": time.time_ns() // 1_000_000,
        "payload": payload,
    }
    _send(options["--endpoint"], _line(handshake) + _line(message))


def _parse(argv: list[str]) -> tuple[dict[str, str], list[str]]:
    options: dict[str, str] = {}
    positional: list[str] = []
    args = iter(argv)
    for arg in args:
        name, has_value, value = arg.partition("=")
        if name in _OPTIONS:
            options[name] = value if has_value else next(args, "")
        else:
            positional.append(arg)
    return options, positional


def _read_stdin() -> bytes:
    """Everything Claude wrote, without waiting on a stdin nobody writes to (a terminal, an open pipe)."""
    if os.isatty(0):
        return b"{}"
    if sys.platform == "win32":
        return _read_stdin_in_thread(STDIN_WAIT_S)
    deadline = time.monotonic() + STDIN_WAIT_S
    chunks: list[bytes] = []
    size = 0
    while size < STDIN_LIMIT:
        remaining = deadline - time.monotonic()
        if remaining <= 0 or not select.select([0], [], [], remaining)[0]:
            break
        chunk = os.read(0, 64 * 1024)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def _read_stdin_in_thread(wait_s: float) -> bytes:
    """Windows' select takes sockets only: a daemon thread reads the pipe, and what it has read by the
    deadline is the payload (the process exits right after, ending the thread)."""
    chunks: list[bytes] = []
    done = threading.Event()

    def read() -> None:
        size = 0
        try:
            while size < STDIN_LIMIT:
                chunk = os.read(0, 64 * 1024)
                if not chunk:
                    break
                chunks.append(chunk)
                size += len(chunk)
        except OSError:
            pass
        done.set()

    threading.Thread(target=read, daemon=True).start()
    done.wait(wait_s)
    return b"".join(chunks)


def _decoded(raw: bytes) -> dict[str, Any]:
    text = raw.decode("utf-8", "replace")
    try:
        payload = json.loads(text) if text.strip() else {}
    except ValueError:
        return {"raw": text}
    return payload if isinstance(payload, dict) else {"raw": payload}


def _capped(payload: dict[str, Any]) -> dict[str, Any]:
    """The payload within 64 KiB: its longest strings are cut (the beginning of a prompt, which carries
    the ticket header, is kept) until it fits."""
    keep = 16 * 1024
    while len(_line(payload)) > PAYLOAD_LIMIT and keep >= 64:
        payload = _truncated(payload, keep)
        keep //= 2
    if len(_line(payload)) > PAYLOAD_LIMIT:
        return {"truncated": True}
    return payload


def _truncated(value: Any, keep: int) -> Any:
    if isinstance(value, str):
        return value if len(value) <= keep else value[:keep] + TRUNCATION_MARK
    if isinstance(value, dict):
        return {key: _truncated(item, keep) for key, item in value.items()}
    if isinstance(value, list):
        return [_truncated(item, keep) for item in value]
    return value


def _line(document: dict[str, Any]) -> bytes:
    return json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"


def _send(endpoint: str, data: bytes) -> None:
    try:
        sock = connect_endpoint(endpoint, timeout=CONNECT_TIMEOUT_S)
    except OSError as exc:
        raise ConnectionError(f"IdeA is not listening at {endpoint} ({exc.strerror or exc}); event dropped") from exc
    try:
        sock.sendall(data)
        sock.shutdown(socket.SHUT_WR)
        # IdeA closes once it has taken the event; a refusal comes back as one line first.
        sock.settimeout(ANSWER_WAIT_S)
        answer = b""
        try:
            while chunk := sock.recv(4096):
                answer += chunk
        except (TimeoutError, OSError):
            pass
        if answer.startswith(b'{"error"'):
            _say(f"IdeA refused the event: {answer.decode('utf-8', 'replace').strip()}")
    finally:
        sock.close()


def _say(message: str) -> None:
    print(f"[hook] {message}", file=sys.stderr, flush=True)
