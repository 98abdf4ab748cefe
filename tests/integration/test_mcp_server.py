"""The project's MCP server over its real Unix socket (spec 03 §3, §5, §13 #2 and #15).

Most cases go through the official SDK client spawning the real bridge exactly as the agent's `.mcp.json`
declares it; the cases about malformed traffic speak the wire format directly.
"""

from __future__ import annotations

import asyncio
import json
import os
import select
import socket
import stat
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from idea.domain.errors import AppError, ErrorCode
from idea.domain.orchestration.commands import AgentCaller, AskAgent, ListAgents, Outcome, ReadWorkState, Source
from idea.infrastructure.mcp import server as server_module
from idea.infrastructure.mcp.connect import is_loopback_endpoint
from idea.infrastructure.mcp.server import McpSocketServer
from idea.infrastructure.mcp.tools import TOOL_DEFINITIONS
from tests.fakes import RecordingDiagnostics
from tests.fakes_gateway import ARCHITECT, MAIN, PROJECT_ID, TOKENS, FakeGateway
from tests.integration.mcp_support import (
    APP_VERSION,
    PROJECT_HEX,
    REPO_ROOT,
    RawClient,
    Served,
    bridge_declaration,
    open_stream,
    project_endpoint,
    serving,
)
from tests.integration.mcp_support import endpoint, raw, served  # noqa: F401  (fixtures)

ASK = {"target": "Architect", "task": "Reply pong via idea_reply."}


@asynccontextmanager
async def bridged_session(served: Served, stderr_path: Path) -> AsyncIterator[ClientSession]:
    """An SDK client session through the real bridge, started as the agent's `.mcp.json` says."""
    declaration = bridge_declaration(served.endpoint)
    params = StdioServerParameters(
        command=declaration["command"], args=declaration["args"], env=declaration["env"], cwd=REPO_ROOT
    )
    with stderr_path.open("w") as stderr:
        async with stdio_client(params, errlog=stderr) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            yield session


# Through the bridge, with the SDK's client.


async def test_initialize_announces_idea_and_reports_the_bridge(served: Served, tmp_path: Path) -> None:
    declaration = bridge_declaration(served.endpoint)
    params = StdioServerParameters(
        command=declaration["command"], args=declaration["args"], env=declaration["env"], cwd=REPO_ROOT
    )
    with (tmp_path / "bridge.err").open("w") as stderr:
        async with stdio_client(params, errlog=stderr) as (read, write), ClientSession(read, write) as session:
            result = await session.initialize()

            assert result.server_info.name == "idea"
            assert result.server_info.version == APP_VERSION
            assert result.protocol_version == "2025-11-25"  # the SDK client's offer, echoed
            assert result.capabilities.tools is not None and result.capabilities.tools.list_changed is False
            assert result.instructions and "idea_ask_agent" in result.instructions
            await served.gateway.until(lambda: served.gateway.initialized == [MAIN])
            assert served.gateway.connected == [MAIN]
    await served.gateway.until(lambda: served.gateway.disconnected == [MAIN])
    # On a Unix socket the bridge hands the client's pipes over; loopback TCP (Windows) relays.
    how = "" if is_loopback_endpoint(served.endpoint) else " (stdio handed over)"
    assert served.beacons("[mcp] connected") == [f"[mcp] connected requester={MAIN}{how}"]


async def test_tools_list_is_the_catalogue(served: Served, tmp_path: Path) -> None:
    async with bridged_session(served, tmp_path / "bridge.err") as session:
        listed = await session.list_tools()

        assert [tool.model_dump(by_alias=True, exclude_none=True) for tool in listed.tools] == list(
            TOOL_DEFINITIONS
        )


async def test_a_call_returns_the_gateway_outcome(served: Served, tmp_path: Path) -> None:
    async with bridged_session(served, tmp_path / "bridge.err") as session:
        data = {
            "ticket": "3f2a9c1e-5d7b-4c1a-9e0f-2b6d8a4c7e11",
            "target": "Architect",
            "reply": "pong",
            "elapsedMs": 8,
        }
        served.gateway.answer(AskAgent, Outcome(detail="delivered", reply="pong", data=data))

        result = await session.call_tool("idea_ask_agent", ASK)

        assert result.is_error is False
        assert [block.text for block in result.content] == ["pong"]
        assert result.structured_content == data
        [call] = served.gateway.dispatched
        assert call.requester == AgentCaller(MAIN)
        assert call.command == AskAgent(target="Architect", task="Reply pong via idea_reply.")
        assert call.source is Source.MCP


