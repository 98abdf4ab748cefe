"""`idea hook`: relays one lifecycle event of an agent's CLI to its project's endpoint (spec 05 §3).

Claude Code and Gemini CLI run it for each installed hook with the event's JSON on stdin; Codex runs it as
its `notify` program with the JSON as last argument. It must never disturb the CLI that runs it: nothing on
stdout (a hook's stdout can change what the CLI does), exit status 0 whatever happens, and only a line on
stderr when IdeA is not there to listen — none for Gemini, which shows a hook's stderr to the person.

It runs on every turn of every agent, and the CLI waits for it, so it must start about as fast as Python
itself: the run dir declares it as `python -I -S -c "import relay…"` (no site, no `idea` package, see
`agents/hook_command.py`) and it imports only built-in and C modules (`posix` or `nt`, `_socket`, `select`
or `_thread`, `time`, `_operator`). The payload is forwarded as the CLI wrote it, on its own line after the
event line (`"payloadFollows": true`); IdeA parses it. Only a payload over 64 KiB loads the `json` module,
to cut its longest strings. Also reachable as `idea hook` (same code).

Either transport (`mcp/connect.py` is the reference; this module repeats its client side without `json`
or `socket`): a Unix socket path, or on Windows an endpoint file `….endpoint` naming a loopback TCP port
and a proof that IdeA says first on each connection; nothing is sent before the proof matches, so the
token never reaches a program that took over the port of an IdeA that died.

Wire format, one connection per event: a handshake line `{"v":1,"kind":"hook","project":…,"agent":…,
"token":…}`, an event line `{"source":…,"event":…,"receivedAtMs":…,"payloadFollows":true}`, the payload
line; IdeA closes the connection once it has taken the event, or answers one `{"error":…}` line first.
"""

from __future__ import annotations

import sys
import time

try:
    import posix as _os
except ImportError:  # Windows
    import nt as _os  # type: ignore[import-not-found, no-redef]

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    import _socket

PAYLOAD_LIMIT = 64 * 1024
CONNECT_TIMEOUT_S = 0.3
GREETING_WAIT_S = 1.0  # loopback: IdeA greets from its event loop, which may be busy for a moment
STDIN_WAIT_S = 0.25
ANSWER_WAIT_S = 0.2  # time for IdeA to take the event, or to say why it refuses it
STDIN_LIMIT = 16 * 1024 * 1024
SOURCES = ("claude", "codex", "gemini")
STDIN_SOURCES = ("claude", "gemini")  # the event's JSON on stdin; Codex gives it as last argument
QUIET_SOURCES = ("gemini",)
TRUNCATION_MARK = "…[truncated]"
TOKEN_ENV_VAR = "IDEA_MCP_TOKEN"  # idea.domain.launch_secret.TOKEN_ENV_VAR (not imported: start time)
LOOPBACK_SUFFIX = ".endpoint"  # idea.infrastructure.mcp.connect's, as are the two below
LOOPBACK_HOST = "127.0.0.1"
GREETING_LIMIT = 4096
_OPTIONS = ("--source", "--endpoint", "--project", "--agent", "--event")
USAGE = (
    "usage: idea hook --source claude|codex|gemini --endpoint <endpoint> --project <32hex> --agent <agentId> "
    "[--event <name>] [<json payload>]"
)


def run_hook(argv: list[str]) -> int:
    """Always 0: a failing hook must not become the CLI's problem."""
    try:
        _relay(argv)
    except Exception as exc:  # whatever went wrong, the CLI carries on
        if _parse(argv)[0].get("--source") not in QUIET_SOURCES:
            _say(str(exc))
    return 0


