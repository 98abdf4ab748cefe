"""The per-project MCP server on the project's Unix socket (spec 03 §3).

Every connection opens with one handshake line naming the caller and carrying its launch secret. A `mcp`
connection (the bridge an agent CLI spawned) is then served by the official MCP SDK's low-level `Server`,
fed by a line reader through in-memory streams and drained by a single writer. A `hook` connection carries
one lifecycle event of an agent's CLI and closes.

The SDK's JSON-RPC dispatcher runs every request in a task of its own (only `initialize` is handled
inline), so a pending `idea_ask_agent` never delays another call; `notifications/cancelled` and the end of
the connection cancel the tasks of the calls concerned, and the gateway sees `asyncio.CancelledError`.
What the SDK leaves to the transport is done here: the handshake, answering unreadable lines (-32700,
-32600) instead of dropping them, IdeA's protocol-version fallback, and turning every outcome of a tool,
failures included, into a tool result rather than a JSON-RPC error.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
import traceback
from collections.abc import Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any

import anyio
from anyio.abc import ObjectReceiveStream, ObjectSendStream
from mcp import types
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage
from mcp.types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS, is_version_at_least
from pydantic import ValidationError

from idea.application.orchestrator.gateway import OrchestrationGateway
from idea.application.ports import Diagnostics
from idea.domain.errors import AppError, ErrorCode
from idea.domain.ids import AgentId, ProjectId, simple_hex
from idea.domain.orchestration import AgentCaller, Outcome, Source
from idea.infrastructure.mcp.endpoint import BoundEndpoint, bind_endpoint, peer_uid
from idea.infrastructure.mcp.tools import TOOL_DEFINITIONS, TOOL_NAMES, parse_tool_call

HANDSHAKE_TIMEOUT_S = 5.0
LINE_LIMIT = 16 * 1024 * 1024
CALL_TIMEOUT_S = 60.0
# Offers the SDK can speak are echoed; any other offer is answered with this version (spec 03 §3.4).
FALLBACK_PROTOCOL_VERSION = "2025-06-18"
STRUCTURED_CONTENT_SINCE = "2025-06-18"
SERVER_NAME = "idea"
INSTRUCTIONS = "IdeA team tools. Delegate with idea_ask_agent; answer delegated tasks with idea_reply."
ASK_TOOL = "idea_ask_agent"
UNAUTHENTICATED = "unauthenticated caller"

_TOOLS = [types.Tool.model_validate(definition, by_name=False) for definition in TOOL_DEFINITIONS]


@dataclass(frozen=True)
class _Caller:
    kind: str  # "mcp" or "hook"
    agent_id: AgentId


@dataclass
class _McpConnection:
    agent_id: AgentId
    calls_in_flight: int = 0
    inflight_at_end: int = 0
    initialized: bool = False


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
    ) -> None:
        self._project_hex = simple_hex(project_id)
        self._socket_path = socket_path
        self._gateway = gateway
        self._version = version
        self._diagnostics = diagnostics
        self._ask_safety_net_s = ask_safety_net_s
        self._call_timeout_s = call_timeout_s
        self._endpoint: BoundEndpoint | None = None
        self._listener: asyncio.AbstractServer | None = None
        self._connections: set[asyncio.Task[Any]] = set()
        self._closed = False

    @property
    def socket_path(self) -> str:
        return self._socket_path

    async def start(self) -> None:
        """Bind the endpoint and accept connections. Raises AppError(PROJECT_ALREADY_OPEN) when another
        live process serves it. Starting a started server does nothing."""
        if self._listener is not None:
            return
        if self._closed:
            raise RuntimeError("a closed MCP server cannot be started again")
        endpoint = bind_endpoint(self._socket_path, self._diagnostics)
        try:
            self._listener = await asyncio.start_unix_server(
                self._serve_connection, sock=endpoint.sock, limit=LINE_LIMIT
            )
        except BaseException:
            endpoint.sock.close()
            endpoint.release()
            raise
        self._endpoint = endpoint
        self._diagnostics.beacon(f"[mcp] listening on {self._socket_path}")

    async def close(self) -> None:
        """Stop accepting, cancel the calls in flight, close every connection and unlink the socket."""
        if self._closed:
            return
        self._closed = True
        if self._listener is not None:
            self._listener.close()
        connections = list(self._connections)
        for task in connections:
            task.cancel()
        await asyncio.gather(*connections, return_exceptions=True)
        if self._listener is not None:
            # A connection accepted while closing may have no running task yet: close its transport here,
            # or it is left for the garbage collector, which detaches it from a server already closed.
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
            if self._closed or not self._peer_is_this_user(writer):
                return
            caller = await self._handshake(reader, writer)
            if caller is None:
                return
            if caller.kind == "hook":
                await self._serve_hook(caller.agent_id, reader)
            else:
                await self._serve_mcp(caller.agent_id, reader, writer)
        except asyncio.CancelledError:
            pass  # `close` ends the connection; finishing normally keeps asyncio's stream callback quiet
        except Exception as exc:  # one broken connection must never take the server down
            self._diagnostics.beacon(f"[mcp] connection failed: {_traceback(exc)}")
        finally:
            self._connections.discard(task)
            writer.close()

    def _peer_is_this_user(self, writer: asyncio.StreamWriter) -> bool:
        sock = writer.get_extra_info("socket")
        uid = peer_uid(sock) if sock is not None else None
        if uid is None or uid == os.getuid():
            return True
        self._diagnostics.beacon(f"[mcp] refused a connection from uid {uid}")
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
        return _Caller(kind=kind, agent_id=agent_id)

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
        self._diagnostics.beacon(f"[hook] {source} {name} agent={agent_id}")
        self._gateway.hook_event(agent_id, source, name, payload)

    async def _serve_mcp(
        self, agent_id: AgentId, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        connection = _McpConnection(agent_id)
        server = self._mcp_server(connection)
        incoming_send, incoming = anyio.create_memory_object_stream[SessionMessage | Exception]()
        outgoing, outgoing_receive = anyio.create_memory_object_stream[SessionMessage]()
        self._gateway.bridge_connected(agent_id)
        self._diagnostics.beacon(f"[mcp] connected requester={agent_id}")
        try:
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(server.run, incoming, outgoing, server.create_initialization_options())
                tasks.start_soon(_write_lines, outgoing_receive, writer)
                await _read_lines(reader, incoming_send, outgoing.clone(), connection)
        finally:
            self._gateway.bridge_disconnected(agent_id)
            self._diagnostics.beacon(
                f"[mcp] disconnected requester={agent_id} inflight={connection.inflight_at_end}"
            )

    def _mcp_server(self, connection: _McpConnection) -> Server[Any]:
        server: Server[Any] = Server(
            SERVER_NAME,
            version=self._version,
            instructions=INSTRUCTIONS,
            on_list_tools=_list_tools,
            on_call_tool=partial(self._call_tool, connection),
        )
        server.middleware.append(partial(self._observe_request, connection))
        return server

    async def _observe_request(
        self, connection: _McpConnection, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        if ctx.method == "tools/call" and not isinstance((ctx.params or {}).get("name"), str):
            raise MCPError(code=types.INVALID_PARAMS, message="missing tool `name`")
        result = await call_next(ctx)
        # Its CLI speaks MCP: the agent is up (this releases a cold-start gate). Clients of the
        # 2026 protocol skip `initialize`; their first request says the same.
        opened = ctx.method == "initialize" or ctx.protocol_version in MODERN_PROTOCOL_VERSIONS
        if opened and ctx.request_id is not None and not connection.initialized:
            connection.initialized = True
            self._gateway.bridge_initialized(connection.agent_id)
        return result

    async def _call_tool(
        self, connection: _McpConnection, ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        name = params.name
        if name not in TOOL_NAMES:
            raise MCPError(code=types.INVALID_PARAMS, message=f"unknown tool {name}")
        structured = is_version_at_least(ctx.protocol_version, STRUCTURED_CONTENT_SINCE)
        connection.calls_in_flight += 1
        try:
            outcome = await self._run_tool(connection.agent_id, name, params.arguments)
        except AppError as error:
            return _error_result(error, structured)
        except anyio.get_cancelled_exc_class():
            self._diagnostics.beacon(f"[mcp] call cancelled requester={connection.agent_id} tool={name}")
            raise
        finally:
            connection.calls_in_flight -= 1
        return _success_result(outcome, structured)

    async def _run_tool(self, agent_id: AgentId, name: str, arguments: Mapping[str, Any] | None) -> Outcome:
        command = parse_tool_call(name, arguments)
        limit = self._ask_safety_net_s if name == ASK_TOOL else self._call_timeout_s
        try:
            with anyio.move_on_after(limit) as bound:
                return await self._gateway.dispatch(AgentCaller(agent_id), command, Source.MCP)
        except AppError:
            raise
        except Exception as exc:
            self._diagnostics.beacon(f"[mcp] {name} failed for requester={agent_id}: {_traceback(exc)}")
            raise AppError(
                ErrorCode.INTERNAL, f"IdeA failed while running {name}; the details are in IdeA's diagnostics log"
            ) from exc
        assert bound.cancelled_caught
        self._diagnostics.beacon(f"[mcp] {name} for requester={agent_id} exceeded {limit:g} s")
        raise AppError(
            ErrorCode.PROCESS,
            f"IdeA internal timeout: {name} did not finish within {limit:g} s",
            retryable=True,
        )


async def _list_tools(
    ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
) -> types.ListToolsResult:
    return types.ListToolsResult(tools=_TOOLS)


async def _read_lines(
    reader: asyncio.StreamReader,
    incoming: ObjectSendStream[SessionMessage | Exception],
    rejections: ObjectSendStream[SessionMessage],
    connection: _McpConnection,
) -> None:
    """Feed each line to the SDK; answer unreadable ones directly. Ends at end of stream, which closes
    `incoming` and lets the SDK cancel the calls still in flight: their requester is gone."""
    async with incoming, rejections:
        try:
            while True:
                try:
                    line = await reader.readline()
                except ValueError:
                    error = _error_response(None, types.PARSE_ERROR, f"message longer than {LINE_LIMIT} bytes")
                    await rejections.send(SessionMessage(error))
                    continue
                except ConnectionError:
                    break
                if not line:
                    break
                if not line.strip():
                    continue
                decoded = _decode(line)
                if isinstance(decoded, SessionMessage):
                    await incoming.send(decoded)
                else:
                    await rejections.send(SessionMessage(decoded))
        finally:
            connection.inflight_at_end = connection.calls_in_flight


def _decode(line: bytes) -> SessionMessage | types.JSONRPCError:
    """The message a line carries, or the error response that answers an unreadable line."""
    try:
        document = json.loads(line)
    except ValueError:
        return _error_response(None, types.PARSE_ERROR, "Parse error: each line must be one JSON-RPC message")
    if isinstance(document, dict) and document.get("method") == "initialize":
        _apply_version_fallback(document)
    try:
        return SessionMessage(types.jsonrpc_message_adapter.validate_python(document, by_name=False))
    except ValidationError:
        return _error_response(_request_id(document), types.INVALID_REQUEST, "Invalid Request")


def _apply_version_fallback(initialize: dict[str, Any]) -> None:
    """Present an unknown protocol offer as IdeA's fallback version, so the SDK's negotiation (which
    would answer its newest version) answers 2025-06-18 and records that version for the connection."""
    params = initialize.get("params")
    if isinstance(params, dict):
        offer = params.get("protocolVersion")
        if isinstance(offer, str) and offer not in HANDSHAKE_PROTOCOL_VERSIONS:
            params["protocolVersion"] = FALLBACK_PROTOCOL_VERSION


def _request_id(document: object) -> str | int | None:
    request_id = document.get("id") if isinstance(document, dict) else None
    return request_id if isinstance(request_id, str | int) and not isinstance(request_id, bool) else None


def _error_response(request_id: str | int | None, code: int, message: str) -> types.JSONRPCError:
    return types.JSONRPCError(jsonrpc="2.0", id=request_id, error=types.ErrorData(code=code, message=message))


async def _write_lines(outgoing: ObjectReceiveStream[SessionMessage], writer: asyncio.StreamWriter) -> None:
    """The connection's only writer: one JSON-RPC message per line, in the order they were produced."""
    broken = False
    async with outgoing:
        async for message in outgoing:
            if broken:
                continue  # keep draining so that no handler blocks on a dead connection
            line = message.message.model_dump_json(by_alias=True, exclude_unset=True).encode("utf-8") + b"\n"
            try:
                writer.write(line)
                await writer.drain()
            except ConnectionError:
                broken = True


