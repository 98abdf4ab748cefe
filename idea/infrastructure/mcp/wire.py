"""The line transport of one MCP connection (spec 03 §3.4-§3.5): what the SDK leaves to its transport.

- Lines are read with a bound (16 MiB); a longer line is answered once with -32700 and skipped whole.
- A line that is not a JSON-RPC message is answered (-32700, -32600) instead of dropped, and so is a
  request whose `id` is neither a string nor an integer (`true`, `null`, `1.5`).
- Every request read owes exactly one answer. `AnswerLedger` counts what is owed; at the end of the
  input the connection first lets the calls in flight finish (`eof_drain_s`), then cancels those still
  running (they answer CANCELLED), and as a last resort answers what remains with CONNECTION_CLOSED
  itself, so that no request is ever dropped in silence. A request the client cancelled itself
  (`notifications/cancelled`) owes nothing: the protocol forbids answering it.
- One writer writes every outgoing message, one per line, and never a second answer to one request.

The SDK reads and writes through `LineReader` and `LineWriter` directly: a line read becomes the SDK's
message in the task that reads it, and an answer is on the wire when the handler's send returns. No
queue and no task of the transport's own stands between the socket and the SDK (each would cost a turn
of the event loop per message).
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from collections.abc import Callable
from typing import Any, Protocol

import anyio
from mcp import types
from mcp.shared.dispatcher import as_request_id, coerce_request_id
from mcp.shared.message import SessionMessage
from mcp.types.version import HANDSHAKE_PROTOCOL_VERSIONS
from pydantic import ValidationError

LINE_LIMIT = 16 * 1024 * 1024
# Offers the SDK can speak are echoed; any other offer is answered with this version (spec 03 §3.4).
FALLBACK_PROTOCOL_VERSION = "2025-06-18"
EOF_DRAIN_S = 0.5  # calls in flight when the input ends may finish this long before they are cancelled
CANCEL_GRACE_S = 2.0  # cancelled calls then have this long to write their CANCELLED answer
INPUT_ENDED = "the client closed its input before IdeA could answer this request"


class _TooLong:
    """A line longer than the limit, already skipped."""


TOO_LONG = _TooLong()


async def read_line(reader: asyncio.StreamReader) -> bytes | _TooLong:
    """The next line (b"" at end of input), or TOO_LONG for a line over the reader's limit. A long line is
    consumed to its end, so its tail is never read as a line of its own."""
    try:
        return await reader.readuntil(b"\n")
    except asyncio.IncompleteReadError as end:
        return end.partial  # the last line had no line feed, or the input ended
    except asyncio.LimitOverrunError as overrun:
        await reader.readexactly(overrun.consumed)
    while True:  # skip the rest of the long line
        try:
            await reader.readuntil(b"\n")
            return TOO_LONG
        except asyncio.IncompleteReadError:
            return TOO_LONG
        except asyncio.LimitOverrunError as overrun:
            await reader.readexactly(overrun.consumed)


def decode(line: bytes) -> SessionMessage | types.JSONRPCError:
    """The message a line carries, or the error response that answers an unreadable line."""
    try:
        document = json.loads(line)
    except ValueError:
        return error_response(None, types.PARSE_ERROR, "Parse error: each line must be one JSON-RPC message")
    except RecursionError:
        return error_response(None, types.PARSE_ERROR, "Parse error: the message is nested too deeply")
    if isinstance(document, dict) and "id" in document and as_request_id(document["id"]) is None:
        return error_response(
            None,
            types.INVALID_REQUEST,
            f"Invalid Request: `id` must be a string or an integer, not {json.dumps(document['id'])[:40]}",
        )
    if isinstance(document, dict) and document.get("method") == "initialize":
        _apply_version_fallback(document)
    try:
        return SessionMessage(types.jsonrpc_message_adapter.validate_python(document, by_name=False))
    except ValidationError:
        request_id = as_request_id(document.get("id")) if isinstance(document, dict) else None
        return error_response(request_id, types.INVALID_REQUEST, "Invalid Request")


def _apply_version_fallback(initialize: dict[str, Any]) -> None:
    """Present an unknown protocol offer as IdeA's fallback version, so the SDK's negotiation (which
    would answer its newest version) answers 2025-06-18 and records that version for the connection."""
    params = initialize.get("params")
    if isinstance(params, dict):
        offer = params.get("protocolVersion")
        if isinstance(offer, str) and offer not in HANDSHAKE_PROTOCOL_VERSIONS:
            params["protocolVersion"] = FALLBACK_PROTOCOL_VERSION


def error_response(request_id: str | int | None, code: int, message: str, data: Any = None) -> types.JSONRPCError:
    error = types.ErrorData(code=code, message=message) if data is None else types.ErrorData(
        code=code, message=message, data=data
    )
    return types.JSONRPCError(jsonrpc="2.0", id=request_id, error=error)


def describe_validation(error: ValidationError, limit: int = 3) -> str:
    """What pydantic found wrong, for a person: `arguments: Input should be a valid dictionary`."""
    problems = []
    for problem in error.errors()[:limit]:
        where = ".".join(str(part) for part in problem.get("loc", ()))
        problems.append(f"{where}: {problem.get('msg')}" if where else str(problem.get("msg")))
    more = len(error.errors()) - limit
    return "; ".join(problems) + (f"; and {more} more" if more > 0 else "")


class AnswerLedger:
    """The requests of one connection that still owe their answer."""

    def __init__(self) -> None:
        self._owed: Counter[str | int] = Counter()
        self._transport_answers: dict[str | int, types.JSONRPCError] = {}
        self._settled = asyncio.Event()
        self._settled.set()

    def read(self, message: SessionMessage) -> None:
        """A message from the client: a request owes an answer; a cancellation forgives one."""
        inner = message.message
        if isinstance(inner, types.JSONRPCRequest):
            self._owed[coerce_request_id(inner.id)] += 1
            self._settled.clear()
        elif isinstance(inner, types.JSONRPCNotification) and inner.method == "notifications/cancelled":
            cancelled = as_request_id((inner.params or {}).get("requestId"))
            if cancelled is not None:
                self._settle(coerce_request_id(cancelled))

    def may_write(self, message: SessionMessage) -> bool:
        """Whether an outgoing message may be written; an answer settles its request. False for a second
        answer to a request the transport already answered."""
        inner = message.message
        if not isinstance(inner, types.JSONRPCResponse | types.JSONRPCError) or inner.id is None:
            return True
        key = coerce_request_id(inner.id)
        own = self._transport_answers.get(key)
        if own is not None:
            return inner is own
        self._settle(key)
        return True

    def owed(self) -> list[str | int]:
        return list(self._owed.elements())

    def answer_here(self, request_id: str | int) -> types.JSONRPCError:
        """The transport's own answer to a request nothing else will answer."""
        answer = error_response(request_id, types.CONNECTION_CLOSED, INPUT_ENDED)
        self._transport_answers[request_id] = answer
        self._settle(request_id)
        return answer

    async def settled(self) -> None:
        await self._settled.wait()

    def _settle(self, key: str | int) -> None:
        if self._owed[key] > 0:
            self._owed[key] -= 1
        if self._owed[key] <= 0:
            del self._owed[key]
        if not self._owed:
            self._settled.set()


