"""The per-project MCP server on the project's endpoint: a Unix socket, or loopback TCP on Windows (spec 03 §3).

Every connection opens with one handshake line naming the caller and carrying its launch secret. A `mcp`
connection (the bridge an agent CLI spawned) is then served by the official MCP SDK's low-level `Server`,
which reads the connection's lines and writes its answers straight through `wire.py`'s line reader and
writer; on a Unix socket the bridge may hand the CLI's own stdio over first, and the session then runs on
those pipes (`handed_stdio.py`). A `hook` connection carries one lifecycle event of an agent's CLI and
closes.

The SDK's JSON-RPC dispatcher runs every request in a task of its own (only `initialize` is handled
inline), so a pending `idea_ask_agent` never delays another call; `notifications/cancelled` and the end of
the connection cancel the tasks of the calls concerned, and the gateway sees `asyncio.CancelledError`.
What the SDK leaves to the transport is done here and in `wire.py`: the handshake, answering unreadable
lines (-32700, -32600) instead of dropping them, one answer for every request even when the input ends
early, IdeA's protocol-version fallback, and turning every outcome of a tool, failures included, into a
tool result rather than a JSON-RPC error (`tool_calls.py`). Every call is logged with the agent that made it.
"""

from __future__ import annotations

import asyncio
import json
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any

from mcp import types
from mcp.server._otel import OpenTelemetryMiddleware
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError
from mcp.types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import ValidationError

from idea.application.orchestrator.gateway import OrchestrationGateway
from idea.application.ports import Diagnostics
from idea.domain.errors import ErrorCode
from idea.domain.ids import AgentId, ProjectId, simple_hex
from idea.infrastructure.hooks.hook_events import event_name, parsed_payload, take_hook_event
from idea.infrastructure.mcp.handed_stdio import HandoffFailed, can_take_stdio, decline, take_stdio
from idea.infrastructure.mcp.stdio_handoff import HANDOFF_FIELD, HANDOFF_STDIO
from idea.infrastructure.mcp.transport import Listening, McpTransport, transport_for
from idea.infrastructure.mcp.tool_calls import McpConnection, ToolCalls
from idea.infrastructure.mcp.tools import TOOL_DEFINITIONS
from idea.infrastructure.mcp.wire import (
    EOF_DRAIN_S,
    LINE_LIMIT,
    LineReader,
    LineSink,
    LineWriter,
    describe_validation,
)

HANDSHAKE_TIMEOUT_S = 5.0
CALL_TIMEOUT_S = 60.0
HookFilter = Callable[[str, str, Mapping[str, Any]], str | None]  # (agent, source, payload) -> why dropped
SERVER_NAME = "idea"
INSTRUCTIONS = "IdeA team tools. Delegate with idea_ask_agent; answer delegated tasks with idea_reply."
UNAUTHENTICATED = "unauthenticated caller"
NO_PROJECT = "the handshake names no project; the bridge needs --project <project id>"

_TOOLS = [types.Tool.model_validate(definition, by_name=False) for definition in TOOL_DEFINITIONS]


@dataclass(frozen=True)
class _Caller:
    kind: str  # "mcp" or "hook"
    agent_id: AgentId
    offers_stdio: bool = False  # a bridge that can hand its stdio over (`stdio_handoff.py`)


