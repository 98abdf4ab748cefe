"""The Windows transport's own rules, run here over real loopback sockets: the endpoint file, the proof that
keeps the launch token from a program that took over a dead IdeA's port, stale and damaged files, and the
refusal of another user's process. (The handshake, the bridge and the relay run over both transports in
test_mcp_server.py, test_bridge.py and test_hook_relay.py.)"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from idea.domain.errors import AppError, ErrorCode
from idea.infrastructure.mcp.connect import NotIdeaError, connect_endpoint
from idea.infrastructure.mcp.server import McpSocketServer
from idea.infrastructure.mcp.transport import LoopbackTransport, connection_owner, mcp_loopback_endpoint
from tests.fakes import RecordingDiagnostics
from tests.fakes_gateway import MAIN, PROJECT_ID, TOKENS, FakeGateway
from tests.integration.mcp_support import (
    PROJECT_HEX,
    REPO_ROOT,
    RawClient,
    bridge_declaration,
    bridge_env,
    hook_command,
    project_endpoint,
    serving,
)


@pytest.fixture
def endpoint() -> Iterator[str]:
    with project_endpoint("loopback") as path:
        yield path


def test_the_endpoint_is_a_file_in_the_users_private_temporary_folder(tmp_path: Path) -> None:
    path = mcp_loopback_endpoint(PROJECT_ID, {"TEMP": str(tmp_path)})

    assert path == str(tmp_path / "idea-mcp" / f"{PROJECT_HEX}.endpoint")
    assert (tmp_path / "idea-mcp").is_dir()
    # Spaces and non-ASCII letters in the user's folder are fine: the path is never parsed by a shell here.
    odd = tmp_path / "Jean Dupré"
    odd.mkdir()
    assert mcp_loopback_endpoint(PROJECT_ID, {"TEMP": str(odd)}).startswith(str(odd))


async def test_the_endpoint_file_names_a_loopback_port_and_a_proof(endpoint: str) -> None:
    async with serving(endpoint):
        fields = json.loads(Path(endpoint).read_text())
        assert fields["host"] == "127.0.0.1" and fields["pid"] == os.getpid()
        assert len(fields["proof"]) == 32
        reader, writer = await asyncio.open_connection("127.0.0.1", fields["port"])
        greeting = await asyncio.wait_for(reader.readline(), 5)
        writer.close()
        assert json.loads(greeting) == {"v": 1, "idea": fields["proof"]}
    assert not Path(endpoint).exists()


async def test_the_listening_socket_is_bound_to_loopback_only(endpoint: str) -> None:
    async with serving(endpoint):
        port = json.loads(Path(endpoint).read_text())["port"]
        listening = [c for c in __import__("psutil").Process().net_connections("tcp4") if c.laddr.port == port]
        assert [c.laddr.ip for c in listening if c.status == "LISTEN"] == ["127.0.0.1"]


class Impostor:
    """Another program listening on a dead IdeA's old port, saying something else first; what it receives."""

    def __init__(self, endpoint: str) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.received: list[bytes] = []
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()
        Path(endpoint).write_text(json.dumps({"port": self.sock.getsockname()[1], "proof": "0" * 32}))

    def _serve(self) -> None:
        conn, _ = self.sock.accept()
        with conn:
            conn.sendall(b'{"v":1,"idea":"not-the-proof"}\n')
            conn.settimeout(1)
            try:
                self.received.append(conn.recv(4096))
            except TimeoutError:
                self.received.append(b"")

    def close(self) -> bytes:
        self.thread.join(5)
        self.sock.close()
        return b"".join(self.received)