async def _refuse(writer: asyncio.StreamWriter, code: ErrorCode, message: str) -> None:
    line = json.dumps({"error": {"code": code.value, "message": message}}).encode("utf-8") + b"\n"
    try:
        writer.write(line)
        await asyncio.wait_for(writer.drain(), HANDSHAKE_TIMEOUT_S)
    except (ConnectionError, TimeoutError):
        pass


def _success_result(outcome: Outcome, structured: bool) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=outcome.text)],
        is_error=False,
        structured_content=outcome.data if structured else None,
    )


def _error_result(error: AppError, structured: bool) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=error_text(error))],
        is_error=True,
        structured_content={"error": error_payload(error)} if structured else None,
    )


def error_text(error: AppError) -> str:
    """`IdeA error <CODE> (retryable|not retryable|retry after HH:MM): <message>`: the verdict for a model
    that reads only text."""
    return f"IdeA error {error.code.value} ({_retry_advice(error)}): {error.message}"


def error_payload(error: AppError) -> dict[str, Any]:
    payload: dict[str, Any] = {"code": error.code.value, "retryable": error.retryable, "message": error.message}
    payload.update((key, value) for key, value in error.data.items() if key not in payload)
    return payload


def _retry_advice(error: AppError) -> str:
    resets_at_ms = error.data.get("resetsAtMs")
    if error.code is ErrorCode.TARGET_RATE_LIMITED and isinstance(resets_at_ms, int):
        return "retry after " + time.strftime("%H:%M", time.localtime(resets_at_ms / 1000))
    return "retryable" if error.retryable else "not retryable"