def _relay(argv: list[str]) -> None:
    options, positional = _parse(argv)
    source = options.get("--source", "")
    if source not in SOURCES or not options.get("--endpoint"):
        raise ValueError(USAGE)
    if source in STDIN_SOURCES:
        raw = _read_stdin()
    else:
        raw = positional[-1].encode("utf-8", "replace") if positional else b"{}"
    handshake = (
        b'{"v":1,"kind":"hook","project":' + _quoted(options.get("--project", ""))
        + b',"agent":' + _quoted(options.get("--agent", ""))
        + b',"token":' + _quoted(_environ(TOKEN_ENV_VAR))
        + b"}\n"
    )  # fmt: skip
    event = (
        b'{"source":' + _quoted(source)
        + b',"event":' + _quoted(options.get("--event", ""))
        + b',"receivedAtMs":' + str(time.time_ns() // 1_000_000).encode()
        + b',"payloadFollows":true}\n'
    )  # fmt: skip
    _send(options["--endpoint"], handshake + event + payload_line(raw))


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


def _environ(name: str) -> str:
    if _os.__name__ == "posix":  # bytes keys and values
        return _os.environ.get(name.encode(), b"").decode("utf-8", "replace")
    return _os.environ.get(name, "")


def _read_stdin() -> bytes:
    """Everything Claude wrote, without waiting on a stdin nobody writes to (a terminal, an open pipe)."""
    try:
        if _os.isatty(0):
            return b"{}"
    except OSError:
        return b"{}"
    if _os.__name__ == "nt":
        return _read_stdin_in_thread()
    import select

    deadline = time.monotonic() + STDIN_WAIT_S
    chunks: list[bytes] = []
    size = 0
    while size < STDIN_LIMIT:
        remaining = deadline - time.monotonic()
        if remaining <= 0 or not select.select([0], [], [], remaining)[0]:
            break
        chunk = _os.read(0, 64 * 1024)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def _read_stdin_in_thread() -> bytes:
    """Windows' select takes sockets only: a thread reads the pipe, and what it has read by the deadline is
    the payload (the process exits right after, ending the thread)."""
    import _thread

    chunks: list[bytes] = []
    done = _thread.allocate_lock()
    done.acquire()

    def read() -> None:
        size = 0
        try:
            while size < STDIN_LIMIT:
                chunk = _os.read(0, 64 * 1024)
                if not chunk:
                    break
                chunks.append(chunk)
                size += len(chunk)
        except OSError:
            pass
        finally:
            done.release()

    _thread.start_new_thread(read, ())
    done.acquire(timeout=STDIN_WAIT_S)
    return b"".join(chunks)


def payload_line(raw: bytes) -> bytes:
    """The payload as one line. JSON's line ends are only ever blanks between tokens (inside strings they are
    escaped), so turning them into spaces keeps a JSON text intact; anything else is IdeA's to judge."""
    if len(raw) > PAYLOAD_LIMIT:
        return _capped_line(raw)
    return raw.replace(b"\r", b" ").replace(b"\n", b" ") + b"\n"


def _capped_line(raw: bytes) -> bytes:
    """A payload over 64 KiB: its longest strings are cut (the beginning of a prompt, which carries the
    ticket header, is kept) until it fits."""
    import json

    text = raw.decode("utf-8", "replace")
    try:
        payload = json.loads(text)
    except ValueError:
        payload = {"raw": text}
    if not isinstance(payload, dict):
        payload = {"raw": payload}

    def line(document: object) -> bytes:
        return json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"

    keep = 16 * 1024
    while len(line(payload)) > PAYLOAD_LIMIT and keep >= 64:
        payload = _truncated(payload, keep)
        keep //= 2
    return line(payload) if len(line(payload)) <= PAYLOAD_LIMIT else line({"truncated": True})


def _truncated(value: object, keep: int) -> object:
    if isinstance(value, str):
        return value if len(value) <= keep else value[:keep] + TRUNCATION_MARK
    if isinstance(value, dict):
        return {key: _truncated(item, keep) for key, item in value.items()}
    if isinstance(value, list):
        return [_truncated(item, keep) for item in value]
    return value


def _quoted(text: str) -> bytes:
    """`text` as a JSON string."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    if any(ch < " " for ch in escaped):
        escaped = "".join(ch if ch >= " " else "\\u%04x" % ord(ch) for ch in escaped)
    return ('"' + escaped + '"').encode("utf-8", "replace")


def _send(endpoint: str, data: bytes) -> None:
    import _socket

    try:
        sock = _connect(endpoint)
    except OSError as exc:
        raise ConnectionError(f"IdeA is not listening at {endpoint} ({exc.strerror or exc}); event dropped") from exc
    try:
        sock.sendall(data)
        sock.shutdown(_socket.SHUT_WR)
        # IdeA closes once it has taken the event; a refusal comes back as one line first.
        sock.settimeout(ANSWER_WAIT_S)
        answer = b""
        try:
            while chunk := sock.recv(4096):
                answer += chunk
        except OSError:  # socket.timeout is an OSError
            pass
        if answer.startswith(b'{"error"'):
            raise ConnectionRefusedError(f"IdeA refused the event: {answer.decode('utf-8', 'replace').strip()}")
    finally:
        sock.close()


def _connect(endpoint: str) -> _socket.socket:
    """A connected `_socket.socket`: the Unix socket itself, or the loopback port whose greeting carried the
    endpoint file's proof."""
    import _socket

    proof = None
    if not endpoint.endswith(LOOPBACK_SUFFIX):
        sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
        address: object = endpoint
    else:
        port, proof = _loopback_endpoint(endpoint)
        sock = _socket.socket(_socket.AF_INET, _socket.SOCK_STREAM)
        address = (LOOPBACK_HOST, port)
    try:
        sock.settimeout(CONNECT_TIMEOUT_S)
        sock.connect(address)
        if proof is not None:
            sock.settimeout(GREETING_WAIT_S)
            _check_greeting(_first_line(sock), proof)
    except BaseException:
        sock.close()
        raise
    return sock


def _loopback_endpoint(endpoint: str) -> tuple[int, bytes]:
    """The port and the proof IdeA wrote in the endpoint file (OSError when it is missing or damaged)."""
    with open(endpoint, "rb") as handle:
        text = handle.read(GREETING_LIMIT)
    port, proof = _field(text, b"port"), _field(text, b"proof")
    if port is None or not port.isdigit() or not 0 < int(port) < 65536 or not proof:
        raise ConnectionRefusedError(f"the endpoint file {endpoint} is damaged")
    return int(port), proof


def _first_line(sock: _socket.socket) -> bytes:
    """The greeting (nothing follows it until IdeA has read the handshake)."""
    received = b""
    while b"\n" not in received and len(received) < GREETING_LIMIT:
        chunk = sock.recv(GREETING_LIMIT)
        if not chunk:
            break
        received += chunk
    return received


def _check_greeting(line: bytes, proof: bytes) -> None:
    from _operator import _compare_digest

    said = _field(line, b"idea")
    if said is None or not _compare_digest(said, proof):
        raise ConnectionRefusedError("the program at this endpoint's port is not the IdeA that wrote it (stale endpoint)")


def _field(text: bytes, key: bytes) -> bytes | None:
    """The value of `"key": <digits or a string without escapes>` in a small flat JSON object IdeA wrote
    (the endpoint file, the greeting), read without the `json` module; None when absent or of another form."""
    at = text.find(b'"' + key + b'"')
    if at < 0:
        return None
    rest = text[at + len(key) + 2 :].lstrip()
    if not rest.startswith(b":"):
        return None
    rest = rest[1:].lstrip()
    if rest.startswith(b'"'):
        end = rest.find(b'"', 1)
        value = rest[1:end] if end > 0 else b""
        return value if value and b"\\" not in value else None
    digits = len(rest) - len(rest.lstrip(b"0123456789"))
    return rest[:digits] or None


def _say(message: str) -> None:
    print(f"[hook] {message}", file=sys.stderr, flush=True)


if __name__ == "__main__":  # `python -I -S relay.py …`, as the run dir declares it
    sys.exit(run_hook(sys.argv[1:]))