def run_declared(argv: list[str], stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(argv, input=stdin, capture_output=True, env=bridge_env(TOKENS[MAIN]), cwd=REPO_ROOT, timeout=20)


def test_a_program_that_took_the_port_never_receives_the_token(endpoint: str) -> None:
    """IdeA died; another program listens on its old port and says something else first."""
    impostor = Impostor(endpoint)
    try:
        declaration = bridge_declaration(endpoint)
        done = run_declared([declaration["command"], *declaration["args"]])
    finally:
        received = impostor.close()
    assert done.returncode == 1
    assert b"not the IdeA that wrote it" in done.stderr
    assert TOKENS[MAIN].encode() not in received


def test_the_hook_relay_never_sends_the_token_to_a_program_that_took_the_port(endpoint: str) -> None:
    impostor = Impostor(endpoint)
    try:
        done = run_declared([*hook_command("claude", endpoint), "--event", "Stop"], b'{"hook_event_name":"Stop"}')
    finally:
        received = impostor.close()
    assert (done.returncode, done.stdout) == (0, b"")
    assert b"not the IdeA that wrote it" in done.stderr and b"event dropped" in done.stderr
    assert received == b""


@pytest.mark.parametrize("damage", ["{not json", '{"port": "x", "proof": "p"}', '{"port": 70000, "proof": "p"}'])
def test_the_hook_relay_drops_the_event_of_a_damaged_endpoint_file_quietly(endpoint: str, damage: str) -> None:
    Path(endpoint).write_text(damage)
    done = run_declared([*hook_command("codex", endpoint), "{}"])
    assert (done.returncode, done.stdout) == (0, b"")
    assert b"is damaged" in done.stderr


def test_a_damaged_endpoint_file_is_a_clear_connection_failure(endpoint: str) -> None:
    Path(endpoint).write_text("{not json")
    with pytest.raises(ConnectionRefusedError, match="is damaged"):
        connect_endpoint(endpoint, timeout=1)


def test_an_impostor_is_told_apart_by_the_client_helper(endpoint: str) -> None:
    with socket.create_server(("127.0.0.1", 0)) as impostor:
        Path(endpoint).write_text(json.dumps({"port": impostor.getsockname()[1], "proof": "1" * 32}))

        def greet() -> None:
            conn, _ = impostor.accept()
            conn.sendall(b"HTTP/1.1 400 Bad Request\r\n\r\n")
            conn.close()

        threading.Thread(target=greet, daemon=True).start()
        with pytest.raises(NotIdeaError):
            connect_endpoint(endpoint, timeout=2)


async def test_a_damaged_or_stale_file_is_replaced_when_binding(endpoint: str) -> None:
    Path(endpoint).write_text("garbage")
    async with serving(endpoint) as served:
        assert served.beacons("[mcp] removed stale endpoint")
        client = await RawClient.connect(endpoint)
        assert (await client.initialize())["serverInfo"]["name"] == "idea"
        await client.close()


async def test_a_live_endpoint_means_the_project_is_open_elsewhere(endpoint: str) -> None:
    async with serving(endpoint):
        rival = McpSocketServer(
            PROJECT_ID, endpoint, FakeGateway(), version="x", diagnostics=RecordingDiagnostics(), ask_safety_net_s=1
        )
        with pytest.raises(AppError) as refused:
            await rival.start()
        assert refused.value.code is ErrorCode.PROJECT_ALREADY_OPEN
        assert json.loads(Path(endpoint).read_text())["pid"] == os.getpid()  # the owner's file is untouched


async def test_another_users_process_is_refused_before_it_is_greeted(endpoint: str) -> None:
    """The proof never reaches another user's process: with it, that process could pose as this IdeA later."""
    diagnostics = RecordingDiagnostics()
    server = McpSocketServer(
        PROJECT_ID,
        endpoint,
        FakeGateway(),
        version="x",
        diagnostics=diagnostics,
        ask_safety_net_s=1,
        transport=LoopbackTransport(owner_of=lambda local, peer: "OTHER\\mallory"),
    )
    await server.start()
    try:
        port = json.loads(Path(endpoint).read_text())["port"]
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        assert await asyncio.wait_for(reader.read(), 5) == b""  # closed without a byte: no greeting
        writer.close()
        with pytest.raises(ConnectionRefusedError):  # what a client then says
            await RawClient.connect(endpoint)
        assert any("refused a connection from user OTHER\\mallory" in line for line in diagnostics.lines)
    finally:
        await server.close()


async def test_the_owner_of_a_loopback_peer_is_read_from_the_tcp_table(endpoint: str) -> None:
    """This process's own connection is found and attributed to this user."""
    async with serving(endpoint):
        port = json.loads(Path(endpoint).read_text())["port"]
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        local = writer.get_extra_info("sockname")
        owner = await asyncio.to_thread(connection_owner, ("127.0.0.1", port), tuple(local[:2]))
        writer.close()
        assert owner == os.getuid()
