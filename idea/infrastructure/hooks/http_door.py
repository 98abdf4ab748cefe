"""The resident hook door: Claude Code's HTTP hooks post each lifecycle event straight to IdeA (spec 05 §2-§3).

A command hook costs a process start on every `UserPromptSubmit` and `Stop` of every agent, and the CLI
waits for it. Claude Code also runs hooks of type `http`: it POSTs the event's JSON to a URL and waits
for the answer. Each open project serves such a URL on 127.0.0.1 (a port of its own, chosen by the
system), so an event costs one request on a kept-alive connection and no process at all. The run dir
declares, per event, `http://127.0.0.1:<port>/hooks/<project 32hex>/<agentId>/<Event>` with the launch
secret as a bearer token (`agents/run_dir.py`); when the door could not be opened the command relay is
declared instead, as before.

The rules of the socket door hold here: the token of the agent's current launch is checked before the
event is taken; a request for another project, or one that a web page could have sent (a foreign `Host`,
an `Origin`), is refused; a malformed, oversized or slow request is answered once and its connection
closed, and never stops the door. An event is answered as soon as it is handed to the core (an empty 200,
which Claude reads as "no decision"); refusals are 4xx, which Claude treats as a non-blocking error.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from http import HTTPStatus
from typing import Any
from urllib.parse import quote, unquote

from idea.application.orchestrator.gateway import OrchestrationGateway
from idea.application.ports import Diagnostics
from idea.domain.ids import ProjectId, simple_hex
from idea.infrastructure.hooks.hook_events import parsed_payload, take_hook_event
from idea.infrastructure.hooks.http_head import HEAD_LIMIT, BadRequest, RequestHead, parse_head, response
from idea.infrastructure.hooks.relay import payload_line

LOOPBACK_HOST = "127.0.0.1"
PATH_PREFIX = "/hooks/"
SOURCE = "claude"  # the one CLI with HTTP hooks
HEAD_TIMEOUT_S = 5.0  # from a request's first byte to the end of its body
IDLE_TIMEOUT_S = 600.0  # a kept-alive connection nobody uses; longer than a CLI keeps it, to avoid races
MAX_CONNECTIONS = 256

class HookUrls:
    """Where each open project's hook door listens: filled by the doors, read by the run-dir writer."""

    def __init__(self) -> None:
        self._urls: dict[str, str] = {}

    def url_for(self, project_id: ProjectId) -> str | None:
        """The URL prefix of the project's door (`…/hooks/<32hex>`), None when it has none open."""
        return self._urls.get(simple_hex(project_id))

    def open(self, project_id: ProjectId, url: str) -> None:
        self._urls[simple_hex(project_id)] = url

    def close(self, project_id: ProjectId, url: str) -> None:
        if self._urls.get(simple_hex(project_id)) == url:
            del self._urls[simple_hex(project_id)]


def hook_url(prefix: str, agent_id: str, event: str) -> str:
    """The URL one agent's CLI posts `event` to."""
    return f"{prefix}/{quote(agent_id, safe='')}/{quote(event, safe='')}"