async def test_an_app_error_is_a_tool_result_with_its_code(served: Served, tmp_path: Path) -> None:
    async with bridged_session(served, tmp_path / "bridge.err") as session:
        message = "agent Architect returned to its prompt without calling idea_reply (no answer was rendered)"
        served.gateway.answer(
            AskAgent,
            AppError(
                ErrorCode.TARGET_RETURNED_NO_REPLY,
                message,
                retryable=True,
                data={"target": "Architect", "elapsedMs": 23410},
            ),
        )

        result = await session.call_tool("idea_ask_agent", ASK)

        assert result.is_error is True
        assert result.content[0].text == f"IdeA error TARGET_RETURNED_NO_REPLY (retryable): {message}"
        assert result.structured_content == {
            "error": {
                "code": "TARGET_RETURNED_NO_REPLY",
                "retryable": True,
                "message": message,
                "target": "Architect",
                "elapsedMs": 23410,
            }
        }


async def test_invalid_arguments_are_a_tool_result_the_model_can_act_on(served: Served, tmp_path: Path) -> None:
    async with bridged_session(served, tmp_path / "bridge.err") as session:
        result = await session.call_tool("idea_ask_agent", {"target": "Architect"})

        assert result.is_error is True
        assert (
            result.content[0].text
            == "IdeA error INVALID_ARGUMENTS (not retryable): idea_ask_agent: `task` is required"
        )
        assert served.gateway.dispatched == []


async def test_an_unexpected_failure_is_an_internal_result_and_is_logged(served: Served, tmp_path: Path) -> None:
    async with bridged_session(served, tmp_path / "bridge.err") as session:
        served.gateway.answer(ReadWorkState, RuntimeError("store exploded"))

        result = await session.call_tool("idea_workstate_read", {})

        assert result.is_error is True
        assert result.content[0].text.startswith("IdeA error INTERNAL (not retryable): IdeA failed while running")
        [logged] = served.beacons("[mcp] idea_workstate_read failed")
        assert "store exploded" in logged
        assert (await session.call_tool("idea_list_agents", {})).is_error is False


async def test_a_pending_ask_does_not_wedge_the_connection(served: Served, tmp_path: Path) -> None:
    async with bridged_session(served, tmp_path / "bridge.err") as session:
        gateway = served.gateway
        gateway.hold(AskAgent)
        ask = asyncio.create_task(session.call_tool("idea_ask_agent", ASK))
        await gateway.until(lambda: len(gateway.waiting(AskAgent)) == 1)

        listing = await asyncio.wait_for(session.call_tool("idea_list_agents", {}), 5)

        assert listing.is_error is False and not ask.done()
        gateway.release(gateway.waiting(AskAgent)[0], Outcome(detail="delivered", reply="pong"))
        assert (await asyncio.wait_for(ask, 5)).content[0].text == "pong"


async def test_a_long_result_crosses_the_bridge_whole(served: Served, tmp_path: Path) -> None:
    report = "line of a long report\n" * 250_000  # 5.5 MB, far above asyncio's default 64 KiB line limit
    served.gateway.answer(ReadWorkState, Outcome(detail=report))
    async with bridged_session(served, tmp_path / "bridge.err") as session:
        result = await session.call_tool("idea_workstate_read", {})

    assert result.content[0].text == report


async def test_a_pending_ask_does_not_delay_other_connections(served: Served) -> None:
    gateway = served.gateway
    gateway.hold(AskAgent)
    asking, other = await RawClient.connect(served.endpoint), await RawClient.connect(served.endpoint)
    await asking.initialize()
    await other.initialize()
    await asking.send(
        {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "idea_ask_agent", "arguments": ASK}}
    )
    await gateway.until(lambda: len(gateway.waiting(AskAgent)) == 1)

    assert (await other.call("idea_list_agents", {}))["result"]["isError"] is False
    gateway.release(gateway.waiting(AskAgent)[0], Outcome(detail="", reply="pong"))
    assert (await asking.receive())["result"]["content"][0]["text"] == "pong"
    await asking.close()
    await other.close()


