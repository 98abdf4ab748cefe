"""`idea mcp-server`, the stdio bridge an agent CLI spawns (spec 03 §4, §13 #1): real processes, real sockets.

The pinned cases of the original are here: initialize + a notification + tools/list give exactly two
responses; stdin closed without a request still sends the handshake and exits 0; an absent endpoint fails
within the connect timeout; the handshake is one JSON object ending with a newline.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

from idea.infrastructure.mcp.bridge import CONNECT_TIMEOUT_S
from idea.infrastructure.mcp.connect import is_loopback_endpoint
from idea.infrastructure.mcp.stdio_handoff import HANDOFF_FIELD, HANDOFF_STDIO, RELAY, verdict_line
from idea.infrastructure.mcp.transport import McpTransport, transport_for
from tests.fakes import RecordingDiagnostics
from tests.fakes_gateway import MAIN, TOKENS
from tests.integration.mcp_support import (
    PROJECT_HEX,
    REPO_ROOT,
    project_endpoint,
    serving,
)
from tests.integration.mcp_support import bridge, endpoint, exit_status  # noqa: F401  (endpoint: a fixture)

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "cli", "version": "1"}},
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
TOOLS_LIST = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
STARTUP_BOUND_S = 2.0  # generous: the measured figure is printed; CI noise must not fail the suite


def line(message: dict[str, object]) -> bytes:
    return json.dumps(message).encode() + b"\n"


@dataclass
class ScriptedEndpoint:
    """A stand-in for IdeA's server that records what the bridge sends and says what the case scripts."""

    received: bytearray = field(default_factory=bytearray)
    handshake_at: float | None = None
    connected: asyncio.Event = field(default_factory=asyncio.Event)
    writer: asyncio.StreamWriter | None = None
    reader: asyncio.StreamReader | None = None
    every_writer: list[asyncio.StreamWriter] = field(default_factory=list)

    transport: McpTransport | None = None

    async def accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.every_writer.append(writer)  # each closed at the end: a connection left open leaks its transport
        assert self.transport is not None
        assert await self.transport.admit(writer) is None  # as IdeA's server does (loopback: the greeting)
        handshake = await reader.readline()
        self.handshake_at = time.monotonic()
        self.received += handshake
        if json.loads(handshake).get(HANDOFF_FIELD) == HANDOFF_STDIO:
            writer.write(verdict_line(RELAY))  # these cases are the relay's: keep the bytes on this connection
        self.connected.set()

    async def read_line(self) -> bytes:
        assert self.reader is not None
        data = await asyncio.wait_for(self.reader.readline(), 5)
        self.received += data
        return data


@asynccontextmanager
async def scripted_endpoint(path: str) -> AsyncIterator[ScriptedEndpoint]:
    scripted = ScriptedEndpoint(transport=transport_for(path))
    # The real transport (for loopback TCP it publishes the endpoint file and greets each admitted connection).
    assert scripted.transport is not None
    server, listening = await scripted.transport.listen(path, scripted.accept, 2**16, RecordingDiagnostics())
    try:
        yield scripted
    finally:
        for writer in scripted.every_writer:
            writer.close()
        server.close()
        await server.wait_closed()
        listening.release()


async def read_message(process: asyncio.subprocess.Process) -> dict[str, object]:
    assert process.stdout is not None
    raw = await asyncio.wait_for(process.stdout.readline(), 5)
    assert raw.endswith(b"\n"), raw
    return json.loads(raw)


async def test_initialize_a_notification_and_tools_list_give_exactly_two_responses(endpoint: str) -> None:
    async with serving(endpoint), bridge(endpoint) as process:
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(line(INITIALIZE) + line(INITIALIZED) + line(TOOLS_LIST))
        await process.stdin.drain()  # stdin stays open: a lockstep relay would now wait forever

        first = await read_message(process)
        second = await read_message(process)
        process.stdin.close()

        assert first["id"] == 1 and "result" in first
        assert second["id"] == 2 and "tools" in second["result"]  # type: ignore[operator]
        assert await exit_status(process) == 0
        assert await process.stdout.read() == b""  # nothing for the notification