class McpSocketServer:
    """Serves one project's endpoint until `close`; every orchestration decision is the gateway's."""

    def __init__(
        self,
        project_id: ProjectId,
        socket_path: str,
        gateway: OrchestrationGateway,
        *,
        version: str,
        diagnostics: Diagnostics,
        ask_safety_net_s: float,
        call_timeout_s: float = CALL_TIMEOUT_S,
        eof_drain_s: float = EOF_DRAIN_S,
        transport: McpTransport | None = None,
        hook_filter: HookFilter | None = None,
    ) -> None:
        """`hook_filter(agent, source, payload)`: why a relayed hook event is not the agent's (it is then
        dropped), or None."""
        self._project_hex = simple_hex(project_id)
        self._socket_path = socket_path
        self._gateway = gateway
        self._version = version
        self._diagnostics = diagnostics
        self._tool_calls = ToolCalls(
            gateway, diagnostics, ask_safety_net_s=ask_safety_net_s, call_timeout_s=call_timeout_s
        )
        self._eof_drain_s = eof_drain_s
        self._hook_filter = hook_filter
        # The endpoint's form chooses the transport (`.endpoint`: loopback TCP, else a Unix socket).
        self._transport = transport or transport_for(socket_path)
        self._endpoint: Listening | None = None
        self._listener: asyncio.AbstractServer | None = None
        self._connections: set[asyncio.Task[Any]] = set()
        self._sessions: set[McpConnection] = set()
        self._closed = False

    @property
    def socket_path(self) -> str:
        return self._socket_path

    @property
    def listening(self) -> bool:
        return self._listener is not None and not self._closed

    async def start(self) -> None:
        """Bind the endpoint and accept connections. Raises AppError(PROJECT_ALREADY_OPEN) when another
        live process serves it. Starting a started server does nothing."""
        if self._listener is not None:
            return
        if self._closed:
            raise RuntimeError("a closed MCP server cannot be started again")
        self._listener, self._endpoint = await self._transport.listen(
            self._socket_path, self._serve_connection, LINE_LIMIT, self._diagnostics
        )
        self._diagnostics.beacon(f"[mcp] listening on {self._socket_path}")

    async def close(self) -> None:
        """Stop accepting, cancel the calls in flight, close every connection and unlink the socket."""
        if self._closed:
            return
        self._closed = True
        if self._listener is not None:
            await _stop_accepting(self._listener)
            self._listener.close()
        for session in self._sessions:
            session.input_ended()  # what each had in flight when IdeA ended it
        connections = list(self._connections)
        for task in connections:
            task.cancel()
        await asyncio.gather(*connections, return_exceptions=True)
        if self._listener is not None:
            # A connection accepted just before may have no running task yet: its transport is closed here.
            close_clients = getattr(self._listener, "close_clients", None)  # Python 3.13+
            if close_clients is not None:
                close_clients()
            await self._listener.wait_closed()
        if self._endpoint is not None:
            self._endpoint.release()
            self._diagnostics.beacon(f"[mcp] closed {self._socket_path}")

    async def _serve_connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._connections.add(task)
        try:
            if self._closed or not await self._peer_is_this_user(writer):
                return
            caller = await self._handshake(reader, writer)
            if caller is None:
                return
            if caller.kind == "hook":
                await self._serve_hook(caller.agent_id, reader)
            elif caller.offers_stdio:
                await self._serve_handed_stdio(caller.agent_id, reader, writer)
            else:
                await self._serve_mcp(caller.agent_id, reader, writer)
        except asyncio.CancelledError:
            pass  # `close` ends the connection; finishing normally keeps asyncio's stream callback quiet
        except Exception as exc:  # one broken connection must never take the server down
            self._diagnostics.beacon(f"[mcp] connection failed: {_traceback(exc)}")
        finally:
            self._connections.discard(task)
            writer.close()

    async def _peer_is_this_user(self, writer: asyncio.StreamWriter) -> bool:
        try:
            refusal = await self._transport.admit(writer)
        except ConnectionError:
            return False  # gone before it was admitted (e.g. a liveness probe)
        if refusal is None:
            return True
        self._diagnostics.beacon(f"[mcp] refused a connection from {refusal}")
        return False

    async def _handshake(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> _Caller | None:
        try:
            line = await asyncio.wait_for(reader.readline(), HANDSHAKE_TIMEOUT_S)
        except TimeoutError:
            self._diagnostics.beacon(f"[mcp] no handshake within {HANDSHAKE_TIMEOUT_S:g} s; connection closed")
            return None
        except (ValueError, ConnectionError):
            line = b"?"  # longer than the line limit, or torn: malformed either way
        if not line:
            return None  # closed without a word, e.g. another process checking that the endpoint is live
        try:
            fields = json.loads(line)
        except ValueError:
            fields = None
        if (
            not isinstance(fields, dict)
            or fields.get("v", 1) != 1
            or fields.get("kind", "mcp") not in ("mcp", "hook")
        ):
            self._diagnostics.beacon("[mcp] refused a malformed handshake")
            await _refuse(writer, ErrorCode.INVALID, "malformed handshake")
            return None
        kind = fields.get("kind", "mcp")
        tag, identity_key = ("hook", "agent") if kind == "hook" else ("mcp", "requester")
        agent_id, token = fields.get(identity_key), fields.get("token")
        if fields.get("project") in (None, ""):
            self._diagnostics.beacon(f"[{tag}] refused handshake without a project {identity_key}={_printable(agent_id)}")
            await _refuse(writer, ErrorCode.INVALID, NO_PROJECT)
            return None
        if not self._serves_project(fields.get("project")):
            self._diagnostics.beacon(
                f"[{tag}] refused handshake for another project {identity_key}={_printable(agent_id)}"
            )
            await _refuse(writer, ErrorCode.NOT_FOUND, "this endpoint serves another project")
            return None
        if not (isinstance(agent_id, str) and agent_id and isinstance(token, str) and token):
            authenticated = False
        else:
            authenticated = self._gateway.authenticate(agent_id, token)
        if not authenticated:
            self._diagnostics.beacon(f"[{tag}] refused handshake {identity_key}={_printable(agent_id)}")
            await _refuse(writer, ErrorCode.PERMISSION_DENIED, UNAUTHENTICATED)
            return None
        offers_stdio = kind == "mcp" and fields.get(HANDOFF_FIELD) == HANDOFF_STDIO
        return _Caller(kind=kind, agent_id=agent_id, offers_stdio=offers_stdio)

    def _serves_project(self, project: object) -> bool:
        if not isinstance(project, str):
            return False
        try:
            return simple_hex(project) == self._project_hex
        except ValueError:
            return False

    async def _serve_hook(self, agent_id: AgentId, reader: asyncio.StreamReader) -> None:
        event = await _read_hook_event(reader)
        if event is None:
            self._diagnostics.beacon(f"[hook] no readable event from agent={agent_id}")
            return
        source, name, payload = event
        ignored = self._hook_filter(agent_id, source, payload) if self._hook_filter is not None else None
        if ignored is not None:
            self._diagnostics.beacon(f"[hook] {source} {event_name(name, payload)} agent={agent_id} ignored: {ignored}")
            return
        take_hook_event(self._gateway, self._diagnostics, agent_id, source, name, payload)

    async def _serve_handed_stdio(
        self, agent_id: AgentId, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        """Serve the CLI on the stdio its bridge hands over; over this connection when it cannot be taken."""
        if not can_take_stdio(writer):
            await decline(writer)
            await self._serve_mcp(agent_id, reader, writer)
            return
        try:
            async with take_stdio(reader, writer, LINE_LIMIT) as stdio:
                await self._serve_mcp(agent_id, stdio.reader, stdio.writer, how=" (stdio handed over)")
        except HandoffFailed as failed:
            self._diagnostics.beacon(f"[mcp] stdio handoff failed requester={agent_id}: {failed}")
            await _refuse(writer, ErrorCode.INVALID, f"the stdio handoff failed: {failed}")

    async def _serve_mcp(
        self, agent_id: AgentId, reader: asyncio.StreamReader, writer: LineSink, *, how: str = ""
    ) -> None:
        connection = McpConnection(agent_id)
        server = self._mcp_server(connection)
        answers = LineWriter(writer, connection.ledger)
        lines = LineReader(
            reader,
            answers,
            connection.ledger,
            on_input_end=connection.input_ended,
            cancel_calls=connection.cancel_calls,
            eof_drain_s=self._eof_drain_s,
        )
        self._gateway.bridge_connected(agent_id)
        self._diagnostics.beacon(f"[mcp] connected requester={agent_id}{how}")
        self._sessions.add(connection)
        try:
            await server.run(lines, answers, server.create_initialization_options())
        finally:
            self._sessions.discard(connection)
            connection.input_ended()
            self._gateway.bridge_disconnected(agent_id)
            self._diagnostics.beacon(
                f"[mcp] disconnected requester={agent_id} inflight={connection.inflight_at_end}"
            )

    def _mcp_server(self, connection: McpConnection) -> Server[Any]:
        server: Server[Any] = Server(
            SERVER_NAME,
            version=self._version,
            instructions=INSTRUCTIONS,
            on_list_tools=_list_tools,
            on_call_tool=partial(self._tool_calls.call, connection),
        )
        # IdeA exports no OpenTelemetry traces: the SDK's span middleware (its only default, "drop it from
        # this list to opt out") would cost every request a no-op span.
        server.middleware[:] = [m for m in server.middleware if not isinstance(m, OpenTelemetryMiddleware)]
        server.middleware.append(partial(self._observe_request, connection))
        return server

    async def _observe_request(
        self, connection: McpConnection, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        if ctx.method == "tools/call" and not isinstance((ctx.params or {}).get("name"), str):
            raise MCPError(code=types.INVALID_PARAMS, message="missing tool `name`")
        try:
            result = await call_next(ctx)
        except MCPError:
            raise
        except ValidationError as invalid:
            raise MCPError(
                code=types.INVALID_PARAMS, message="Invalid request parameters", data=describe_validation(invalid)
            ) from None
        except Exception as exc:  # a bug costs this request its answer's content, never the connection
            self._diagnostics.beacon(
                f"[mcp] {ctx.method} failed for requester={connection.agent_id}: {_traceback(exc)}"
            )
            raise MCPError(
                code=types.INTERNAL_ERROR,
                message=f"IdeA failed while handling {ctx.method}; the details are in IdeA's diagnostics log",
            ) from exc
        # Its CLI speaks MCP: the agent is up (this releases a cold-start gate). Clients of the
        # 2026 protocol skip `initialize`; their first request says the same.
        opened = ctx.method == "initialize" or ctx.protocol_version in MODERN_PROTOCOL_VERSIONS
        if opened and ctx.request_id is not None and not connection.initialized:
            connection.initialized = True
            self._gateway.bridge_initialized(connection.agent_id)
        return result


async def _list_tools(
    ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
) -> types.ListToolsResult:
    return types.ListToolsResult(tools=_TOOLS)


async def _refuse(writer: asyncio.StreamWriter, code: ErrorCode, message: str) -> None:
    line = json.dumps({"error": {"code": code.value, "message": message}}).encode("utf-8") + b"\n"
    try:
        writer.write(line)
        await asyncio.wait_for(writer.drain(), HANDSHAKE_TIMEOUT_S)
    except (ConnectionError, TimeoutError):
        pass


def _printable(value: object) -> str:
    """A caller-supplied identity, safe for a one-line log entry."""
    text = value if isinstance(value, str) else repr(value)
    return text[:80].encode("unicode_escape").decode("ascii")


def _traceback(exc: BaseException) -> str:
    return "".join(traceback.format_exception(exc)).strip()


async def _read_hook_event(reader: asyncio.StreamReader) -> tuple[str, str, dict[str, Any]] | None:
    """The event line, then the payload: inside it, or on the next line as the CLI wrote it
    (`payloadFollows`, what the relay sends); (source, event as named, payload)."""
    try:
        event = json.loads(await asyncio.wait_for(reader.readline(), HANDSHAKE_TIMEOUT_S))
        if isinstance(event, dict) and event.get("payloadFollows") is True:
            text = (await asyncio.wait_for(reader.readline(), HANDSHAKE_TIMEOUT_S)).decode("utf-8", "replace")
            event["payload"] = parsed_payload(text)
    except (TimeoutError, ValueError, ConnectionError):
        return None
    if not (
        isinstance(event, dict)
        and isinstance(event.get("source"), str)
        and isinstance(event.get("event"), str)
        and isinstance(event.get("payload"), dict)
    ):
        return None
    return event["source"], event["event"], event["payload"]


async def _stop_accepting(listener: asyncio.AbstractServer) -> None:
    """Take no new connection, then let the ones already accepted become transports of the server while it
    is still open. (Closing the server between the accept and the transport's creation leaves a transport
    that Python 3.13.0's server cannot detach: its collection raises in `Server._wakeup`.)"""
    loop = asyncio.get_running_loop()
    for sock in getattr(listener, "sockets", ()) or ():
        try:
            loop.remove_reader(sock.fileno())
        except NotImplementedError:  # a proactor loop (Windows) accepts without a reader
            return
    for _ in range(2):
        await asyncio.sleep(0)
