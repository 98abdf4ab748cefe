"""The bridge hands the CLI's stdio to IdeA over the Unix socket (`stdio_handoff.py`), with real processes,
pipes and sockets: IdeA serves the CLI on its own pipes (or on the socket pairs a Node CLI gives its
servers), the session ends as the relay's did (the CLI's end of input, the bridge killed, IdeA closing),
and the relay remains where the stdio cannot be handed over or the relay is asked for."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from idea.domain.orchestration.commands import AskAgent
from idea.infrastructure.mcp import handed_stdio
from idea.infrastructure.mcp.stdio_handoff import (
    BRIDGE_MODE_ENV,
    HANDOFF_FIELD,
    HANDOFF_STDIO,
    READY,
    RELAY,
    verdict_line,
)
from idea.infrastructure.sandbox.enforcer import LandlockSandbox
from tests.fakes_gateway import MAIN, TOKENS
from tests.integration.mcp_support import (
    PROJECT_HEX,
    REPO_ROOT,
    RawClient,
    Served,
    bridge,
    bridge_declaration,
    bridge_env,
    exit_status,
    project_endpoint,
    serving,
)
from tests.integration.test_bridge import INITIALIZE, INITIALIZED, TOOLS_LIST, line
from tests.integration.test_sandbox_exec import WRITE_SRC_ONLY, write_plan

HANDED_OVER = f"[mcp] connected requester={MAIN} (stdio handed over)"
RELAYED = f"[mcp] connected requester={MAIN}"


def ask(request_id: int = 3) -> bytes:
    arguments = {"target": "Architect", "task": "Reply pong via idea_reply."}
    call = {"jsonrpc": "2.0", "id": request_id, "method": "tools/call"}
    return line({**call, "params": {"name": "idea_ask_agent", "arguments": arguments}})


@pytest.fixture
async def served() -> AsyncIterator[Served]:
    with project_endpoint("unix") as endpoint:
        async with serving(endpoint) as served:
            yield served


async def read_message(stream: asyncio.StreamReader) -> dict[str, Any]:
    raw = await asyncio.wait_for(stream.readline(), 5)
    assert raw.endswith(b"\n"), raw
    return json.loads(raw)


async def held_ask(served: Served, process: asyncio.subprocess.Process) -> None:
    """The CLI initialized, then asked: the ask (id 3) is held by the core."""
    assert process.stdin is not None and process.stdout is not None
    served.gateway.hold(AskAgent)
    process.stdin.write(line(INITIALIZE) + line(INITIALIZED) + ask())
    await process.stdin.drain()
    await read_message(process.stdout)
    await served.gateway.until(lambda: bool(served.gateway.waiting(AskAgent)))


async def initialized_and_listed(stdin: asyncio.StreamWriter, stdout: asyncio.StreamReader) -> None:
    """The CLI's first exchange: initialize, the notification, tools/list; two answers."""
    stdin.write(line(INITIALIZE) + line(INITIALIZED) + line(TOOLS_LIST))
    await stdin.drain()
    assert (await read_message(stdout))["id"] == 1
    assert "tools" in (await read_message(stdout))["result"]


async def test_idea_serves_the_cli_on_its_own_pipes(served: Served) -> None:
    async with bridge(served.endpoint) as process:
        assert process.stdin is not None and process.stdout is not None
        await initialized_and_listed(process.stdin, process.stdout)
        assert served.beacons("[mcp] connected") == [HANDED_OVER]
        process.stdin.close()

        assert await exit_status(process) == 0
        assert await process.stdout.read() == b""  # IdeA closed its copy of the CLI's stdout too
    await served.gateway.until(lambda: served.gateway.disconnected == [MAIN])


async def test_a_cli_closing_stdin_still_gets_the_answer_of_a_call_cut_short(served: Served) -> None:
    async with bridge(served.endpoint) as process:
        assert process.stdin is not None and process.stdout is not None
        await held_ask(served, process)
        process.stdin.close()

        answer = await read_message(process.stdout)
        assert answer["id"] == 3 and answer["result"]["structuredContent"]["error"]["code"] == "CANCELLED"
        assert await exit_status(process) == 0
    assert [call.cancelled for call in served.gateway.calls_of(AskAgent)] == [True]


