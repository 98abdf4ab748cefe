"""The HTTP hook door (spec 05 §2-§3): Claude Code's `http` hooks post lifecycle events to IdeA over loopback.

Real sockets; the client side is the standard library's `http.client` on a kept-alive connection, as a CLI's
HTTP agent keeps one, or raw bytes where the request itself is the point.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import socket
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest

from idea.domain.ids import simple_hex
from idea.infrastructure.hooks.http_door import MAX_CONNECTIONS, HookHttpDoor, HookUrls, hook_url
from idea.infrastructure.hooks.http_head import BODY_LIMIT, HEAD_LIMIT
from idea.infrastructure.hooks.relay import PAYLOAD_LIMIT, TRUNCATION_MARK
from tests.fakes import RecordingDiagnostics
from tests.fakes_gateway import ARCHITECT, MAIN, TOKENS, FakeGateway
from tests.integration.mcp_support import PROJECT_ID

STOP = {"session_id": "9b2f7c1e", "transcript_path": "/t.jsonl", "cwd": "/r", "hook_event_name": "Stop"}


@dataclass
class Door:
    door: HookHttpDoor
    gateway: FakeGateway
    diagnostics: RecordingDiagnostics
    urls: HookUrls

    @property
    def prefix(self) -> str:
        url = self.urls.url_for(PROJECT_ID)
        assert url is not None
        return url

    @property
    def port(self) -> int:
        return int(self.prefix.split(":")[2].split("/")[0])

    def url(self, agent: str = MAIN, event: str = "Stop") -> str:
        return hook_url(self.prefix, agent, event)

    def path(self, agent: str = MAIN, event: str = "Stop") -> str:
        return "/" + self.url(agent, event).split("/", 3)[3]

    def beacons(self, prefix: str = "[hook]") -> list[str]:
        return [line for line in self.diagnostics.lines if line.startswith(prefix)]


@pytest.fixture
async def door() -> AsyncIterator[Door]:
    gateway, diagnostics, urls = FakeGateway(), RecordingDiagnostics(), HookUrls()
    hook_door = HookHttpDoor(PROJECT_ID, gateway, diagnostics, urls)
    await hook_door.start()
    try:
        yield Door(hook_door, gateway, diagnostics, urls)
    finally:
        await hook_door.close()


def post(door: Door, path: str, body: bytes, headers: dict[str, str], connection: Any = None) -> tuple[int, bytes]:
    """One POST with `http.client` (blocking: run it in a thread)."""
    own = connection is None
    connection = connection or http.client.HTTPConnection("127.0.0.1", door.port, timeout=5)
    try:
        connection.request("POST", path, body=body, headers={"Content-Type": "application/json", **headers})
        answer = connection.getresponse()
        return answer.status, answer.read()
    finally:
        if own:
            connection.close()


def bearer(agent: str = MAIN) -> dict[str, str]:
    return {"Authorization": f"Bearer {TOKENS[agent]}"}


async def raw_exchange(door: Door, request: bytes) -> bytes:
    """Send `request` as it is and read until the door closes the connection."""
    reader, writer = await asyncio.open_connection("127.0.0.1", door.port)
    try:
        writer.write(request)
        await writer.drain()
        return await asyncio.wait_for(reader.read(), 5)
    except ConnectionResetError:  # closed with the request unread: nothing was answered
        return b""
    finally:
        writer.close()


async def test_an_event_posted_with_the_launch_secret_reaches_the_gateway_and_is_answered_empty(door: Door) -> None:
    status, body = await asyncio.to_thread(post, door, door.path(), json.dumps(STOP).encode(), bearer())

    assert (status, body) == (200, b"")  # Claude reads an empty body as "no decision, no added context"
    [event] = door.gateway.hook_events
    assert (event.agent_id, event.source, event.event, event.payload) == (MAIN, "claude", "Stop", STOP)
    assert door.beacons("[hook] claude") == [f"[hook] claude Stop agent={MAIN}"]


async def test_the_url_is_published_while_the_door_is_open_and_withdrawn_when_it_closes(door: Door) -> None:
    port = door.port
    assert door.prefix == f"http://127.0.0.1:{port}/hooks/{simple_hex(PROJECT_ID)}"

    await door.door.close()

    assert door.urls.url_for(PROJECT_ID) is None
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", port), timeout=2).close()


async def test_many_events_share_one_kept_alive_connection(door: Door) -> None:
    def several() -> list[int]:
        connection = http.client.HTTPConnection("127.0.0.1", door.port, timeout=5)
        try:
            events = ("SessionStart", "UserPromptSubmit", "Stop", "Notification")
            statuses = [
                post(door, door.path(event=name), json.dumps({"hook_event_name": name}).encode(), bearer(), connection)[0]
                for name in events
            ]
            statuses.append(connection.sock.fileno() >= 0)  # still the same open socket
            return statuses
        finally:
            connection.close()

    assert await asyncio.to_thread(several) == [200, 200, 200, 200, True]
    assert [event.event for event in door.gateway.hook_events] == ["SessionStart", "UserPromptSubmit", "Stop", "Notification"]


@pytest.mark.parametrize(
    ("headers", "why"),
    [
        ({}, "no token"),
        ({"Authorization": f"Bearer {TOKENS[ARCHITECT]}"}, "another agent's token"),
        ({"Authorization": "Bearer "}, "an empty token"),
        ({"Authorization": f"Basic {TOKENS[MAIN]}"}, "another scheme"),
    ],
)
async def test_an_event_without_this_agents_launch_secret_is_refused_and_not_taken(
    door: Door, headers: dict[str, str], why: str
) -> None:
    status, body = await asyncio.to_thread(post, door, door.path(MAIN), json.dumps(STOP).encode(), headers)

    assert status == 401, why
    assert b"unauthenticated" in body
    assert door.gateway.hook_events == []
    assert any("401 unauthenticated caller" in line for line in door.beacons())


@pytest.mark.parametrize(
    ("path", "status"),
    [
        ("/hooks/" + "0" * 32 + f"/{MAIN}/Stop", 404),  # another project
        (f"/hooks/{simple_hex(PROJECT_ID)}/{MAIN}", 404),  # no event
        (f"/hooks/{simple_hex(PROJECT_ID)}//Stop", 404),  # no agent
        ("/", 404),
    ],
)
async def test_a_path_that_names_no_hook_of_this_project_is_not_found(door: Door, path: str, status: int) -> None:
    answer, _ = await asyncio.to_thread(post, door, path, json.dumps(STOP).encode(), bearer())

    assert answer == status
    assert door.gateway.hook_events == []


async def test_what_a_web_page_could_send_is_refused(door: Door) -> None:
    origin = await asyncio.to_thread(
        post, door, door.path(), json.dumps(STOP).encode(), {**bearer(), "Origin": "https://example.org"}
    )
    rebound = await raw_exchange(
        door,
        f"POST {door.path()} HTTP/1.1\r\nHost: evil.example:{door.port}\r\nAuthorization: Bearer {TOKENS[MAIN]}\r\n"
        f"Content-Length: 2\r\n\r\n{{}}".encode(),
    )

    assert origin[0] == 403
    assert rebound.startswith(b"HTTP/1.1 403 ")
    assert door.gateway.hook_events == []


async def test_a_get_is_told_hooks_are_posted(door: Door) -> None:
    answer = await raw_exchange(door, f"GET {door.path()} HTTP/1.1\r\nHost: 127.0.0.1:{door.port}\r\n\r\n".encode())

    assert answer.startswith(b"HTTP/1.1 405 ")
    assert b"hooks are posted" in answer


@pytest.mark.parametrize(
    ("request_bytes", "status"),
    [
        (b"garbage\r\n\r\n", b"400"),
        (b"POST /x HTTP/2.0\r\nHost: h\r\n\r\n", b"505"),
        (b"POST /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n", b"411"),
        (b"POST /x HTTP/1.1\r\nContent-Length: -1\r\n\r\n", b"400"),
        (f"POST /x HTTP/1.1\r\nContent-Length: {BODY_LIMIT + 1}\r\n\r\n".encode(), b"413"),
        (b"POST /x HTTP/1.1\r\nX: " + b"a" * HEAD_LIMIT + b"\r\n\r\n", b"431"),
        (b"POST /x HTTP/1.1\r\nno colon here\r\n\r\n", b"400"),
    ],
)
async def test_a_malformed_request_is_answered_once_and_the_door_keeps_serving(
    door: Door, request_bytes: bytes, status: bytes
) -> None:
    answer = await raw_exchange(door, request_bytes)

    assert answer.startswith(b"HTTP/1.1 " + status + b" ")
    assert answer.count(b"HTTP/1.1 ") == 1
    good, _ = await asyncio.to_thread(post, door, door.path(), json.dumps(STOP).encode(), bearer())
    assert good == 200


async def test_a_body_that_is_not_a_json_object_arrives_raw(door: Door) -> None:
    for body, raw in ((b"not json", "not json"), (b"[1, 2]", [1, 2])):
        status, _ = await asyncio.to_thread(post, door, door.path(), body, bearer())
        assert status == 200
        assert door.gateway.hook_events[-1].payload == {"raw": raw}


async def test_a_large_prompt_is_cut_to_64_kib_as_the_relay_cuts_it(door: Door) -> None:
    prompt = "[IdeA · task from Main · ticket 3f2a9c1e] " + "x" * 150_000
    payload = {"hook_event_name": "UserPromptSubmit", "session_id": "s", "prompt": prompt}

    status, _ = await asyncio.to_thread(
        post, door, door.path(event="UserPromptSubmit"), json.dumps(payload).encode(), bearer()
    )

    assert status == 200
    taken = door.gateway.hook_events[-1].payload
    assert taken["prompt"].startswith("[IdeA · task from Main · ticket 3f2a9c1e] xxx")
    assert taken["prompt"].endswith(TRUNCATION_MARK)
    assert len(json.dumps(taken, ensure_ascii=False).encode()) <= PAYLOAD_LIMIT


async def test_a_request_whose_body_never_comes_does_not_hold_other_events(door: Door) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", door.port)
    writer.write(
        f"POST {door.path()} HTTP/1.1\r\nHost: 127.0.0.1:{door.port}\r\nContent-Length: 1000\r\n\r\n{{".encode()
    )
    await writer.drain()
    try:
        status, _ = await asyncio.to_thread(post, door, door.path(), json.dumps(STOP).encode(), bearer())
        assert status == 200
    finally:
        writer.close()


async def test_connections_past_the_limit_are_closed_without_stopping_the_door(
    door: Door, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("idea.infrastructure.hooks.http_door.MAX_CONNECTIONS", 2)
    held = [await asyncio.open_connection("127.0.0.1", door.port) for _ in range(2)]
    await asyncio.sleep(0)
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", door.port)
        assert await asyncio.wait_for(reader.read(), 5) == b""  # closed at once
        writer.close()
    finally:
        for _, held_writer in held:
            held_writer.close()
    assert MAX_CONNECTIONS > 2
    for _ in range(500):  # the door sees the held connections end on its next reads
        if door.door.connection_count == 0:
            break
        await asyncio.sleep(0.01)
    status, _ = await asyncio.to_thread(post, door, door.path(), json.dumps(STOP).encode(), bearer())
    assert status == 200


async def test_closing_the_door_ends_kept_alive_connections(door: Door) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", door.port)
    body = json.dumps(STOP)
    writer.write(
        f"POST {door.path()} HTTP/1.1\r\nHost: 127.0.0.1:{door.port}\r\nAuthorization: Bearer {TOKENS[MAIN]}\r\n"
        f"Content-Length: {len(body)}\r\n\r\n{body}".encode()
    )
    await writer.drain()
    assert (await reader.readuntil(b"\r\n\r\n")).startswith(b"HTTP/1.1 200 ")

    await asyncio.wait_for(door.door.close(), 5)

    assert await asyncio.wait_for(reader.read(), 5) == b""
    writer.close()


async def test_a_refused_peer_is_closed_before_its_request_is_read() -> None:
    gateway, diagnostics, urls = FakeGateway(), RecordingDiagnostics(), HookUrls()

    async def refuse(_writer: asyncio.StreamWriter) -> str:
        return "user mallory"

    hook_door = HookHttpDoor(PROJECT_ID, gateway, diagnostics, urls, admit=refuse)
    await hook_door.start()
    try:
        door = Door(hook_door, gateway, diagnostics, urls)
        answer = await raw_exchange(door, f"POST {door.path()} HTTP/1.1\r\n\r\n".encode())
    finally:
        await hook_door.close()

    assert answer == b""
    assert "[hook] refused a connection from user mallory" in diagnostics.lines


async def test_an_unauthenticated_request_is_refused_before_its_body_is_read(door: Door) -> None:
    """Its announced 16 MiB are never read: the answer comes while the body is still unsent."""
    reader, writer = await asyncio.open_connection("127.0.0.1", door.port)
    try:
        writer.write(
            f"POST {door.path()} HTTP/1.1\r\nHost: 127.0.0.1:{door.port}\r\nAuthorization: Bearer nope\r\n"
            f"Content-Length: {BODY_LIMIT}\r\n\r\n".encode()
        )
        await writer.drain()
        answer = await asyncio.wait_for(reader.read(), 5)
    finally:
        writer.close()

    assert answer.startswith(b"HTTP/1.1 401 ")
    assert door.gateway.hook_events == []
