"""Round trip of one `idea_list_agents` call through IdeA's MCP door, next to the bare cost of a socket.

IdeA's side runs in this process, as in the app: the MCP server on its own thread and event loop (a fake
orchestration core that answers at once, so the figures are the door's own cost; the real diagnostics log
writer, which logs every call), and beside it, on the same loop, an echo server on the same kind of socket.
The client is another process, as an agent CLI is, and times every path call after call, interleaved in
blocks so that the machine's load falls on all alike:

- echo: one JSON-RPC-sized line echoed over a Unix socket (loopback TCP with `--transport loopback`): the
  floor, measured in the same run;
- raw: the client on the project's endpoint itself (handshake, then JSON-RPC lines): the server alone;
- bridge, relaying: the client starts the real bridge (`idea mcp-server`, the command line of the agent's
  `.mcp.json`) and speaks JSON-RPC lines on its stdin and stdout, with `IDEA_MCP_BRIDGE=relay`;
- bridge: the same as an agent CLI starts it (on a Unix socket the bridge hands its stdio to IdeA);
- SDK client → bridge: the official MCP SDK's stdio client and `ClientSession.call_tool` (its own parsing
  and validation included, which a CLI's MCP client does in its own way).

Then each path alone, for the CPU time IdeA's server thread spends per call (the stages' cost without the
waiting). The issue's target: the bridge's p50 at most 3x the echo's.

    python bench/mcp_roundtrip.py [--calls N] [--warmup N] [--block N] [--transport unix|loopback]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import idea
from idea import __version__
from idea.domain.ids import simple_hex
from idea.domain.mcp_wiring import bridge_wiring
from idea.domain.orchestration.commands import Command, Outcome, Requester, Source
from idea.infrastructure.agents.executable import idea_command
from idea.infrastructure.core_loop import CoreLoop
from idea.infrastructure.diagnostics import FileDiagnostics
from idea.infrastructure.mcp.endpoint import mcp_endpoint
from idea.infrastructure.mcp.server import McpSocketServer
from idea.infrastructure.mcp.transport import mcp_loopback_endpoint

SOURCE_ROOT = Path(idea.__file__).resolve().parents[1]  # the checkout whose IdeA is measured
PROJECT_ID = "0f3c2a9e-6b1d-4c1e-9d0a-2f6f1f7b8c11"
AGENT_ID = "dce19c75-9669-4e45-b8de-9950025157da"
TOKEN = "bench-" + "0" * 58
LISTING = {"you": "Main", "agents": [{"name": "Main", "agentId": AGENT_ID, "running": True}]}
CALL = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "idea_list_agents"}}
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}},
}
ROWS = (
    ("echo", "bare socket echo (one line)"),
    ("raw", "raw client -> socket -> server"),
    ("relay", "client -> bridge relaying -> socket -> server"),
    ("bridge", "client -> bridge (as a CLI starts it) -> server"),
    ("sdk", "SDK client -> bridge (as a CLI starts it) -> server"),
)


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


# ---- the client process (an agent CLI's side) ----


class _Lines:
    """JSON-RPC lines over a reader and a writer (a socket, or a bridge's stdout and stdin)."""

    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter

    async def initialize(self) -> None:
        self.writer.write(json.dumps(INITIALIZE).encode() + b"\n")
        self.writer.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        await self.writer.drain()
        answer = await self.reader.readline()
        assert b'"result"' in answer, answer

    async def once(self, request_id: int) -> None:
        CALL["id"] = request_id
        self.writer.write(json.dumps(CALL).encode() + b"\n")
        await self.writer.drain()
        answer = await self.reader.readline()
        assert b'"isError":false' in answer, answer

    async def close(self) -> None:
        self.writer.close()


class _Echo(_Lines):
    async def open(self, spec: dict[str, Any]) -> _Echo:
        if spec["echo_port"]:
            self.reader, self.writer = await asyncio.open_connection("127.0.0.1", spec["echo_port"])
        else:
            self.reader, self.writer = await asyncio.open_unix_connection(spec["echo_path"])
        return self

    async def once(self, request_id: int) -> None:
        CALL["id"] = request_id
        self.writer.write(json.dumps(CALL).encode() + b"\n")
        await self.writer.drain()
        await self.reader.readline()


class _Raw(_Lines):
    async def open(self, spec: dict[str, Any]) -> _Raw:
        from idea.infrastructure.mcp.transport import open_endpoint_stream

        self.reader, self.writer = await open_endpoint_stream(spec["endpoint"], limit=16 * 1024 * 1024)
        self.writer.write(json.dumps(spec["handshake"]).encode() + b"\n")
        await self.initialize()
        return self


class _Bridge(_Lines):
    def __init__(self, relay: bool) -> None:
        self._relay = relay

    async def open(self, spec: dict[str, Any]) -> _Bridge:
        env = {**os.environ, **spec["env"]}
        if self._relay:
            env["IDEA_MCP_BRIDGE"] = "relay"
        self.process = await asyncio.create_subprocess_exec(
            *spec["command"],
            cwd=spec["cwd"],
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            limit=16 * 1024 * 1024,
        )
        assert self.process.stdin is not None and self.process.stdout is not None
        self.reader, self.writer = self.process.stdout, self.process.stdin
        await self.initialize()
        return self

    async def close(self) -> None:
        self.writer.close()
        await self.process.wait()


class _Sdk:
    async def open(self, spec: dict[str, Any]) -> _Sdk:
        from contextlib import AsyncExitStack

        from mcp import ClientSession, StdioServerParameters, stdio_client

        params = StdioServerParameters(
            command=spec["command"][0], args=spec["command"][1:], env={**os.environ, **spec["env"]}, cwd=spec["cwd"]
        )
        self._stack = AsyncExitStack()
        read, write = await self._stack.enter_async_context(stdio_client(params))
        self._session = await self._stack.enter_async_context(ClientSession(read, write))
        await self._session.initialize()
        return self

    async def once(self, request_id: int) -> None:
        result = await self._session.call_tool("idea_list_agents", {})
        assert not result.is_error

    async def close(self) -> None:
        await self._stack.aclose()


def _path(name: str) -> Any:
    return {"echo": _Echo, "raw": _Raw, "relay": lambda: _Bridge(True), "bridge": lambda: _Bridge(False), "sdk": _Sdk}[
        name
    ]()


async def client(spec: dict[str, Any]) -> dict[str, list[float]]:
    """Open every path, warm them up, then time them in interleaved blocks of calls."""
    paths = {name: await _path(name).open(spec) for name in spec["paths"]}
    samples: dict[str, list[float]] = {name: [] for name in paths}
    request_id = 0
    try:
        for path in paths.values():
            for _ in range(spec["warmup"]):
                request_id += 1
                await path.once(request_id)
        for _ in range(0, spec["calls"], spec["block"]):
            for name, path in paths.items():
                for _ in range(spec["block"]):
                    request_id += 1
                    started = time.perf_counter()
                    await path.once(request_id)
                    samples[name].append(time.perf_counter() - started)
    finally:
        for path in paths.values():
            await path.close()
    return samples


# ---- IdeA's side ----


def percentiles(samples: list[float]) -> tuple[float, float, float]:
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
    return statistics.median(ordered) * 1000, p99 * 1000, statistics.mean(ordered) * 1000


def run_client(spec: dict[str, Any]) -> dict[str, list[float]]:
    done = subprocess.run(
        [sys.executable, __file__, "--client", json.dumps(spec)], capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise SystemExit(f"the client failed:\n{done.stderr}")
    samples: dict[str, list[float]] = json.loads(done.stdout)
    return samples


# ---- the server's CPU per call by stage, in this process (no sockets, no other process) ----


class _Sink:
    """Where a session's answers go: nowhere, but the caller learns that one came."""

    def __init__(self) -> None:
        self.answered = asyncio.Event()

    def write(self, data: bytes) -> None:
        self.answered.set()

    async def drain(self) -> None:
        return None


class _Session:
    """One MCP session of `server`, fed a line at a time as a client would."""

    def __init__(self, server: McpSocketServer) -> None:
        self.reader = asyncio.StreamReader(limit=16 * 1024 * 1024)
        self.sink = _Sink()
        self.task = asyncio.ensure_future(server._serve_mcp(AGENT_ID, self.reader, self.sink))  # noqa: SLF001

    async def request(self, message: dict[str, Any]) -> None:
        self.sink.answered.clear()
        self.reader.feed_data(json.dumps(message).encode() + b"\n")
        await self.sink.answered.wait()

    async def calls(self, count: int, first_id: int) -> float:
        started = time.process_time()
        for request_id in range(first_id, first_id + count):
            CALL["id"] = request_id
            await self.request(CALL)
        return time.process_time() - started

    async def close(self) -> None:
        self.reader.feed_eof()
        await self.task


class _Silent:
    def beacon(self, message: str) -> None: ...


async def _instant_tool(connection: object, ctx: object, params: object) -> Any:
    from mcp import types

    return types.CallToolResult(content=[types.TextContent(type="text", text=json.dumps(LISTING))], is_error=False)


def _transport_cpu(calls: int) -> float:
    """CPU microseconds per call of what the line transport does besides the SDK: decode the request,
    count what it owes, encode the answer."""
    from mcp import types
    from mcp.shared.message import SessionMessage

    try:
        from idea.infrastructure.mcp.wire import AnswerLedger, LineWriter, decode
    except ImportError:  # an older checkout, whose transport had its own reader and writer tasks
        return float("nan")

    ledger = AnswerLedger()
    writer = LineWriter(_Sink(), ledger)
    text = {"type": "text", "text": json.dumps(LISTING)}
    result = {"content": [text], "structuredContent": LISTING, "isError": False}

    async def run() -> float:
        started = time.process_time()
        for request_id in range(calls):
            CALL["id"] = request_id
            message = decode(json.dumps(CALL).encode() + b"\n")
            assert isinstance(message, SessionMessage)
            ledger.read(message)
            await writer.send(SessionMessage(types.JSONRPCResponse(jsonrpc="2.0", id=request_id, result=result)))
        return (time.process_time() - started) / calls * 1e6

    return asyncio.run(run())


async def _stages_cpu(calls: int, block: int, log_dir: Path) -> dict[str, float]:
    """CPU microseconds per call of three sessions, interleaved in blocks: as served, without the log
    write, and with a tool handler that answers at once (the SDK and the transport alone)."""

    def server(diagnostics: Any) -> McpSocketServer:
        return McpSocketServer(
            PROJECT_ID,
            "/nonexistent",
            InstantGateway(),
            version=__version__,
            diagnostics=diagnostics,
            ask_safety_net_s=60,
        )

    instant = server(_Silent())
    if hasattr(instant, "_tool_calls"):
        instant._tool_calls.call = _instant_tool  # type: ignore[method-assign]  # noqa: SLF001
    else:  # the server before tool_calls.py (to measure an older checkout the same way)
        instant._call_tool = _instant_tool  # type: ignore[method-assign]  # noqa: SLF001
    sessions = {
        "served": _Session(server(FileDiagnostics(log_dir))),
        "silent": _Session(server(_Silent())),
        "sdk": _Session(instant),
    }
    spent = dict.fromkeys(sessions, 0.0)
    for session in sessions.values():
        await session.request(INITIALIZE)
        session.reader.feed_data(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        await session.calls(200, 1)
    for first in range(0, calls, block):
        for name, session in sessions.items():
            spent[name] += await session.calls(block, 1000 + first)
    for session in sessions.values():
        await session.close()
    return {name: total / calls * 1e6 for name, total in spent.items()}


def measure(arguments: argparse.Namespace) -> None:
    core = CoreLoop("bench-core").start()
    with tempfile.TemporaryDirectory(prefix="idea-b-", dir="/tmp") as base:
        loopback = arguments.transport == "loopback"  # the Windows transport, measured here on Linux
        if loopback:
            endpoint = mcp_loopback_endpoint(PROJECT_ID, {"IDEA_RUNTIME_DIR": base})
        else:
            endpoint = mcp_endpoint(PROJECT_ID, {"XDG_RUNTIME_DIR": base})
        echo_path = str(Path(base) / "echo.sock")
        server = McpSocketServer(
            PROJECT_ID,
            endpoint,
            InstantGateway(),
            version=__version__,
            diagnostics=FileDiagnostics(Path(base) / "logs"),
            ask_safety_net_s=60,
        )

        async def echo(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            while line := await reader.readline():
                writer.write(line)
                await writer.drain()
            writer.close()

        async def start() -> asyncio.AbstractServer:
            await server.start()
            if loopback:
                return await asyncio.start_server(echo, "127.0.0.1", 0)
            return await asyncio.start_unix_server(echo, path=echo_path)

        async def cpu_time() -> float:
            return time.thread_time()

        echo_server = core.submit(start()).result()
        wiring = bridge_wiring(idea_command(), endpoint, simple_hex(PROJECT_ID), AGENT_ID, TOKEN)
        spec: dict[str, Any] = {
            "calls": arguments.calls,
            "warmup": arguments.warmup,
            "block": arguments.block,
            "paths": [name for name, _ in ROWS],
            "endpoint": endpoint,
            "echo_path": echo_path,
            "echo_port": echo_server.sockets[0].getsockname()[1] if loopback else 0,
            "handshake": {
                "v": 1,
                "kind": "mcp",
                "project": simple_hex(PROJECT_ID),
                "requester": AGENT_ID,
                "token": TOKEN,
            },
            "command": [wiring.command, *wiring.args],
            "env": dict(wiring.env),
            "cwd": str(SOURCE_ROOT),
        }
        load_before = os.getloadavg()
        try:
            samples = run_client(spec)
            cpu_ms: dict[str, float] = {}
            for name, _ in ROWS:
                started = core.submit(cpu_time()).result()
                run_client({**spec, "paths": [name], "calls": arguments.cpu_calls, "block": arguments.cpu_calls})
                calls = arguments.cpu_calls + arguments.warmup
                cpu_ms[name] = (core.submit(cpu_time()).result() - started) / calls * 1000
        finally:

            async def stop() -> None:
                echo_server.close()
                await server.close()

            core.submit(stop()).result()
            core.stop()
        stages = asyncio.run(_stages_cpu(arguments.cpu_calls * 4, arguments.block, Path(base) / "stage-logs"))
        transport = _transport_cpu(arguments.cpu_calls * 4)
        load_after = os.getloadavg()

    command = ["python", "bench/mcp_roundtrip.py", *sys.argv[1:]]
    print(f"`{' '.join(command)}` ({arguments.calls} calls per path after {arguments.warmup} warm-up,")
    print(f"interleaved in blocks of {arguments.block}; IdeA {__version__} from {SOURCE_ROOT}, Python")
    print(f"{sys.version.split()[0]}, {os.cpu_count()} CPUs, load average {load_before[0]:.2f} before and")
    print(f"{load_after[0]:.2f} after; server CPU: each path alone, {arguments.cpu_calls} calls)")
    print()
    echo_p50 = percentiles(samples["echo"])[0]
    print("| Path | p50 (ms) | p99 (ms) | mean (ms) | p50 / echo | server CPU per call (ms) |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, label in ROWS:
        p50, p99, mean = percentiles(samples[name])
        print(f"| {label} | {p50:.3f} | {p99:.3f} | {mean:.3f} | {p50 / echo_p50:.2f} | {cpu_ms[name]:.3f} |")
    print()
    print(f"Server CPU per `idea_list_agents` call by stage, in this process ({arguments.cpu_calls * 4} calls per")
    print("session, no socket and no other process; three sessions interleaved):")
    print()
    print("| Stage | CPU per call (us) |")
    print("|---|---:|")
    sdk = stages["sdk"] - transport if transport == transport else stages["sdk"]
    print(f"| whole session as served | {stages['served']:.0f} |")
    print(f"| - the diagnostics log line of the call | {stages['served'] - stages['silent']:.0f} |")
    print(f"| - IdeA's tool call (arguments, time bound, gateway, result) | {stages['silent'] - stages['sdk']:.0f} |")
    if transport == transport:
        print(f"| - the line transport (decode the request, count it owed, encode the answer) | {transport:.0f} |")
        print(f"| - the MCP SDK (dispatch, a task per request, runner, validation, serialisation) | {sdk:.0f} |")
    else:
        print(f"| - the MCP SDK and the line transport (with its reader and writer tasks) | {sdk:.0f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--warmup", type=int, default=100)
    parser.add_argument("--block", type=int, default=50)
    parser.add_argument("--cpu-calls", type=int, default=1000)
    parser.add_argument("--transport", choices=("unix", "loopback"), default="unix")
    parser.add_argument("--client", help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.client:
        print(json.dumps(asyncio.run(client(json.loads(arguments.client)))))
    else:
        measure(arguments)


if __name__ == "__main__":
    main()