async def test_a_killed_bridge_ends_its_session_and_idea_lets_go_of_the_pipes(served: Served) -> None:
    async with bridge(served.endpoint) as process:
        assert process.stdout is not None
        await held_ask(served, process)

        process.kill()  # the CLI keeps its end of stdin open: only the bridge's connection tells IdeA
        await process.wait()

        await served.gateway.until(lambda: served.gateway.disconnected == [MAIN])
        assert [call.cancelled for call in served.gateway.calls_of(AskAgent)] == [True]
        rest = await asyncio.wait_for(process.stdout.read(), 5)  # EOF: nobody holds the CLI's stdout any more
        assert [json.loads(raw)["id"] for raw in rest.splitlines()] in ([], [3])


async def test_idea_closing_the_project_ends_the_bridge(served: Served) -> None:
    async with bridge(served.endpoint) as process:
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(line(INITIALIZE))
        await process.stdin.drain()
        await read_message(process.stdout)

        await served.server.close()

        assert await exit_status(process) == 0  # stdin is still open
        assert await process.stdout.read() == b""


async def test_socket_pairs_as_a_node_cli_gives_them_are_handed_over(served: Served) -> None:
    """libuv (Claude Code, Gemini CLI) gives a child a socket pair per stdio stream, not a pipe."""
    stdin_ours, stdin_theirs = socket.socketpair()
    stdout_ours, stdout_theirs = socket.socketpair()
    async with bridge(served.endpoint, stdin=stdin_theirs.fileno(), stdout=stdout_theirs.fileno()) as process:
        stdin_theirs.close()
        stdout_theirs.close()
        _, requests = await asyncio.open_connection(sock=stdin_ours)
        answers, answers_writer = await asyncio.open_connection(sock=stdout_ours)
        await initialized_and_listed(requests, answers)
        assert served.beacons("[mcp] connected") == [HANDED_OVER]
        requests.write_eof()  # what Node's `child.stdin.end()` does

        assert await exit_status(process) == 0
        assert await asyncio.wait_for(answers.read(), 5) == b""
        requests.close()
        answers_writer.close()


async def test_a_bridge_in_a_landlock_sandbox_hands_its_stdio_over(served: Served, tmp_path: Path) -> None:
    """Agents run under `sandbox-exec`, and so do the bridges their CLIs start: passing descriptors is not
    something Landlock restricts."""
    sandbox = LandlockSandbox()
    if not sandbox.status(None).enforced:
        pytest.skip("no Landlock on this kernel")
    _root, plan_file, _ = write_plan(tmp_path, WRITE_SRC_ONLY)
    async with bridge(served.endpoint, wrap=lambda argv: sandbox.wrap(argv, str(plan_file))) as process:
        assert process.stdin is not None and process.stdout is not None
        await initialized_and_listed(process.stdin, process.stdout)
        assert served.beacons("[mcp] connected") == [HANDED_OVER]
        process.stdin.close()
        assert await exit_status(process) == 0


async def test_a_file_as_stdin_is_relayed(served: Served, tmp_path: Path) -> None:
    requests = tmp_path / "requests.jsonl"
    requests.write_bytes(line(INITIALIZE) + line(INITIALIZED) + line(TOOLS_LIST))
    declaration = bridge_declaration(served.endpoint)
    with requests.open("rb") as stdin:
        done = await asyncio.to_thread(
            subprocess.run,
            [declaration["command"], *declaration["args"]],
            cwd=REPO_ROOT,
            env=bridge_env(TOKENS[MAIN]),
            stdin=stdin,
            capture_output=True,
            timeout=20,
            check=False,
        )

    assert done.returncode == 0, done.stderr
    assert [json.loads(raw)["id"] for raw in done.stdout.splitlines()] == [1, 2]
    assert served.beacons("[mcp] connected") == [RELAYED]