class LineWriter:
    """The connection's only writer, and the SDK's write stream: each message is written as one line the
    moment it is sent (no queue, no writer task between the handler and the socket), in the order sent,
    and never as a second answer to one request. Once the peer is gone, sends return at once, so that no
    handler blocks on a dead connection."""

    def __init__(self, writer: LineSink, ledger: AnswerLedger) -> None:
        self._writer = writer
        self._ledger = ledger
        self._broken = False
        self._closed = False

    async def send(self, message: SessionMessage, /) -> None:
        if self._closed:
            raise anyio.ClosedResourceError
        if not self._ledger.may_write(message) or self._broken:
            return
        line = message.message.model_dump_json(by_alias=True, exclude_unset=True).encode("utf-8") + b"\n"
        try:
            self._writer.write(line)
            await self._writer.drain()
        except ConnectionError:
            self._broken = True

    async def aclose(self) -> None:
        self._closed = True

    async def __aenter__(self) -> LineWriter:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()


class LineSink(Protocol):
    """Where the lines go: an asyncio stream writer (a socket, or the pipe a handed-over stdout is)."""

    def write(self, data: bytes) -> None: ...

    async def drain(self) -> None: ...


class LineReader:
    """The SDK's read stream: each `receive` reads the connection's next line and returns its message;
    unreadable lines are answered here and skipped. At the end of the input it settles what is still
    owed (see the module's docstring) before it says the stream ended, which ends the SDK's session."""

    def __init__(
        self,
        reader: asyncio.StreamReader,
        answers: LineWriter,
        ledger: AnswerLedger,
        *,
        on_input_end: Callable[[], None],
        cancel_calls: Callable[[], None],
        eof_drain_s: float = EOF_DRAIN_S,
    ) -> None:
        self._reader = reader
        self._answers = answers
        self._ledger = ledger
        self._on_input_end = on_input_end
        self._cancel_calls = cancel_calls
        self._eof_drain_s = eof_drain_s
        self._ended = False

    async def receive(self) -> SessionMessage:
        if self._ended:
            raise anyio.EndOfStream
        while True:
            try:
                line = await read_line(self._reader)
            except ConnectionError:
                line = b""
            if isinstance(line, _TooLong):
                error = error_response(None, types.PARSE_ERROR, f"message longer than {LINE_LIMIT} bytes")
                await self._answers.send(SessionMessage(error))
                continue
            if not line:
                self._ended = True
                await self._settle_owed()
                raise anyio.EndOfStream
            if not line.strip():
                continue
            decoded = decode(line)
            if isinstance(decoded, SessionMessage):
                self._ledger.read(decoded)
                return decoded
            await self._answers.send(SessionMessage(decoded))

    async def _settle_owed(self) -> None:
        self._on_input_end()
        with anyio.move_on_after(self._eof_drain_s):
            await self._ledger.settled()
        if self._ledger.owed():
            self._cancel_calls()
            with anyio.move_on_after(CANCEL_GRACE_S):
                await self._ledger.settled()
        for request_id in self._ledger.owed():
            await self._answers.send(SessionMessage(self._ledger.answer_here(request_id)))

    def __aiter__(self) -> LineReader:
        return self

    async def __anext__(self) -> SessionMessage:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        self._ended = True

    async def __aenter__(self) -> LineReader:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()
