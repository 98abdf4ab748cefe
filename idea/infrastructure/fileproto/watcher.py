"""The request-folder door (spec 03 §6): how agents whose CLI has no MCP talk to IdeA.

An agent writes `.ideai/requests/<agentId>/in/<requestId>.json` (as `<requestId>.json.tmp`, then renamed);
IdeA answers in `.ideai/requests/<agentId>/out/<requestId>.json`, written atomically, and deletes the
request. The folder is the caller's identity, the file name the request id. Requests name the same
commands as the MCP tools and their fields are checked by the same code (`idea.infrastructure.mcp.tools`).

A `watchdog` observer thread notices the files and reads them; each request then runs in a task of its
own on the core loop, so an `agent.message` waiting for its answer never holds up another request.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import time
import uuid
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from watchdog.events import (
    FileClosedEvent,
    FileCreatedEvent,
    FileModifiedEvent,
    FileMovedEvent,
    FileSystemEvent,
    FileSystemEventHandler,
)
from watchdog.observers import Observer
from watchdog.observers.api import BaseObserver

from idea.application.orchestrator.gateway import OrchestrationGateway
from idea.application.ports import Diagnostics
from idea.domain.errors import AppError, ErrorCode
from idea.domain.ids import AgentId, is_uuid
from idea.domain.orchestration import AgentCaller, ListAgents, Outcome, Source
from idea.domain.project import IDEAI_DIR
from idea.infrastructure.agents.run_dir import REQUESTS_DIR
from idea.infrastructure.fs import atomic_write_json
from idea.infrastructure.mcp.tools import REQUEST_TYPES, parse_tool_call

REQUEST_MAX_BYTES = 256 * 1024
RESPONSE_MAX_AGE_S = 24 * 3600
INBOX = "in"
OUTBOX = "out"

_TOOL_FIELDS = {"targetAgent": "target"}  # request field -> tool argument
_REQUEST_FIELDS = {tool: request for request, tool in _TOOL_FIELDS.items()}
_ENVELOPE = ("type", "requestId", "requestedBy")
_REQUEST_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")

# watchdog's inotify backend warns each time a folder created inside the watched tree is already watched
# (agents' `in/` and `out/` folders appear while the watch runs); the watch itself is fine.
warnings.filterwarnings("ignore", message="Callback with id .* already exists", category=RuntimeWarning)


@dataclass(frozen=True)
class _Request:
    """One request file as read from disk: its bytes, or why they could not be used."""

    agent_id: AgentId
    request_id: str
    path: Path
    body: bytes | None
    problem: str | None = None


class RequestFolderDoor:
    """Serves the request folders of one project from `start` to `close`."""

    def __init__(
        self,
        project_root: str | os.PathLike[str],
        gateway: OrchestrationGateway,
        loop: asyncio.AbstractEventLoop,
        diagnostics: Diagnostics,
    ) -> None:
        self._requests_dir = Path(project_root) / IDEAI_DIR / REQUESTS_DIR
        self._gateway = gateway
        self._loop = loop
        self._diagnostics = diagnostics
        self._observer: BaseObserver | None = None
        self._seen: set[tuple[AgentId, str]] = set()
        self._tasks: set[asyncio.Task[None]] = set()
        self._closed = False

    async def start(self) -> None:
        """Watch the request folders, answer the requests left from before, and delete answers older than
        a day. Starting a started door does nothing."""
        if self._observer is not None or self._closed:
            return
        await asyncio.to_thread(self._requests_dir.mkdir, parents=True, exist_ok=True)
        await asyncio.to_thread(self._delete_old_responses)
        observer = Observer()
        observer.schedule(_FolderEvents(self), str(self._requests_dir), recursive=True)
        await asyncio.to_thread(observer.start)
        self._observer = observer
        # Scanned after the watch started, so no file falls between the two; duplicates are ignored.
        for request in await asyncio.to_thread(self._leftovers):
            self._accept(request)

    async def close(self) -> None:
        """Stop watching and cancel the requests in progress (their files stay, for the next start)."""
        if self._closed:
            return
        self._closed = True
        if self._observer is not None:
            self._observer.stop()
            await asyncio.to_thread(self._observer.join)
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    # Observer thread.

    def _file_event(self, path: str, *, complete: bool) -> None:
        request = self._read(Path(path), complete=complete)
        if request is not None:
            self._loop.call_soon_threadsafe(self._accept, request)

    def _read(self, path: Path, *, complete: bool) -> _Request | None:
        """The request at `path`, or None when it is not a request file (or, for a file that may still be
        being written, when its content is not JSON yet: the event of its closing will come)."""
        if path.suffix != ".json" or path.parent.name != INBOX or path.parent.parent.parent != self._requests_dir:
            return None
        agent_id = path.parent.parent.name
        if not is_uuid(agent_id) or not _REQUEST_ID.fullmatch(path.stem):
            self._loop.call_soon_threadsafe(self._diagnostics.beacon, f"[file] ignored request file {path}")
            return None
        try:
            size = path.stat().st_size
            if size > REQUEST_MAX_BYTES:
                return _Request(
                    agent_id, path.stem, path, None, f"the request is larger than {REQUEST_MAX_BYTES} bytes"
                )
            body = path.read_bytes()
        except FileNotFoundError:
            return None  # already answered and deleted
        except OSError as exc:
            return _Request(
                agent_id, path.stem, path, None, f"the request file cannot be read: {exc.strerror or exc}"
            )
        if not complete and not _is_json(body):
            return None
        return _Request(agent_id, path.stem, path, body)

    def _leftovers(self) -> list[_Request]:
        requests = (
            self._read(path, complete=True) for path in sorted(self._requests_dir.glob(f"*/{INBOX}/*.json"))
        )
        return [request for request in requests if request is not None]

    def _delete_old_responses(self) -> None:
        cutoff = time.time() - RESPONSE_MAX_AGE_S
        for response in self._requests_dir.glob(f"*/{OUTBOX}/*.json"):
            try:
                if response.stat().st_mtime < cutoff:
                    response.unlink()
            except OSError:
                pass

    # Core loop.

    def _accept(self, request: _Request) -> None:
        key = (request.agent_id, request.request_id)
        if self._closed or key in self._seen:
            return
        self._seen.add(key)
        task = asyncio.create_task(self._serve(request), name=f"request {request.request_id}")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _serve(self, request: _Request) -> None:
        request_type = "?"
        try:
            fields = _fields(request)
            request_type = str(fields.get("type"))
            outcome = await self._run(request, fields)
            response: dict[str, Any] = {
                "requestId": request.request_id,
                "ok": True,
                "detail": outcome.detail,
                "reply": outcome.reply,
            }
            verdict = "ok"
        except AppError as error:
            response = _failure(request.request_id, error)
            verdict = error.code.value
        except Exception as exc:  # a bug must cost one request its answer, never the door
            self._diagnostics.beacon(f"[file] request {request.request_id} failed: {exc!r}")
            response = _failure(
                request.request_id, AppError(ErrorCode.INTERNAL, "IdeA failed while serving this request")
            )
            verdict = ErrorCode.INTERNAL.value
        self._diagnostics.beacon(
            f"[file] {request_type} request={request.request_id} agent={request.agent_id} {verdict}"
        )
        try:
            await asyncio.to_thread(self._answer, request, response)
        except OSError as exc:
            self._diagnostics.beacon(f"[file] could not answer request {request.request_id}: {exc}")

    async def _run(self, request: _Request, fields: dict[str, Any]) -> Outcome:
        request_type = fields.get("type")
        tool = REQUEST_TYPES.get(request_type) if isinstance(request_type, str) else None
        if tool is None:
            raise AppError(
                ErrorCode.INVALID_ARGUMENTS,
                f"unknown request type {json.dumps(request_type)}; known types: {', '.join(REQUEST_TYPES)}",
            )
        if fields.get("requestId", request.request_id) != request.request_id:
            raise AppError(
                ErrorCode.INVALID_ARGUMENTS,
                f"{request_type}: `requestId` differs from the file name {request.request_id}.json",
            )
        caller = AgentCaller(request.agent_id)
        await self._check_requested_by(caller, fields.get("requestedBy"))
        for key in fields:
            if key in _REQUEST_FIELDS:  # a tool's name for a field that request files name differently
                raise AppError(
                    ErrorCode.INVALID_ARGUMENTS,
                    f"{request_type}: unknown argument `{key}`; request files call it `{_REQUEST_FIELDS[key]}`",
                )
        arguments = {_TOOL_FIELDS.get(key, key): value for key, value in fields.items() if key not in _ENVELOPE}
        command = parse_tool_call(tool, arguments, label=request_type, field_names=_REQUEST_FIELDS)
        return await self._gateway.dispatch(caller, command, Source.FILE)

    async def _check_requested_by(self, caller: AgentCaller, requested_by: object) -> None:
        """`requestedBy` is optional; when given it must name the folder's own agent, by id or by name."""
        if requested_by is None or (isinstance(requested_by, str) and _same_uuid(requested_by, caller.agent_id)):
            return
        listing = await self._gateway.dispatch(caller, ListAgents(), Source.FILE)
        own_name = (listing.data or {}).get("you")
        if (
            isinstance(requested_by, str)
            and isinstance(own_name, str)
            and requested_by.strip().casefold() == own_name.casefold()
        ):
            return
        raise AppError(
            ErrorCode.PERMISSION_DENIED,
            f"requestedBy names {json.dumps(requested_by)}, but this request folder belongs to "
            f"{own_name or caller.agent_id}; a request always speaks for the agent whose folder holds it",
        )

    def _answer(self, request: _Request, response: dict[str, Any]) -> None:
        outbox = request.path.parent.parent / OUTBOX
        atomic_write_json(outbox / f"{request.request_id}.json", response)
        try:
            request.path.unlink()
        except FileNotFoundError:
            pass