async def test_the_relay_is_kept_when_asked_for(served: Served, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(BRIDGE_MODE_ENV, "relay")
    async with bridge(served.endpoint) as process:
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(line(INITIALIZE))
        await process.stdin.drain()
        assert (await read_message(process.stdout))["id"] == 1
        process.stdin.close()
        assert await exit_status(process) == 0

    assert served.beacons("[mcp] connected") == [RELAYED]


async def test_an_idea_that_does_not_answer_the_offer_is_relayed_to(tmp_path: Path) -> None:
    """An IdeA older than its bridge (an upgrade under a running IdeA) never answers the offer."""
    with project_endpoint("unix") as endpoint:
        handshakes: list[bytes] = []
        first_request: asyncio.Future[bytes] = asyncio.get_running_loop().create_future()

        async def older_idea(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            handshakes.append(await reader.readline())
            first_request.set_result(await reader.readline())
            writer.write(b'{"jsonrpc":"2.0","id":1,"result":{}}\n')
            await writer.drain()
            await reader.read()
            writer.close()

        listener = await asyncio.start_unix_server(older_idea, path=endpoint)
        program = (
            "import sys; from idea.infrastructure.mcp import stdio_handoff; stdio_handoff.VERDICT_TIMEOUT_S = 0.2; "
            "from idea.infrastructure.mcp.bridge import run_bridge; sys.exit(run_bridge(sys.argv[1:]))"
        )

        def entry_point(argv: list[str]) -> list[str]:  # the bridge with a short wait for the verdict
            return [sys.executable, "-c", program, *argv[argv.index("mcp-server") + 1 :]]

        try:
            async with bridge(endpoint, wrap=entry_point) as process:
                assert process.stdin is not None and process.stdout is not None and process.stderr is not None
                process.stdin.write(line(INITIALIZE))
                await process.stdin.drain()

                assert json.loads(await asyncio.wait_for(first_request, 10)) == INITIALIZE
                assert (await read_message(process.stdout))["id"] == 1
                process.stdin.close()
                assert await exit_status(process) == 0
                stderr = (await process.stderr.read()).decode()
                assert "did not take this bridge's stdio within 0.2 s; relaying" in stderr
                assert json.loads(handshakes[0])[HANDOFF_FIELD] == HANDOFF_STDIO
        finally:
            listener.close()
            await listener.wait_closed()


# The server's side, spoken by hand: what it accepts after `ready`.


OFFER = {"v": 1, "kind": "mcp", "project": PROJECT_HEX, "requester": MAIN, "token": TOKENS[MAIN], HANDOFF_FIELD: HANDOFF_STDIO}


async def offer(served: Served) -> RawClient:
    client = await RawClient.connect(served.endpoint, OFFER)
    assert await asyncio.wait_for(client.reader.readline(), 5) == verdict_line(READY)
    return client


def open_descriptors() -> set[str]:
    return set(os.listdir("/proc/self/fd"))


@pytest.mark.parametrize("stdin_kind", ["file", "none"])
async def test_descriptors_idea_cannot_serve_are_refused_and_closed(
    served: Served, tmp_path: Path, stdin_kind: str
) -> None:
    plain = (tmp_path / "plain").open("wb+")
    out_read, out_write = os.pipe()
    client = await offer(served)
    before = open_descriptors()
    raw_socket = client.writer.get_extra_info("socket")
    with socket.fromfd(raw_socket.fileno(), socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        if stdin_kind == "file":
            socket.send_fds(sock, [b"\n"], [plain.fileno(), out_write])
        else:
            sock.send(b"\n")

    refusal = await client.receive()
    assert await client.at_end()

    expected = "stdin is neither a pipe nor a socket" if stdin_kind == "file" else "sent no stdin and stdout"
    assert refusal["error"]["code"] == "INVALID" and expected in refusal["error"]["message"]
    assert served.gateway.connected == []
    assert [beacon for beacon in served.beacons("[mcp] stdio handoff failed") if expected in beacon]
    assert open_descriptors() <= before  # what IdeA received is closed again
    await client.close()
    plain.close()
    os.close(out_read)
    os.close(out_write)


async def test_a_bridge_that_never_sends_its_descriptors_is_refused_in_bounded_time(
    served: Served, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(handed_stdio, "DESCRIPTORS_TIMEOUT_S", 0.1)
    client = await offer(served)

    refusal = await client.receive()  # nothing sent after `ready`

    assert "no descriptors within 0.1 s of the handoff" in refusal["error"]["message"]
    assert await client.at_end()
    assert served.gateway.connected == []
    await client.close()


async def test_a_connection_that_cannot_carry_descriptors_is_told_to_relay() -> None:
    with project_endpoint("loopback") as endpoint:
        async with serving(endpoint) as served:
            client = await RawClient.connect(endpoint, OFFER)

            assert await asyncio.wait_for(client.reader.readline(), 5) == verdict_line(RELAY)
            await client.initialize()
            assert (await client.request("tools/list"))["result"]["tools"]
            assert served.beacons("[mcp] connected") == [RELAYED]
            await client.close()
