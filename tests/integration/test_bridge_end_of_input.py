"""The bridge and the end of its input, with real processes (issue 16): `printf … | idea mcp-server …`
with initialize and three calls then end of input lost at least one answer in 22 of 30 runs. Every
request read is answered — served, or cancelled with an answer saying so — before the bridge exits.
And the endpoints no retry can reach fail at once with the reason instead of retrying for 5 s."""

from __future__ import annotations

import asyncio
import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from idea.domain.orchestration.commands import AskAgent, ListAgents, Outcome, ReadWorkState
from idea.infrastructure.mcp.bridge import CONNECT_TIMEOUT_S, DRAIN_GRACE_S
from tests.integration.mcp_support import bridge, project_endpoint, serving

RUNS = 30
FAST_FAIL_S = 2.0  # well under the 5 s of retries, with room for a loaded machine's process start


def line(message: dict[str, object]) -> bytes:
    return json.dumps(message).encode() + b"\n"


def session_bytes(third_tool: str, third_arguments: dict[str, object]) -> bytes:
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "sh", "version": "1"}},
    }
    calls = [("idea_list_agents", {}), ("idea_workstate_read", {}), (third_tool, third_arguments)]
    return line(initialize) + line({"jsonrpc": "2.0", "method": "notifications/initialized"}) + b"".join(
        line({"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": {"name": tool, "arguments": args}})
        for n, (tool, args) in enumerate(calls, start=2)
    )


@pytest.fixture
def endpoint() -> Iterator[str]:
    """A Unix socket path: the cases below are about what a Unix socket path can be."""
    with project_endpoint("unix") as path:
        yield path


async def run_bridge(endpoint: str, stdin: bytes, without: tuple[str, ...] = ()) -> tuple[int, bytes, bytes]:
    async with bridge(endpoint, without=without) as process:
        out, err = await asyncio.wait_for(process.communicate(stdin), CONNECT_TIMEOUT_S + DRAIN_GRACE_S + 10)
    assert process.returncode is not None
    return process.returncode, out, err


async def test_requests_written_before_end_of_input_are_all_answered_in_30_runs(endpoint: str) -> None:
    async with serving(endpoint) as served:
        served.gateway.answer(ListAgents, Outcome(detail="listing"))
        served.gateway.answer(ReadWorkState, Outcome(detail="state"))
        served.gateway.hold(AskAgent)
        failures = []
        for run in range(RUNS):
            # Even runs: three quick calls. Odd runs: the third is an ask that cannot finish in time.
            third = ("idea_ask_agent", {"target": "QA", "task": "x"}) if run % 2 else ("idea_list_agents", {})
            status, out, err = await run_bridge(endpoint, session_bytes(*third))
            answers: dict[object, dict[str, object]] = {}
            for raw in out.splitlines():
                answer = json.loads(raw)
                if answer.get("id") in answers:
                    failures.append(f"run {run}: two answers for id {answer.get('id')}")
                answers[answer.get("id")] = answer
            if status != 0 or sorted(answers, key=str) != [1, 2, 3, 4]:
                failures.append(f"run {run}: exit {status}, answered {sorted(answers, key=str)}, {err.decode()}")
                continue
            for n in (2, 3, 4):
                result = answers[n].get("result")
                assert isinstance(result, dict), answers[n]
                if result["isError"]:
                    assert result["structuredContent"]["error"]["code"] == "CANCELLED", (run, answers[n])
            if run % 2 == 0:
                assert all(not answers[n]["result"]["isError"] for n in (2, 3, 4)), (run, answers)  # type: ignore[index]
            else:
                assert answers[4]["result"]["structuredContent"]["error"]["code"] == "CANCELLED"  # type: ignore[index]

    assert failures == []
    assert all(call.cancelled for call in served.gateway.calls_of(AskAgent))


async def test_a_path_that_is_not_a_socket_fails_at_once_with_the_reason(tmp_path: Path) -> None:
    not_a_socket = tmp_path / "plain-file.sock"
    not_a_socket.write_text("")
    started = time.monotonic()

    status, out, err = await run_bridge(str(not_a_socket), b"")

    assert status == 1 and out == b""
    assert "it is not a socket" in err.decode()
    assert time.monotonic() - started < FAST_FAIL_S


async def test_a_path_too_long_for_a_socket_fails_at_once_with_the_reason(tmp_path: Path) -> None:
    too_long = str(tmp_path / ("d" * 120) / "x.sock")
    started = time.monotonic()

    status, out, err = await run_bridge(too_long, b"")

    assert status == 1 and out == b""
    assert "longer than a Unix socket path may be" in err.decode()
    assert time.monotonic() - started < FAST_FAIL_S


async def test_a_socket_nobody_listens_on_is_retried_then_reported(endpoint: str) -> None:
    corpse = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    corpse.bind(endpoint)  # what a killed IdeA leaves: worth retrying, IdeA may be starting again
    corpse.close()
    started = time.monotonic()

    status, _out, err = await run_bridge(endpoint, b"")

    assert status == 1 and "is the project open in IdeA?" in err.decode()
    assert time.monotonic() - started >= CONNECT_TIMEOUT_S - 0.5


async def test_a_bridge_without_a_project_says_so(endpoint: str) -> None:
    async with serving(endpoint):
        status, _out, err = await run_bridge(endpoint, b"", without=("--project",))

    assert status == 1
    assert "no --project given" in err.decode() and "the handshake names no project" in err.decode()
