"""Round trip of one `idea_list_agents` call through IdeA's MCP door, next to the bare cost of a Unix socket.

The server runs on its own thread and event loop, as on IdeA's core thread; the clients run on the main
thread. Three paths are timed, call after call, in the same run:

- a bare Unix-socket echo of one line (the floor);
- a raw client on the project's socket (server and MCP SDK, no bridge);
- the MCP SDK's stdio client spawning the real bridge (`python -m idea mcp-server`), as an agent CLI does.

The gateway behind the server answers at once, so the figures are the door's own cost.

    python bench/mcp_roundtrip.py [--calls N] [--warmup N] [--transport unix|loopback]

`--transport loopback` serves the endpoint over the Windows transport (loopback TCP, endpoint file, proof).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shlex
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from mcp import ClientSession, StdioServerParameters, stdio_client

from idea import __version__
from idea.domain.ids import simple_hex
from idea.domain.mcp_wiring import bridge_wiring
from idea.domain.orchestration import Command, Outcome, Requester, Source
from idea.infrastructure.agents.executable import idea_command
from idea.infrastructure.core_loop import CoreLoop
from idea.infrastructure.mcp.endpoint import mcp_endpoint
from idea.infrastructure.mcp.server import McpSocketServer
from idea.infrastructure.mcp.transport import mcp_loopback_endpoint, open_endpoint_stream

REPO_ROOT = Path(__file__).resolve().parents[1]
PROJECT_ID = "0f3c2a9e-6b1d-4c1e-9d0a-2f6f1f7b8c11"
AGENT_ID = "dce19c75-9669-4e45-b8de-9950025157da"
TOKEN = "bench-" + "0" * 58
LISTING = {"you": "Main", "agents": [{"name": "Main", "agentId": AGENT_ID, "running": True}]}


class InstantGateway:
    """Answers every command at once: only the door is measured."""

    project_id = PROJECT_ID

    def authenticate(self, agent_id: str, token: str) -> bool:
        return agent_id == AGENT_ID and token == TOKEN

    async def dispatch(self, requester: Requester, command: Command, source: Source) -> Outcome:
        return Outcome(detail=json.dumps(LISTING), data=LISTING)

    def bridge_connected(self, agent_id: str) -> None: ...

    def bridge_initialized(self, agent_id: str) -> None: ...

    def bridge_disconnected(self, agent_id: str) -> None: ...

    def hook_event(self, agent_id: str, source: str, event: str, payload: dict[str, Any]) -> None: ...


class SilentDiagnostics:
    def beacon(self, message: str) -> None: ...


async def timed(call: Callable[[], Awaitable[object]], calls: int, warmup: int) -> list[float]:
    for _ in range(warmup):
        await call()
    samples = []
    for _ in range(calls):
        started = time.perf_counter()
        await call()
        samples.append(time.perf_counter() - started)
    return samples


async def echo_round_trips(path: str, calls: int, warmup: int) -> list[float]:
    reader, writer = await asyncio.open_unix_connection(path)
    line = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "idea_list_agents"}})

    async def once() -> bytes:
        writer.write(line.encode() + b"\n")
        await writer.drain()
        return await reader.readline()

    try:
        return await timed(once, calls, warmup)
    finally:
        writer.close()


async def raw_round_trips(endpoint: str, calls: int, warmup: int) -> list[float]:
    reader, writer = await open_endpoint_stream(endpoint, limit=16 * 1024 * 1024)
    handshake = {"v": 1, "kind": "mcp", "project": simple_hex(PROJECT_ID), "requester": AGENT_ID, "token": TOKEN}
    writer.write(json.dumps(handshake).encode() + b"\n")
    initialize = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "bench", "version": "1"},
        },
    }
    writer.write(json.dumps(initialize).encode() + b"\n")
    writer.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    await writer.drain()
    await reader.readline()
    request_id = 0

    async def once() -> bytes:
        nonlocal request_id
        request_id += 1
        call = {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": {"name": "idea_list_agents"}}
        writer.write(json.dumps(call).encode() + b"\n")
        await writer.drain()
        answer = await reader.readline()
        assert b'"isError":false' in answer, answer
        return answer

    try:
        return await timed(once, calls, warmup)
    finally:
        writer.close()


async def bridged_round_trips(endpoint: str, calls: int, warmup: int) -> list[float]:
    wiring = bridge_wiring(idea_command(), endpoint, simple_hex(PROJECT_ID), AGENT_ID, TOKEN)
    params = StdioServerParameters(
        command=wiring.command, args=list(wiring.args), env=dict(wiring.env), cwd=REPO_ROOT
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()

        async def once() -> object:
            result = await session.call_tool("idea_list_agents", {})
            assert not result.is_error
            return result

        return await timed(once, calls, warmup)


def percentiles(samples: list[float]) -> tuple[float, float, float]:
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
    return statistics.median(ordered) * 1000, p99 * 1000, statistics.mean(ordered) * 1000


async def measure(arguments: argparse.Namespace) -> None:
    core = CoreLoop("bench-core").start()
    with tempfile.TemporaryDirectory(prefix="idea-b-", dir="/tmp") as base:
        if arguments.transport == "loopback":  # the Windows transport, measured here on Linux
            endpoint = mcp_loopback_endpoint(PROJECT_ID, {"IDEA_RUNTIME_DIR": base})
        else:
            endpoint = mcp_endpoint(PROJECT_ID, {"XDG_RUNTIME_DIR": base})
        echo_path = str(Path(base) / "echo.sock")
        server = McpSocketServer(
            PROJECT_ID,
            endpoint,
            InstantGateway(),
            version=__version__,
            diagnostics=SilentDiagnostics(),
            ask_safety_net_s=60,
        )

        async def echo(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            while line := await reader.readline():
                writer.write(line)
                await writer.drain()
            writer.close()

        async def start() -> asyncio.AbstractServer:
            await server.start()
            return await asyncio.start_unix_server(echo, path=echo_path)

        echo_server = core.submit(start()).result()
        try:
            rows = [
                (
                    "bare Unix-socket echo (one line)",
                    await echo_round_trips(echo_path, arguments.calls, arguments.warmup),
                ),
                (
                    "raw client -> socket -> server",
                    await raw_round_trips(endpoint, arguments.calls, arguments.warmup),
                ),
                (
                    "SDK client -> bridge -> socket -> server",
                    await bridged_round_trips(endpoint, arguments.calls, arguments.warmup),
                ),
            ]
        finally:

            async def stop() -> None:
                echo_server.close()
                await server.close()

            core.submit(stop()).result()
            core.stop()

    print(
        f"`{shlex.join(['python', *sys.argv])}` ({arguments.calls} calls per path after {arguments.warmup} warm-up,"
    )
    print(f"Python {sys.version.split()[0]}, server on its own thread and loop)")
    print()
    print("| path | p50 (ms) | p99 (ms) | mean (ms) |")
    print("|---|---:|---:|---:|")
    for name, samples in rows:
        p50, p99, mean = percentiles(samples)
        print(f"| {name} | {p50:.3f} | {p99:.3f} | {mean:.3f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--warmup", type=int, default=100)
    parser.add_argument("--transport", choices=("unix", "loopback"), default="unix")
    asyncio.run(measure(parser.parse_args()))


if __name__ == "__main__":
    main()