def _printable(value: object) -> str:
    """A caller-supplied identity, safe for a one-line log entry."""
    text = value if isinstance(value, str) else repr(value)
    return text[:80].encode("unicode_escape").decode("ascii")


def _traceback(exc: BaseException) -> str:
    return "".join(traceback.format_exception(exc)).strip()


async def _read_hook_event(reader: asyncio.StreamReader) -> tuple[str, str, dict[str, Any]] | None:
    """The event line, then the payload: inside it, or on the next line as the CLI wrote it
    (`payloadFollows`, what the relay sends). A payload that is not a JSON object arrives as `{"raw": …}`.
    An event without a name takes the payload's (`hook_event_name`, Codex's `type`)."""
    try:
        event = json.loads(await asyncio.wait_for(reader.readline(), HANDSHAKE_TIMEOUT_S))
        if isinstance(event, dict) and event.get("payloadFollows") is True:
            text = (await asyncio.wait_for(reader.readline(), HANDSHAKE_TIMEOUT_S)).decode("utf-8", "replace")
            try:
                payload = json.loads(text) if text.strip() else {}
            except ValueError:
                payload = {"raw": text.rstrip("\n")}
            event["payload"] = payload if isinstance(payload, dict) else {"raw": payload}
    except (TimeoutError, ValueError, ConnectionError):
        return None
    if not (
        isinstance(event, dict)
        and isinstance(event.get("source"), str)
        and isinstance(event.get("event"), str)
        and isinstance(event.get("payload"), dict)
    ):
        return None
    payload = event["payload"]
    name = event["event"] or payload.get("hook_event_name") or payload.get("type") or "unknown"
    return event["source"], name if isinstance(name, str) else "unknown", payload