async def test_stdin_closed_without_a_request_exits_0_after_the_handshake(endpoint: str) -> None:
    async with scripted_endpoint(endpoint) as scripted, bridge(endpoint) as process:
        assert process.stdin is not None
        process.stdin.close()

        assert await exit_status(process) == 0
        await asyncio.wait_for(scripted.connected.wait(), 5)
        assert json.loads(scripted.received)["requester"] == MAIN


async def test_the_handshake_is_one_json_object_ending_with_a_newline(endpoint: str) -> None:
    async with scripted_endpoint(endpoint) as scripted, bridge(endpoint) as process:
        await asyncio.wait_for(scripted.connected.wait(), 5)

        assert scripted.received.endswith(b"\n") and scripted.received.count(b"\n") == 1
        handoff = {} if is_loopback_endpoint(endpoint) else {HANDOFF_FIELD: HANDOFF_STDIO}  # pipes: offered
        assert json.loads(scripted.received) == {
            "v": 1,
            "kind": "mcp",
            "project": PROJECT_HEX,
            "requester": MAIN,
            "token": TOKENS[MAIN],
            **handoff,
        }
        assert process.stdin is not None
        process.stdin.close()
        assert await exit_status(process) == 0


async def test_an_absent_endpoint_fails_within_the_connect_timeout(endpoint: str) -> None:
    started = time.monotonic()
    async with bridge(endpoint) as process:
        status = await exit_status(process, timeout=CONNECT_TIMEOUT_S + 5)
        assert process.stderr is not None and process.stdout is not None
        stderr = (await process.stderr.read()).decode()
        stdout = await process.stdout.read()
    elapsed = time.monotonic() - started

    assert status == 1
    assert f"cannot reach IdeA at {endpoint}" in stderr and "is the project open in IdeA?" in stderr
    assert stdout == b""
    assert CONNECT_TIMEOUT_S - 0.5 <= elapsed < CONNECT_TIMEOUT_S + 3


async def test_an_endpoint_that_appears_late_is_reached_by_the_retries(endpoint: str) -> None:
    async with bridge(endpoint) as process:
        await asyncio.sleep(0.5)  # the case is about time passing: the endpoint is bound after the bridge started
        async with scripted_endpoint(endpoint) as scripted:
            await asyncio.wait_for(scripted.connected.wait(), 5)
            assert process.stdin is not None
            process.stdin.close()
            assert await exit_status(process) == 0


async def test_a_refused_handshake_prints_the_reason_and_never_the_token(endpoint: str) -> None:
    async with serving(endpoint) as served, bridge(endpoint, token="wrong-" + TOKENS[MAIN]) as process:
        assert process.stdin is not None and process.stdout is not None and process.stderr is not None
        process.stdin.write(line(INITIALIZE))
        await process.stdin.drain()

        assert await exit_status(process) == 1
        stderr = (await process.stderr.read()).decode()
        stdout = await process.stdout.read()

    assert "IdeA refused the connection: PERMISSION_DENIED: unauthenticated caller" in stderr
    assert stdout == b""  # the refusal is not JSON-RPC: it never reaches the CLI
    assert TOKENS[MAIN] not in stderr
    assert served.gateway.connected == []


async def test_the_token_is_never_printed(endpoint: str) -> None:
    async with serving(endpoint), bridge(endpoint) as process:
        assert process.stdin is not None and process.stdout is not None and process.stderr is not None
        process.stdin.write(line(INITIALIZE))
        await process.stdin.drain()
        await read_message(process)
        process.stdin.close()
        assert await exit_status(process) == 0
        output = await process.stdout.read() + await process.stderr.read()

    assert TOKENS[MAIN].encode() not in output