async def test_two_asks_run_at_once_and_each_gets_its_answer(served: Served, tmp_path: Path) -> None:
    async with bridged_session(served, tmp_path / "bridge.err") as session:
        gateway = served.gateway
        gateway.hold(AskAgent)
        first = asyncio.create_task(
            session.call_tool("idea_ask_agent", {"target": "DevFrontend", "task": "alpha"})
        )
        second = asyncio.create_task(session.call_tool("idea_ask_agent", {"target": "Git", "task": "beta"}))
        await gateway.until(lambda: len(gateway.waiting(AskAgent)) == 2)  # both in flight before either ends

        by_target = {call.command.target: call for call in gateway.waiting(AskAgent)}
        gateway.release(by_target["Git"], Outcome(detail="", reply="beta-8"))
        gateway.release(by_target["DevFrontend"], Outcome(detail="", reply="alpha-8"))

        assert (await asyncio.wait_for(first, 5)).content[0].text == "alpha-8"
        assert (await asyncio.wait_for(second, 5)).content[0].text == "beta-8"


async def test_a_client_cancelling_its_call_cancels_the_dispatch_within_a_second(
    served: Served, tmp_path: Path
) -> None:
    async with bridged_session(served, tmp_path / "bridge.err") as session:
        gateway = served.gateway
        gateway.hold(AskAgent)
        ask = asyncio.create_task(session.call_tool("idea_ask_agent", ASK))
        await gateway.until(lambda: len(gateway.waiting(AskAgent)) == 1)
        [call] = gateway.calls_of(AskAgent)

        ask.cancel()  # the SDK client sends notifications/cancelled for it

        await gateway.until(lambda: call.cancelled, timeout=1.0)
        assert (await session.call_tool("idea_list_agents", {})).is_error is False


async def test_the_client_exiting_cancels_its_calls_in_flight(served: Served, tmp_path: Path) -> None:
    gateway = served.gateway
    gateway.hold(AskAgent)
    async with bridged_session(served, tmp_path / "bridge.err") as session:
        ask = asyncio.create_task(session.call_tool("idea_ask_agent", ASK))
        await gateway.until(lambda: len(gateway.waiting(AskAgent)) == 1)
    # Leaving the client closed the bridge's stdin and waited for it to exit.
    [call] = gateway.calls_of(AskAgent)
    await gateway.until(lambda: call.cancelled, timeout=2.0)
    await gateway.until(lambda: gateway.disconnected == [MAIN])
    assert served.beacons("[mcp] disconnected") == [f"[mcp] disconnected requester={MAIN} inflight=1"]
    await asyncio.gather(ask, return_exceptions=True)


# The wire format, spoken directly.


@pytest.mark.parametrize(
    ("offered", "negotiated", "structured"),
    [
        ("2024-11-05", "2024-11-05", False),
        ("2025-03-26", "2025-03-26", False),
        ("2025-06-18", "2025-06-18", True),
        ("2025-11-25", "2025-11-25", True),
        ("2099-01-01", "2025-06-18", True),
    ],
)
async def test_protocol_version_negotiation_and_structured_content(
    served: Served, offered: str, negotiated: str, structured: bool
) -> None:
    served.gateway.answer(ListAgents, Outcome(detail="listing", data={"you": "Main"}))
    client = await RawClient.connect(served.endpoint)
    try:
        assert (await client.initialize(offered))["protocolVersion"] == negotiated

        result = (await client.call("idea_list_agents", {}))["result"]
        failure = (await client.call("idea_ask_agent", {}))["result"]
    finally:
        await client.close()

    assert result["content"] == [{"type": "text", "text": "listing"}]
    assert ("structuredContent" in result) is structured
    assert ("structuredContent" in failure) is structured
    if structured:
        assert result["structuredContent"] == {"you": "Main"}
        assert failure["structuredContent"]["error"]["code"] == "INVALID_ARGUMENTS"


