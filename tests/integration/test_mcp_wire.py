"""The faults issue 16 found in the MCP server's wire handling, each pinned on the real socket: requests
with ids a dispatcher cannot answer, an oversize line, arguments of the wrong shape, a handler that
fails, an empty optional string, a handshake without a project, and the end of the input before every
request was answered."""

from __future__ import annotations

import asyncio
import json

import pytest

from idea.domain.orchestration.commands import AskAgent, LaunchAgent, SetWorkState, Visibility
from idea.infrastructure.mcp import server as server_module
from idea.infrastructure.mcp import tool_calls
from idea.infrastructure.mcp.wire import LINE_LIMIT
from tests.fakes_gateway import MAIN, TOKENS
from tests.integration.mcp_support import RawClient, Served
from tests.integration.mcp_support import endpoint, raw, served  # noqa: F401  (fixtures)

ASK = {"target": "Architect", "task": "Reply pong via idea_reply."}


def call(request_id: object, tool: str, arguments: object) -> dict[str, object]:
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": {"name": tool, "arguments": arguments}}


@pytest.mark.parametrize("request_id", [True, None, 1.5, [1], {"n": 1}])
async def test_a_request_whose_id_is_not_a_string_or_integer_is_an_invalid_request(
    raw: RawClient, request_id: object
) -> None:
    await raw.send({"jsonrpc": "2.0", "id": request_id, "method": "ping"})

    answer = await raw.receive()

    assert answer["id"] is None and answer["error"]["code"] == -32600
    assert "`id` must be a string or an integer" in answer["error"]["message"]
    assert (await raw.request("ping"))["result"] == {}


async def test_an_oversize_line_gets_exactly_one_error(raw: RawClient) -> None:
    raw.writer.write(b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "pad": "' + b"x" * (LINE_LIMIT + 10) + b'"}\n')
    await raw.writer.drain()

    error = await raw.receive(timeout=30)
    after = await raw.request("ping")  # the next line read is the ping's answer: no second error came

    assert error["id"] is None and error["error"]["code"] == -32700
    assert after["result"] == {}


async def test_arguments_that_are_not_an_object_get_an_error_saying_so(raw: RawClient) -> None:
    await raw.send(call(5, "idea_list_agents", [1, 2]))

    answer = await raw.receive()

    assert answer["error"]["code"] == -32602
    assert "arguments" in answer["error"]["data"] and "dictionary" in answer["error"]["data"]


async def test_an_empty_optional_string_is_its_default_not_a_crash(served: Served, raw: RawClient) -> None:
    result = (await raw.call("idea_launch_agent", {"target": "QA", "visibility": ""}))["result"]

    assert result["isError"] is False
    assert served.gateway.calls_of(LaunchAgent)[0].command == LaunchAgent(target="QA", visibility=Visibility.VISIBLE)


async def test_control_characters_never_reach_the_core(served: Served, raw: RawClient) -> None:
    await raw.call("idea_workstate_set", {"status": "working", "intent": "build\u0000 \x1b[2Jnow"})

    assert served.gateway.calls_of(SetWorkState)[0].command.intent == "build [2Jnow"  # type: ignore[union-attr]


async def test_a_failing_parse_is_an_internal_tool_result_logged_with_its_traceback(
    served: Served, raw: RawClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise KeyError("visibility")

    monkeypatch.setattr(tool_calls, "parse_tool_call", broken)

    result = (await raw.call("idea_launch_agent", {"target": "QA"}))["result"]

    assert result["isError"] is True and result["structuredContent"]["error"]["code"] == "INTERNAL"
    [logged] = served.beacons("[mcp] idea_launch_agent failed")
    assert "Traceback" in logged and "KeyError" in logged


async def test_every_call_is_logged_with_its_requester(served: Served, raw: RawClient) -> None:
    await raw.call("idea_list_agents", {})
    await raw.call("idea_ask_agent", {"target": "QA"})

    assert served.beacons("[mcp] call ") == [
        f"[mcp] call idea_list_agents requester={MAIN} -> ok",
        f"[mcp] call idea_ask_agent requester={MAIN} -> INVALID_ARGUMENTS",
    ]


@pytest.mark.parametrize("project", [None, ""])
async def test_a_handshake_without_a_project_is_told_so(served: Served, project: str | None) -> None:
    handshake = {"v": 1, "kind": "mcp", "requester": MAIN, "token": TOKENS[MAIN]}
    if project is not None:
        handshake["project"] = project
    client = await RawClient.connect(served.endpoint, handshake)

    refusal = await client.receive()

    assert refusal["error"]["message"] == server_module.NO_PROJECT
    assert "another project" not in refusal["error"]["message"]
    await client.close()


async def test_requests_read_before_the_input_ended_are_all_answered(served: Served) -> None:
    served.gateway.hold(AskAgent)
    client = await RawClient.connect(served.endpoint)
    await client.initialize()
    lines = [call(10, "idea_list_agents", {}), call(11, "idea_ask_agent", ASK), call(12, "idea_workstate_read", {})]
    client.writer.write(b"".join(json.dumps(message).encode() + b"\n" for message in lines))
    client.writer.write_eof()  # what the bridge does when its CLI closes stdin

    answers = {}
    while line := await asyncio.wait_for(client.reader.readline(), 10):
        answer = json.loads(line)
        assert answer["id"] not in answers, f"two answers for {answer['id']}"
        answers[answer["id"]] = answer

    assert sorted(answers) == [10, 11, 12]
    assert answers[10]["result"]["isError"] is False and answers[12]["result"]["isError"] is False
    cancelled = answers[11]["result"]
    assert cancelled["isError"] is True and cancelled["structuredContent"]["error"]["code"] == "CANCELLED"
    assert served.gateway.calls_of(AskAgent)[0].cancelled
    await client.close()


async def test_a_request_the_client_cancelled_stays_unanswered_at_the_end(served: Served) -> None:
    served.gateway.hold(AskAgent)
    client = await RawClient.connect(served.endpoint)
    await client.initialize()
    await client.send(call(20, "idea_ask_agent", ASK))
    await served.gateway.until(lambda: len(served.gateway.waiting(AskAgent)) == 1)
    await client.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 20}})
    await client.send(call(21, "idea_list_agents", {}))
    client.writer.write_eof()

    answers = []
    while line := await asyncio.wait_for(client.reader.readline(), 10):
        answers.append(json.loads(line)["id"])

    assert answers == [21]
    await client.close()
