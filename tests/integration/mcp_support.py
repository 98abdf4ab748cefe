"""What the tests of the MCP server, the bridge and the hook relay share: a project endpoint served over a
real Unix socket or real loopback TCP (the Windows transport, which runs here too), a raw line client, and
the command lines the agent CLIs are given."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from idea.domain.ids import simple_hex
from idea.domain.mcp_wiring import TOKEN_ENV_VAR, bridge_wiring, hook_relay_args
from idea.infrastructure.agents.executable import idea_command
from idea.infrastructure.agents.hook_command import hook_relay_command
from idea.infrastructure.mcp.endpoint import mcp_endpoint
from idea.infrastructure.mcp.server import McpSocketServer
from idea.infrastructure.mcp.transport import mcp_loopback_endpoint, open_endpoint_stream
from tests.fakes import RecordingDiagnostics
from tests.fakes_gateway import MAIN, PROJECT_ID, TOKENS, FakeGateway

REPO_ROOT = Path(__file__).resolve().parents[2]
PROJECT_HEX = simple_hex(PROJECT_ID)
APP_VERSION = "9.8.7"
REPLY_TIMEOUT_S = 5.0


TRANSPORTS = ("unix", "loopback")


@contextmanager
def project_endpoint(transport: str = "unix") -> Iterator[str]:
    """The project's endpoint under a short base directory of its own: a socket path must fit in 108 bytes,
    and pytest's tmp_path may not. `loopback` is the Windows transport's endpoint file."""
    base = Path(tempfile.mkdtemp(prefix="idea-t-", dir="/tmp"))
    try:
        if transport == "loopback":
            yield mcp_loopback_endpoint(PROJECT_ID, {"IDEA_RUNTIME_DIR": str(base)})
        else:
            yield mcp_endpoint(PROJECT_ID, {"XDG_RUNTIME_DIR": str(base)})
    finally:
        shutil.rmtree(base, ignore_errors=True)


async def open_stream(
    endpoint: str, limit: int = 32 * 1024 * 1024
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A raw connection to either transport; on loopback TCP the server's greeting is read and checked."""
    return await open_endpoint_stream(endpoint, limit)


@dataclass
class Served:
    server: McpSocketServer
    gateway: FakeGateway
    diagnostics: RecordingDiagnostics
    endpoint: str

    def beacons(self, prefix: str) -> list[str]:
        return [line for line in self.diagnostics.lines if line.startswith(prefix)]


@asynccontextmanager
async def serving(endpoint: str, **options: Any) -> AsyncIterator[Served]:
    gateway = FakeGateway()
    diagnostics = RecordingDiagnostics()
    options.setdefault("ask_safety_net_s", 30.0)
    server = McpSocketServer(
        PROJECT_ID, endpoint, gateway, version=APP_VERSION, diagnostics=diagnostics, **options
    )
    await server.start()
    try:
        yield Served(server, gateway, diagnostics, endpoint)
    finally:
        await server.close()


def bridge_declaration(endpoint: str, agent_id: str = MAIN, token: str = TOKENS[MAIN]) -> dict[str, Any]:
    """The `idea` entry of the `.mcp.json` an agent's CLI is given, parsed back from its text."""
    wiring = bridge_wiring(idea_command(), endpoint, PROJECT_HEX, agent_id, token)
    return json.loads(wiring.to_mcp_json())["mcpServers"]["idea"]


def bridge_env(token: str | None) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key != TOKEN_ENV_VAR}
    if token is not None:
        env[TOKEN_ENV_VAR] = token
    return env


def hook_command(source: str, endpoint: str, agent_id: str = MAIN) -> list[str]:
    """The relay as the run dir declares it (`python -I -S relay.py …` from a checkout)."""
    return [*hook_relay_command(), *hook_relay_args(source, endpoint, PROJECT_HEX, agent_id)[1:]]


