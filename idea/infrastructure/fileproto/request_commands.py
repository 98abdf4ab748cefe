"""What a request file asks, run through the tools' own validation (spec 03 §6): the request's JSON, its
`type`, its fields under their request-file names (`targetAgent` for `target`), and `requestedBy`, which
may only name the agent whose folder holds the request."""

from __future__ import annotations

import json
import uuid
from typing import Any

from idea.application.orchestrator.gateway import OrchestrationGateway
from idea.domain.errors import AppError, ErrorCode
from idea.domain.ids import AgentId
from idea.domain.orchestration.commands import AgentCaller, ListAgents, Outcome, Source
from idea.infrastructure.mcp.tools import REQUEST_TYPES, parse_tool_call

_TOOL_FIELDS = {"targetAgent": "target"}  # request field -> tool argument
_REQUEST_FIELDS = {tool: request for request, tool in _TOOL_FIELDS.items()}
_ENVELOPE = ("type", "requestId", "requestedBy")


def success_response(request_id: str, outcome: Outcome) -> dict[str, Any]:
    return {"requestId": request_id, "ok": True, "detail": outcome.detail, "reply": outcome.reply}


async def run_request(gateway: OrchestrationGateway, folder: str, request_id: str, body: bytes) -> Outcome:
    """Run the request `body` of the agent whose folder is `folder`, through the tools' own validation."""
    fields = _fields(body)
    request_type = fields.get("type")
    tool = REQUEST_TYPES.get(request_type) if isinstance(request_type, str) else None
    if tool is None:
        raise AppError(
            ErrorCode.INVALID_ARGUMENTS,
            f"unknown request type {json.dumps(request_type)[:80]}; known types: {', '.join(REQUEST_TYPES)}",
        )
    if fields.get("requestId", request_id) != request_id:
        raise AppError(
            ErrorCode.INVALID_ARGUMENTS,
            f"{request_type}: `requestId` differs from the file name {request_id}.json",
        )
    caller = AgentCaller(AgentId(folder))
    await _check_requested_by(gateway, caller, fields.get("requestedBy"))
    for key in fields:
        if key in _REQUEST_FIELDS:  # a tool's name for a field that request files name differently
            raise AppError(
                ErrorCode.INVALID_ARGUMENTS,
                f"{request_type}: unknown argument `{key}`; request files call it `{_REQUEST_FIELDS[key]}`",
            )
    arguments = {_TOOL_FIELDS.get(key, key): value for key, value in fields.items() if key not in _ENVELOPE}
    command = parse_tool_call(tool, arguments, label=request_type, field_names=_REQUEST_FIELDS)
    return await gateway.dispatch(caller, command, Source.FILE)


async def _check_requested_by(gateway: OrchestrationGateway, caller: AgentCaller, requested_by: object) -> None:
    """`requestedBy` is optional; when given it must name the folder's own agent, by id or by name."""
    if requested_by is None or (isinstance(requested_by, str) and _same_uuid(requested_by, caller.agent_id)):
        return
    listing = await gateway.dispatch(caller, ListAgents(), Source.FILE)
    own_name = (listing.data or {}).get("you")
    if (
        isinstance(requested_by, str)
        and isinstance(own_name, str)
        and requested_by.strip().casefold() == own_name.casefold()
    ):
        return
    raise AppError(
        ErrorCode.PERMISSION_DENIED,
        f"requestedBy names {json.dumps(requested_by)[:80]}, but this request folder belongs to "
        f"{own_name or caller.agent_id}; a request always speaks for the agent whose folder holds it",
    )


def _fields(body: bytes) -> dict[str, Any]:
    try:
        fields = json.loads(body)
    except ValueError as exc:
        raise AppError(ErrorCode.INVALID_ARGUMENTS, f"the request is not valid JSON: {exc}") from None
    except RecursionError:
        raise AppError(ErrorCode.INVALID_ARGUMENTS, "the request is not valid JSON: it nests too deeply") from None
    if not isinstance(fields, dict):
        raise AppError(ErrorCode.INVALID_ARGUMENTS, "the request must be one JSON object with a `type`")
    return fields


def failure_response(request_id: str, error: AppError) -> dict[str, Any]:
    details: dict[str, Any] = {"code": error.code.value, "message": error.message, "retryable": error.retryable}
    details.update((key, value) for key, value in error.data.items() if key not in details)
    return {"requestId": request_id, "ok": False, "error": details}


def _same_uuid(a: str, b: str) -> bool:
    try:
        return uuid.UUID(a.strip()) == uuid.UUID(b)
    except ValueError:
        return False
