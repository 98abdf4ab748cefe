"""The line transport's promise, without the SDK: every request read owes one answer, and at the end of
the input what nothing answered is answered by the transport itself, never twice."""

from __future__ import annotations

import asyncio
import json

from mcp import types
from mcp.shared.message import SessionMessage

from idea.infrastructure.mcp import wire


def lines(*messages: dict[str, object]) -> bytes:
    return b"".join(json.dumps(message).encode() + b"\n" for message in messages)


def request(request_id: object, method: str = "ping") -> dict[str, object]:
    return {"jsonrpc": "2.0", "id": request_id, "method": method}


class Sink:
    """What the line writer writes to: the lines, kept."""

    def __init__(self) -> None:
        self.lines: list[bytes] = []

    def write(self, data: bytes) -> None:
        self.lines.append(data)

    async def drain(self) -> None:
        return None


async def run_transport(data: bytes, answer: set[object], *, drain_s: float = 0.05) -> list[dict[str, object]]:
    """Feed `data` then the end of input to the line reader; a stand-in SDK reads it and answers the ids in
    `answer` through the line writer. Returns what was written, one message per line."""
    reader = asyncio.StreamReader(limit=wire.LINE_LIMIT)
    reader.feed_data(data)
    reader.feed_eof()
    ledger = wire.AnswerLedger()
    sink = Sink()
    answers = wire.LineWriter(sink, ledger)
    cancelled = []
    lines = wire.LineReader(
        reader,
        answers,
        ledger,
        on_input_end=lambda: None,
        cancel_calls=lambda: cancelled.append(True),
        eof_drain_s=drain_s,
    )
    async with lines, answers:
        async for message in lines:
            inner = message.message
            if isinstance(inner, types.JSONRPCRequest) and inner.id in answer:
                await answers.send(SessionMessage(types.JSONRPCResponse(jsonrpc="2.0", id=inner.id, result={})))
    assert all(line.endswith(b"\n") and line.count(b"\n") == 1 for line in sink.lines)
    return [json.loads(line) for line in sink.lines]


def ids_and_codes(written: list[dict[str, object]]) -> list[tuple[object, int | None]]:
    codes = [message["error"]["code"] if "error" in message else None for message in written]  # type: ignore[index]
    return [(message["id"], code) for message, code in zip(written, codes, strict=True)]


async def test_what_nothing_answers_is_answered_once_by_the_transport() -> None:
    written = await run_transport(lines(request(1), request(2), request("x")), answer={1})

    assert len(written) == 3
    assert set(ids_and_codes(written)) == {(1, None), (2, types.CONNECTION_CLOSED), ("x", types.CONNECTION_CLOSED)}


async def test_a_late_answer_after_the_transports_own_is_never_written() -> None:
    ledger = wire.AnswerLedger()
    ledger.read(SessionMessage(types.JSONRPCRequest(jsonrpc="2.0", id=7, method="ping")))
    own = ledger.answer_here(7)

    late = SessionMessage(types.JSONRPCResponse(jsonrpc="2.0", id=7, result={}))

    assert own.error.code == types.CONNECTION_CLOSED
    assert ledger.may_write(late) is False and ledger.owed() == []


async def test_a_request_the_client_cancelled_owes_nothing() -> None:
    cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "3"}}

    written = await run_transport(lines(request(3), cancel), answer=set())

    assert written == []


async def test_an_oversize_line_is_one_error_and_the_next_line_is_read() -> None:
    data = b'{"id": 1, "pad": "' + b"x" * (wire.LINE_LIMIT * 2) + b'"}\n' + lines(request(2))

    written = await run_transport(data, answer={2})

    assert ids_and_codes(written) == [(None, types.PARSE_ERROR), (2, None)]