class RawClient:
    """A bridge-less client speaking the endpoint's wire format directly: a handshake, then JSON lines."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self._next_id = 100

    @classmethod
    async def connect(cls, endpoint: str, handshake: dict[str, Any] | None = None) -> RawClient:
        reader, writer = await open_stream(endpoint)
        client = cls(reader, writer)
        if handshake is None:
            handshake = {"v": 1, "kind": "mcp", "project": PROJECT_HEX, "requester": MAIN, "token": TOKENS[MAIN]}
        await client.send_line(json.dumps(handshake).encode())
        return client

    async def send_line(self, line: bytes) -> None:
        self.writer.write(line + b"\n")
        await self.writer.drain()

    async def send(self, message: dict[str, Any]) -> None:
        await self.send_line(json.dumps(message).encode())

    async def receive(self, timeout: float = REPLY_TIMEOUT_S) -> dict[str, Any]:
        line = await asyncio.wait_for(self.reader.readline(), timeout)
        assert line, "the server closed the connection"
        return json.loads(line)

    async def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        self._next_id += 1
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": self._next_id, "method": method}
        if params is not None:
            message["params"] = params
        await self.send(message)
        response = await self.receive()
        assert response.get("id") == self._next_id, response
        return response

    async def initialize(self, version: str = "2025-06-18") -> dict[str, Any]:
        response = await self.request(
            "initialize",
            {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}},
        )
        await self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return response["result"]

    async def call(self, tool: str, arguments: Any) -> dict[str, Any]:
        return await self.request("tools/call", {"name": tool, "arguments": arguments})

    async def at_end(self, timeout: float = REPLY_TIMEOUT_S) -> bool:
        """True once the server has closed the connection (what it still sends first is discarded)."""
        while await asyncio.wait_for(self.reader.readline(), timeout):
            pass
        return True

    async def close(self) -> None:
        self.writer.close()
        try:
            await self.writer.wait_closed()
        except ConnectionError:
            pass


@asynccontextmanager
async def bridge(
    endpoint: str,
    *,
    token: str | None = TOKENS[MAIN],
    extra_args: tuple[str, ...] = (),
    without: tuple[str, ...] = (),
    wrap: Callable[[list[str]], Sequence[str]] = list,
    stdin: int = subprocess.PIPE,
    stdout: int = subprocess.PIPE,
) -> AsyncIterator[asyncio.subprocess.Process]:
    """The bridge started with the arguments of the agent's `.mcp.json` (but the options named in
    `without`), its command line passed through `wrap` (a sandbox, another entry point); killed if a case
    leaves it running. `stdin` and `stdout` are pipes unless a case gives descriptors of its own."""
    declaration = bridge_declaration(endpoint)
    args = list(declaration["args"])
    for option in without:
        at = args.index(option)
        del args[at : at + 2]
    process = await asyncio.create_subprocess_exec(
        *wrap([declaration["command"], *args, *extra_args]),
        cwd=REPO_ROOT,
        env=bridge_env(token),
        stdin=stdin,
        stdout=stdout,
        stderr=subprocess.PIPE,
    )
    try:
        yield process
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


async def exit_status(process: asyncio.subprocess.Process, timeout: float = 5.0) -> int:
    return await asyncio.wait_for(process.wait(), timeout)


# Fixtures the MCP, bridge and hook tests share; a test module imports the ones it uses.


@pytest.fixture(params=TRANSPORTS)
def endpoint(request: pytest.FixtureRequest) -> Iterator[str]:
    """The project's endpoint on each transport: a Unix socket, and loopback TCP as on Windows."""
    with project_endpoint(request.param) as path:
        yield path


@pytest.fixture
async def served(endpoint: str) -> AsyncIterator[Served]:
    async with serving(endpoint) as served:
        yield served


@pytest.fixture
async def raw(served: Served) -> AsyncIterator[RawClient]:
    """A raw client of `served`, handshake and initialize done."""
    client = await RawClient.connect(served.endpoint)
    await client.initialize()
    yield client
    await client.close()