async def test_a_client_of_the_2026_protocol_is_served_without_initialize(served: Served) -> None:
    envelope = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "modern", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    served.gateway.answer(ListAgents, Outcome(detail="listing", data={"you": "Main"}))
    client = await RawClient.connect(served.endpoint)

    result = await client.request("tools/call", {"name": "idea_list_agents", "arguments": {}, "_meta": envelope})

    assert result["result"]["structuredContent"] == {"you": "Main"}
    assert served.gateway.initialized == [MAIN]  # its first request says its CLI is up
    await client.close()


async def test_bad_traffic_is_answered_and_never_closes_a_connection(served: Served, raw: RawClient) -> None:
    bystander = await RawClient.connect(served.endpoint)
    await bystander.initialize()

    await raw.send_line(b'{"jsonrpc": "2.0", "id": 1, "method": ')
    parse_error = await raw.receive()
    await raw.send_line(b'{"id": 2, "params": []}')
    invalid_request = await raw.receive()
    unknown_method = await raw.request("idea/unknown")
    unknown_tool = await raw.call("idea_nope", {})
    nameless = await raw.request("tools/call", {"arguments": {}})
    wrong_type = await raw.call("idea_ask_agent", {"target": 5, "task": "x"})
    unexpected = await raw.call("idea_ask_agent", {"target": "Architect", "task": "x", "requester": MAIN})
    oversized = await raw.call("idea_ask_agent", {"target": "Architect", "task": "x" * 1_500_000})

    assert parse_error["id"] is None and parse_error["error"]["code"] == -32700
    assert invalid_request["id"] == 2 and invalid_request["error"]["code"] == -32600
    assert unknown_method["error"]["code"] == -32601
    assert unknown_tool["error"] == {"code": -32602, "message": "unknown tool idea_nope"}
    assert nameless["error"] == {"code": -32602, "message": "missing tool `name`"}
    assert wrong_type["result"]["isError"] is True
    assert "`target` must be a string, not a number" in wrong_type["result"]["content"][0]["text"]
    assert "unknown argument `requester`" in unexpected["result"]["content"][0]["text"]
    assert oversized["result"]["structuredContent"]["error"]["code"] == "INVALID_ARGUMENTS"
    assert "more than the limit of 1048576 bytes" in oversized["result"]["content"][0]["text"]
    assert served.gateway.dispatched == []
    # Both connections still serve.
    for client in (raw, bystander):
        assert (await client.call("idea_list_agents", {}))["result"]["isError"] is False
    await bystander.close()


async def test_notifications_cancelled_cancels_the_call_and_leaves_it_unanswered(
    served: Served, raw: RawClient
) -> None:
    gateway = served.gateway
    gateway.hold(AskAgent)
    await raw.send(
        {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "idea_ask_agent", "arguments": ASK}}
    )
    await gateway.until(lambda: len(gateway.waiting(AskAgent)) == 1)
    [call] = gateway.calls_of(AskAgent)

    await raw.send(
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7, "reason": "user"}}
    )

    await gateway.until(lambda: call.cancelled, timeout=1.0)
    assert (await raw.request("ping"))["result"] == {}  # the next line is the ping's answer: none came for id 7
    assert served.beacons("[mcp] call cancelled") == [f"[mcp] call cancelled requester={MAIN} tool=idea_ask_agent"]