class _FolderEvents(FileSystemEventHandler):
    """Runs on the observer thread. A file renamed into place or closed after writing is complete; a
    created or modified one may still be being written (platforms without close events rely on these)."""

    def __init__(self, door: RequestFolderDoor) -> None:
        self._door = door

    def on_any_event(self, event: FileSystemEvent) -> None:
        if isinstance(event, FileMovedEvent):
            self._door._file_event(os.fsdecode(event.dest_path), complete=True)
        elif isinstance(event, FileClosedEvent):
            self._door._file_event(os.fsdecode(event.src_path), complete=True)
        elif isinstance(event, FileCreatedEvent | FileModifiedEvent):
            self._door._file_event(os.fsdecode(event.src_path), complete=False)


def _fields(request: _Request) -> dict[str, Any]:
    if request.problem is not None:
        raise AppError(ErrorCode.INVALID_ARGUMENTS, request.problem)
    assert request.body is not None
    try:
        fields = json.loads(request.body)
    except ValueError as exc:
        raise AppError(ErrorCode.INVALID_ARGUMENTS, f"the request is not valid JSON: {exc}") from None
    if not isinstance(fields, dict):
        raise AppError(ErrorCode.INVALID_ARGUMENTS, "the request must be one JSON object with a `type`")
    return fields


def _failure(request_id: str, error: AppError) -> dict[str, Any]:
    details: dict[str, Any] = {"code": error.code.value, "message": error.message, "retryable": error.retryable}
    details.update((key, value) for key, value in error.data.items() if key not in details)
    return {"requestId": request_id, "ok": False, "error": details}


def _is_json(body: bytes) -> bool:
    try:
        json.loads(body)
    except ValueError:
        return False
    return True


def _same_uuid(a: str, b: str) -> bool:
    try:
        return uuid.UUID(a.strip()) == uuid.UUID(b)
    except ValueError:
        return False