class HookHttpDoor:
    def __init__(
        self,
        project_id: ProjectId,
        gateway: OrchestrationGateway,
        diagnostics: Diagnostics,
        urls: HookUrls,
        admit: Callable[[asyncio.StreamWriter], Any] | None = None,
    ) -> None:
        """`admit(writer)` -> awaitable of None, or of why the peer is refused (the loopback transport's
        check of the peer's owner, on Windows)."""
        self._project_id = project_id
        self._project_hex = simple_hex(project_id)
        self._gateway = gateway
        self._diagnostics = diagnostics
        self._urls = urls
        self._admit = admit
        self._server: asyncio.Server | None = None
        self._url: str | None = None
        self._port = 0
        self._connections: set[asyncio.Task[None]] = set()

    @property
    def connection_count(self) -> int:
        return len(self._connections)

    @property
    def url(self) -> str | None:
        """Where it listens; None while closed."""
        return self._url if self._server is not None else None

    async def start(self) -> None:
        """Listen on a free loopback port. An OSError (no loopback interface, …) leaves the door closed: the
        run dir then declares the command relay."""
        self._server = await asyncio.start_server(self._serve, LOOPBACK_HOST, 0, limit=HEAD_LIMIT)
        self._port = self._server.sockets[0].getsockname()[1]
        self._url = f"http://{LOOPBACK_HOST}:{self._port}{PATH_PREFIX}{self._project_hex}"
        self._urls.open(self._project_id, self._url)
        self._diagnostics.beacon(f"[hook] listening {self._url}")

    async def close(self) -> None:
        if self._server is None:
            return
        server, self._server = self._server, None
        if self._url is not None:
            self._urls.close(self._project_id, self._url)
        server.close()
        for task in list(self._connections):
            task.cancel()
        if self._connections:
            await asyncio.gather(*self._connections, return_exceptions=True)
        await server.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        try:
            if self._server is None or len(self._connections) >= MAX_CONNECTIONS:
                return
            self._connections.add(task)
            if self._admit is not None and (refusal := await self._admit(writer)) is not None:
                self._diagnostics.beacon(f"[hook] refused a connection from {refusal}")
                return
            while await self._serve_request(reader, writer):
                pass
        except (asyncio.CancelledError, ConnectionError):
            pass
        except Exception as exc:  # one broken connection must never take the door down
            self._diagnostics.beacon(f"[hook] connection failed: {exc!r}")
        finally:
            self._connections.discard(task)
            writer.close()

    async def _serve_request(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        """Serve one request; False when the connection is over."""
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), IDLE_TIMEOUT_S)
        except (asyncio.IncompleteReadError, TimeoutError):
            return False  # closed by the CLI, or idle for too long
        except asyncio.LimitOverrunError:
            await _answer(writer, HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE, "request head too large")
            return False
        try:
            request = parse_head(head)
            agent_id, event = self._admitted(request)  # before the body: nobody else makes IdeA read 16 MiB
            body = await asyncio.wait_for(reader.readexactly(request.content_length), HEAD_TIMEOUT_S)
            self._take(agent_id, event, body)
        except BadRequest as refused:
            self._diagnostics.beacon(f"[hook] refused a request: {refused.status.value} {refused.reason}")
            extra = ("WWW-Authenticate: Bearer",) if refused.status == HTTPStatus.UNAUTHORIZED else ()
            await _answer(writer, refused.status, refused.reason, extra)
            return False
        except (asyncio.IncompleteReadError, TimeoutError):
            return False  # the body never came whole
        writer.write(response(HTTPStatus.OK, close=not request.keep_alive))
        await writer.drain()
        return request.keep_alive

    def _admitted(self, request: RequestHead) -> tuple[str, str]:
        """(agent id, event) of a request for this project carrying the agent's launch secret."""
        agent_id, event = self._route(request)
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not token.strip() or not self._gateway.authenticate(agent_id, token.strip()):
            raise BadRequest(HTTPStatus.UNAUTHORIZED, f"unauthenticated caller agent={agent_id!r}")
        return agent_id, event

    def _take(self, agent_id: str, event: str, body: bytes) -> None:
        # Its longest strings cut past 64 KiB, as the command relay cuts them.
        payload = parsed_payload(payload_line(body).decode("utf-8", "replace"))
        take_hook_event(self._gateway, self._diagnostics, agent_id, SOURCE, event, payload)

    def _route(self, request: RequestHead) -> tuple[str, str]:
        """(agent id, event) from the target, after the checks a web page's request fails."""
        if "origin" in request.headers:
            raise BadRequest(HTTPStatus.FORBIDDEN, "requests from web pages are refused")
        if request.headers.get("host", "").lower() not in (f"{LOOPBACK_HOST}:{self._port}", f"localhost:{self._port}"):
            raise BadRequest(HTTPStatus.FORBIDDEN, "unexpected Host")
        path = request.target.partition("?")[0]
        parts = path[len(PATH_PREFIX) :].split("/") if path.startswith(PATH_PREFIX) else []
        if len(parts) != 3 or parts[0] != self._project_hex or not parts[1]:
            raise BadRequest(HTTPStatus.NOT_FOUND, "no such hook")
        if request.method != "POST":
            raise BadRequest(HTTPStatus.METHOD_NOT_ALLOWED, "hooks are posted")
        return unquote(parts[1]), unquote(parts[2])


async def _answer(writer: asyncio.StreamWriter, status: HTTPStatus, reason: str, extra: tuple[str, ...] = ()) -> None:
    writer.write(response(status, close=True, reason=reason, extra=extra))
    try:
        await writer.drain()
    except ConnectionError:
        pass