async def test_end_of_stream_cancels_the_calls_in_flight(served: Served, raw: RawClient) -> None:
    gateway = served.gateway
    gateway.hold(AskAgent)
    await raw.send(
        {"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "idea_ask_agent", "arguments": ASK}}
    )
    await gateway.until(lambda: len(gateway.waiting(AskAgent)) == 1)
    [call] = gateway.calls_of(AskAgent)

    raw.writer.write_eof()  # what the bridge does when its CLI closes stdin

    await gateway.until(lambda: call.cancelled, timeout=1.0)
    assert await raw.at_end()
    await gateway.until(lambda: gateway.disconnected == [MAIN])
    assert served.beacons("[mcp] disconnected") == [f"[mcp] disconnected requester={MAIN} inflight=1"]


async def test_idea_closing_says_what_each_connection_had_in_flight(endpoint: str) -> None:
    async with serving(endpoint) as served:
        served.gateway.hold(AskAgent)
        client = await RawClient.connect(endpoint)
        await client.initialize()
        await client.send(
            {"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "idea_ask_agent", "arguments": ASK}}
        )
        await served.gateway.until(lambda: len(served.gateway.waiting(AskAgent)) == 1)

        await served.server.close()

        assert served.beacons("[mcp] disconnected") == [f"[mcp] disconnected requester={MAIN} inflight=1"]
        await client.close()


async def test_a_wrong_token_is_refused_and_logged_without_the_token(served: Served) -> None:
    intruder = await RawClient.connect(
        served.endpoint,
        {"v": 1, "kind": "mcp", "project": PROJECT_HEX, "requester": MAIN, "token": "guessed-token"},
    )

    refusal = await intruder.receive()

    assert refusal == {"error": {"code": "PERMISSION_DENIED", "message": "unauthenticated caller"}}
    assert await intruder.at_end()
    assert served.beacons("[mcp] refused") == [f"[mcp] refused handshake requester={MAIN}"]
    assert not any("guessed-token" in line or TOKENS[MAIN] in line for line in served.diagnostics.lines)
    assert served.gateway.connected == []
    await intruder.close()


@pytest.mark.parametrize(
    "handshake",
    [
        {"v": 1, "kind": "mcp", "project": PROJECT_HEX, "requester": ARCHITECT, "token": TOKENS[MAIN]},
        {"v": 1, "kind": "mcp", "project": PROJECT_HEX, "requester": MAIN},
        {
            "v": 1,
            "kind": "mcp",
            "project": "00000000000000000000000000000000",
            "requester": MAIN,
            "token": TOKENS[MAIN],
        },
        {"v": 2, "kind": "mcp", "project": PROJECT_HEX, "requester": MAIN, "token": TOKENS[MAIN]},
        ["not", "an", "object"],
    ],
    ids=["another-agents-token", "no-token", "another-project", "future-handshake", "not-an-object"],
)
async def test_a_bad_handshake_is_refused(served: Served, handshake: object) -> None:
    client = await RawClient.connect(served.endpoint, handshake)  # type: ignore[arg-type]

    refusal = await client.receive()

    assert set(refusal) == {"error"}
    assert await client.at_end()
    assert served.gateway.connected == []
    await client.close()


async def test_the_project_id_may_be_hyphenated_in_the_handshake(served: Served) -> None:
    client = await RawClient.connect(
        served.endpoint, {"v": 1, "project": PROJECT_ID, "requester": MAIN, "token": TOKENS[MAIN]}
    )
    assert (await client.initialize())["serverInfo"]["name"] == "idea"
    await client.close()


async def test_a_silent_connection_is_closed_after_the_handshake_delay(
    served: Served, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(server_module, "HANDSHAKE_TIMEOUT_S", 0.2)
    reader, writer = await open_stream(served.endpoint)

    assert await asyncio.wait_for(reader.read(), 5) == b""
    assert served.beacons("[mcp] no handshake")
    writer.close()


async def test_calls_other_than_asks_are_bounded(endpoint: str) -> None:
    async with serving(endpoint, call_timeout_s=0.2) as served:
        served.gateway.hold(ListAgents)
        client = await RawClient.connect(endpoint)
        await client.initialize()

        result = (await client.call("idea_list_agents", {}))["result"]

        assert result["isError"] is True
        assert result["structuredContent"]["error"]["code"] == "PROCESS"
        assert "IdeA internal timeout" in result["content"][0]["text"]
        assert served.gateway.calls_of(ListAgents)[0].cancelled
        assert served.beacons("[mcp] call ") == [f"[mcp] call idea_list_agents requester={MAIN} -> PROCESS"]
        await client.close()


async def test_a_call_is_logged_once_its_answer_is_on_the_wire(endpoint: str) -> None:
    """The log line of a call is written right after its answer: the log never delays the answer."""
    answered_first: list[bool] = []

    class Diagnostics(RecordingDiagnostics):
        def beacon(self, message: str) -> None:
            if message.startswith("[mcp] call "):
                readable, _, _ = select.select([client_socket], [], [], 0)
                answered_first.append(bool(readable))
            super().beacon(message)

    server = McpSocketServer(
        PROJECT_ID, endpoint, FakeGateway(), version=APP_VERSION, diagnostics=Diagnostics(), ask_safety_net_s=30
    )
    await server.start()
    try:
        client = await RawClient.connect(endpoint)
        await client.initialize()
        client_socket = client.writer.get_extra_info("socket")

        assert (await client.call("idea_list_agents", {}))["result"]["isError"] is False
        assert answered_first == [True]
        await client.close()
    finally:
        await server.close()


async def test_asks_are_bounded_by_their_safety_net(endpoint: str) -> None:
    async with serving(endpoint, ask_safety_net_s=0.2, call_timeout_s=0.01) as served:
        served.gateway.hold(AskAgent)
        served.gateway.answer(ListAgents, Outcome(detail="fast"))
        client = await RawClient.connect(endpoint)
        await client.initialize()

        assert (await client.call("idea_list_agents", {}))["result"]["isError"] is False
        result = (await client.call("idea_ask_agent", ASK))["result"]

        assert result["structuredContent"]["error"]["code"] == "PROCESS"
        assert served.beacons("[mcp] idea_ask_agent for requester=")
        await client.close()


# The endpoint's lifetime.


async def test_the_socket_is_private(served: Served) -> None:
    assert stat.S_IMODE(os.stat(served.endpoint).st_mode) == 0o600
    kind = os.stat(served.endpoint).st_mode
    assert stat.S_ISREG(kind) if is_loopback_endpoint(served.endpoint) else stat.S_ISSOCK(kind)
    assert stat.S_IMODE(os.stat(Path(served.endpoint).parent).st_mode) == 0o700


def leave_a_corpse(endpoint: str) -> None:
    """What a killed process leaves: a socket bound and never listening, or an endpoint file naming a port
    nobody listens on any more."""
    if is_loopback_endpoint(endpoint):
        with socket.socket() as dead:
            dead.bind(("127.0.0.1", 0))
            port = dead.getsockname()[1]
        Path(endpoint).write_text(json.dumps({"v": 1, "host": "127.0.0.1", "port": port, "proof": "ab"}))
        return
    corpse = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    corpse.bind(endpoint)
    corpse.close()


async def test_a_stale_socket_is_unlinked_before_binding(endpoint: str) -> None:
    leave_a_corpse(endpoint)

    async with serving(endpoint) as served:
        assert served.beacons("[mcp] removed stale endpoint")
        client = await RawClient.connect(endpoint)
        assert (await client.initialize())["serverInfo"]["name"] == "idea"
        await client.close()


async def test_a_live_socket_means_the_project_is_open_elsewhere(served: Served) -> None:
    rival = McpSocketServer(
        PROJECT_ID,
        served.endpoint,
        FakeGateway(),
        version="x",
        diagnostics=RecordingDiagnostics(),
        ask_safety_net_s=1,
    )

    with pytest.raises(AppError) as refused:
        await rival.start()

    assert refused.value.code is ErrorCode.PROJECT_ALREADY_OPEN
    await rival.close()
    client = await RawClient.connect(served.endpoint)  # the owner is untouched
    assert (await client.initialize())["serverInfo"]["name"] == "idea"
    await client.close()


async def test_close_cancels_calls_closes_connections_and_unlinks_the_socket(endpoint: str) -> None:
    async with serving(endpoint) as served:
        served.gateway.hold(AskAgent)
        client = await RawClient.connect(endpoint)
        await client.initialize()
        await client.send(
            {
                "jsonrpc": "2.0",
                "id": 3,
                "method": "tools/call",
                "params": {"name": "idea_ask_agent", "arguments": ASK},
            }
        )
        await served.gateway.until(lambda: len(served.gateway.waiting(AskAgent)) == 1)

        await served.server.close()
        await served.server.close()  # idempotent

        assert served.gateway.calls_of(AskAgent)[0].cancelled
        assert await client.at_end()
        assert not os.path.exists(endpoint)
        await client.close()


async def test_start_is_idempotent(served: Served) -> None:
    await served.server.start()

    client = await RawClient.connect(served.endpoint)
    assert (await client.initialize())["serverInfo"]["name"] == "idea"
    await client.close()
