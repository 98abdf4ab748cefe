"""One `tools/call` of an MCP connection, from the SDK's typed request to a tool result (spec 03 §3.4-§3.6).

The arguments are checked against the tool's schema (`parse_tool_call`), the command goes to the gateway
within a time bound (the ask's safety net, or `call_timeout_s`), and every outcome becomes a tool result,
failures included, with the text a model reads and, since 2025-06-18, the structured form. A call still
running when the client's input ended is cancelled and answered CANCELLED. Every call is logged with the
agent that made it, right after its answer is on its way (the log write never delays the answer).
"""

from __future__ import annotations

import asyncio
import time
import traceback
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import anyio
from mcp import types
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp.types.version import is_version_at_least

from idea.application.orchestrator.gateway import OrchestrationGateway
from idea.application.ports import Diagnostics
from idea.domain.errors import AppError, ErrorCode
from idea.domain.ids import AgentId
from idea.domain.orchestration.commands import AgentCaller, Outcome, Source
from idea.infrastructure.mcp.tools import TOOL_NAMES, parse_tool_call
from idea.infrastructure.mcp.wire import AnswerLedger

STRUCTURED_CONTENT_SINCE = "2025-06-18"
ASK_TOOL = "idea_ask_agent"


@dataclass(eq=False)
class McpConnection:
    """One MCP connection's state: its agent, what it owes, and the calls it has in flight."""

    agent_id: AgentId
    calls_in_flight: int = 0
    inflight_at_end: int | None = None  # the calls in flight when its input ended (or IdeA ended it)
    initialized: bool = False
    input_over: bool = False  # the client's input ended and its calls were cancelled
    calls: set[anyio.CancelScope] = field(default_factory=set)
    ledger: AnswerLedger = field(default_factory=AnswerLedger)

    def input_ended(self) -> None:
        """The end of the connection's input, or of the connection: the first one counts."""
        if self.inflight_at_end is None:
            self.inflight_at_end = self.calls_in_flight

    def cancel_calls(self) -> None:
        self.input_over = True
        for scope in self.calls:
            scope.cancel()


class ToolCalls:
    def __init__(
        self,
        gateway: OrchestrationGateway,
        diagnostics: Diagnostics,
        *,
        ask_safety_net_s: float,
        call_timeout_s: float,
    ) -> None:
        self._gateway = gateway
        self._diagnostics = diagnostics
        self._ask_safety_net_s = ask_safety_net_s
        self._call_timeout_s = call_timeout_s

    async def call(
        self, connection: McpConnection, ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        """The SDK's `on_call_tool` handler for this connection."""
        name = params.name
        if name not in TOOL_NAMES:
            raise MCPError(code=types.INVALID_PARAMS, message=f"unknown tool {name}")
        structured = is_version_at_least(ctx.protocol_version, STRUCTURED_CONTENT_SINCE)
        limit = self._ask_safety_net_s if name == ASK_TOOL else self._call_timeout_s
        outcome: Outcome | AppError | None = None
        connection.calls_in_flight += 1
        # One scope bounds the call's time and is what the end of the client's input cancels.
        with anyio.CancelScope(deadline=anyio.current_time() + limit) as call:
            connection.calls.add(call)
            try:
                outcome = await self._run(connection.agent_id, name, params.arguments)
            except AppError as error:
                outcome = error
            except anyio.get_cancelled_exc_class():
                if not self._timed_out(call, connection):
                    self._diagnostics.beacon(f"[mcp] call cancelled requester={connection.agent_id} tool={name}")
                raise
            finally:
                connection.calls.discard(call)
                connection.calls_in_flight -= 1
        if outcome is None:
            outcome = self._unfinished(call, connection, name, limit)
        verdict = outcome.code.value if isinstance(outcome, AppError) else "ok"
        asyncio.get_running_loop().call_soon(
            self._diagnostics.beacon, f"[mcp] call {name} requester={connection.agent_id} -> {verdict}"
        )
        if isinstance(outcome, AppError):
            return _error_result(outcome, structured)
        return _success_result(outcome, structured)

    async def _run(self, agent_id: AgentId, name: str, arguments: Mapping[str, Any] | None) -> Outcome:
        try:
            command = parse_tool_call(name, arguments)
            return await self._gateway.dispatch(AgentCaller(agent_id), command, Source.MCP)
        except AppError:
            raise
        except Exception as exc:
            self._diagnostics.beacon(f"[mcp] {name} failed for requester={agent_id}: {_traceback(exc)}")
            raise AppError(
                ErrorCode.INTERNAL, f"IdeA failed while running {name}; the details are in IdeA's diagnostics log"
            ) from exc

    @staticmethod
    def _timed_out(call: anyio.CancelScope, connection: McpConnection) -> bool:
        return not connection.input_over and anyio.current_time() >= call.deadline

    def _unfinished(self, call: anyio.CancelScope, connection: McpConnection, name: str, limit: float) -> AppError:
        """Why a call its scope stopped has no outcome: the client's input ended, or its time ran out."""
        if not self._timed_out(call, connection):
            return AppError(ErrorCode.CANCELLED, f"the client closed its input before {name} finished")
        self._diagnostics.beacon(f"[mcp] {name} for requester={connection.agent_id} exceeded {limit:g} s")
        return AppError(
            ErrorCode.PROCESS, f"IdeA internal timeout: {name} did not finish within {limit:g} s", retryable=True
        )


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


def _traceback(exc: BaseException) -> str:
    return "".join(traceback.format_exception(exc)).strip()