async def test_a_missing_token_is_named_on_stderr(endpoint: str) -> None:
    async with serving(endpoint), bridge(endpoint, token=None) as process:
        assert process.stdin is not None and process.stderr is not None
        process.stdin.close()
        assert await exit_status(process) == 1
        stderr = (await process.stderr.read()).decode()

    assert "IDEA_MCP_TOKEN is not set" in stderr and "unauthenticated caller" in stderr


async def test_the_token_option_wins_over_the_environment(endpoint: str) -> None:
    async with (
        scripted_endpoint(endpoint) as scripted,
        bridge(endpoint, token=None, extra_args=("--token", "t0k")),
    ):
        await asyncio.wait_for(scripted.connected.wait(), 5)
        assert json.loads(scripted.received)["token"] == "t0k"


async def test_server_messages_flow_while_the_cli_is_silent(endpoint: str) -> None:
    async with scripted_endpoint(endpoint) as scripted, bridge(endpoint) as process:
        await asyncio.wait_for(scripted.connected.wait(), 5)
        assert scripted.writer is not None
        scripted.writer.write(b'{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}\n')
        await scripted.writer.drain()

        assert (await read_message(process))["method"] == "notifications/progress"


async def test_stdin_end_half_closes_and_late_answers_still_reach_the_cli(endpoint: str) -> None:
    async with scripted_endpoint(endpoint) as scripted, bridge(endpoint) as process:
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(line(TOOLS_LIST))
        await process.stdin.drain()
        await asyncio.wait_for(scripted.connected.wait(), 5)
        assert json.loads(await scripted.read_line())["id"] == 2
        process.stdin.close()

        assert scripted.reader is not None and scripted.writer is not None
        assert await asyncio.wait_for(scripted.reader.read(), 5) == b""  # the bridge half-closed
        scripted.writer.write(b'{"jsonrpc":"2.0","id":2,"result":{"tools":[]}}\n')
        await scripted.writer.drain()

        assert (await read_message(process))["id"] == 2
        assert await exit_status(process) == 0


async def test_the_server_hanging_up_ends_the_bridge(endpoint: str) -> None:
    async with scripted_endpoint(endpoint) as scripted, bridge(endpoint) as process:
        await asyncio.wait_for(scripted.connected.wait(), 5)
        assert scripted.writer is not None
        scripted.writer.close()

        assert await exit_status(process) == 0  # stdin is still open


def test_usage_errors_exit_2_with_a_usage_line() -> None:
    for args in ([], ["--endpoint"], ["--endpoint", "/x.sock", "--bogus", "1"]):
        done = subprocess.run(
            [sys.executable, "-m", "idea", "mcp-server", *args],
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
            timeout=10,
            stdin=subprocess.DEVNULL,
            check=False,
        )
        assert done.returncode == 2, args
        assert "usage: idea mcp-server --endpoint" in done.stderr
        assert done.stdout == ""


async def test_startup_is_fast(endpoint: str) -> None:
    async with scripted_endpoint(endpoint) as scripted:
        started = time.monotonic()
        async with bridge(endpoint):
            await asyncio.wait_for(scripted.connected.wait(), 5)
        assert scripted.handshake_at is not None
        startup = scripted.handshake_at - started

    print(f"bridge: spawn to handshake {startup * 1000:.0f} ms")
    assert startup < STARTUP_BOUND_S


def test_the_bridge_and_the_relay_import_nothing_heavy() -> None:
    probe = (
        "import sys; import idea.__main__, idea.infrastructure.mcp.bridge, idea.infrastructure.hooks.relay; "
        "print(sorted(m for m in ('pydantic', 'mcp', 'PySide6', 'anyio', 'watchdog', 'asyncio') if m in sys.modules))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=True,
        env=dict(os.environ),
    )
    assert loaded.stdout.strip() == "[]"
