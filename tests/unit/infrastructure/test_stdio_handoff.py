"""The bridge's side of the stdio handoff, on real pipes and sockets: which descriptors can be handed over,
IdeA's answer to the offer, and how the bridge waits for the session's end."""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from idea.infrastructure.mcp import stdio_handoff
from idea.infrastructure.mcp.stdio_handoff import (
    READY,
    RELAY,
    HandoffRefused,
    offers_stdio,
    read_verdict,
    stdio_problem,
    verdict_line,
    wait_for_session_end,
)

GRACE_S = 0.05


def a_pipe() -> Iterator[tuple[int, int]]:
    """A pipe's read and write ends, closed after the test (those a test closed itself are skipped)."""
    read_end, write_end = os.pipe()
    yield read_end, write_end
    for fd in (read_end, write_end):
        try:
            os.close(fd)
        except OSError:
            pass


pipe = pytest.fixture(name="pipe")(a_pipe)
pipe2 = pytest.fixture(name="pipe2")(a_pipe)


def test_pipes_and_socket_pairs_can_be_handed_over(pipe: tuple[int, int], pipe2: tuple[int, int]) -> None:
    stdin_ours, stdin_theirs = socket.socketpair()
    stdout_ours, stdout_theirs = socket.socketpair()
    with stdin_ours, stdin_theirs, stdout_ours, stdout_theirs:
        assert stdio_problem(pipe[0], pipe2[1]) is None
        assert stdio_problem(stdin_theirs.fileno(), stdout_theirs.fileno()) is None


def test_what_cannot_be_served_as_a_cli_s_stdio_is_named(
    pipe: tuple[int, int], pipe2: tuple[int, int], tmp_path: Path
) -> None:
    ours, theirs = socket.socketpair()
    with (tmp_path / "f").open("wb+") as plain, ours, theirs:
        assert stdio_problem(plain.fileno(), pipe[1]) == "stdin is neither a pipe nor a socket"
        assert stdio_problem(pipe[0], plain.fileno()) == "stdout is neither a pipe nor a socket"
        assert stdio_problem(pipe[1], pipe2[1]) == "stdin is not open for reading"
        assert stdio_problem(pipe[0], pipe2[0]) == "stdout is not open for writing"
        assert stdio_problem(theirs.fileno(), theirs.fileno()) == "stdin and stdout are one channel"
    closed = pipe2[0]
    os.close(closed)
    assert (stdio_problem(closed, pipe[1]) or "").startswith("stdin: ")


def test_the_relay_is_kept_on_loopback_and_when_asked_for() -> None:
    assert offers_stdio("/tmp/idea-mcp/0f3c.endpoint", {}) is False
    assert offers_stdio("/run/user/1000/idea-mcp/0f3c.sock", {"IDEA_MCP_BRIDGE": " Relay "}) is False


@pytest.mark.parametrize(
    ("said", "verdict"),
    [(verdict_line(READY), READY), (verdict_line(RELAY), RELAY), (b'{"handoff":"later"}\n', None), (b"", "")],
)
def test_idea_s_answer_to_the_offer(said: bytes, verdict: str | None) -> None:
    bridge, idea = socket.socketpair()
    with bridge, idea:
        if said:
            idea.sendall(said + b'{"jsonrpc":"2.0"}\n')
        else:
            idea.close()

        assert read_verdict(bridge) == verdict
        if said:
            assert bridge.recv(100) == b'{"jsonrpc":"2.0"}\n'  # nothing past the verdict's line was taken


def test_a_refusal_instead_of_an_answer_carries_idea_s_message() -> None:
    bridge, idea = socket.socketpair()
    with bridge, idea:
        idea.sendall(b'{"error": {"code": "PERMISSION_DENIED", "message": "unauthenticated caller"}}\n')

        with pytest.raises(HandoffRefused, match="PERMISSION_DENIED: unauthenticated caller"):
            read_verdict(bridge)


def test_an_idea_that_says_nothing_gets_no_verdict(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stdio_handoff, "VERDICT_TIMEOUT_S", GRACE_S)
    bridge, idea = socket.socketpair()
    with bridge, idea:
        assert read_verdict(bridge) is None
        assert bridge.gettimeout() is None


def test_the_session_ends_when_idea_hangs_up(pipe: tuple[int, int], pipe2: tuple[int, int]) -> None:
    bridge, idea = socket.socketpair()
    with bridge:
        os.write(pipe[1], b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n')  # the CLI's, unread: IdeA's to read
        idea.close()

        wait_for_session_end(bridge, 60, stdio=(pipe[0], pipe2[1]))

        assert os.read(pipe[0], 100).startswith(b'{"jsonrpc"')


def test_an_error_line_from_idea_is_a_refusal(pipe: tuple[int, int], pipe2: tuple[int, int]) -> None:
    bridge, idea = socket.socketpair()
    with bridge, idea:
        idea.sendall(b'{"error": {"code": "INVALID", "message": "the stdio handoff failed: x"}}\n')

        with pytest.raises(HandoffRefused, match="INVALID: the stdio handoff failed: x"):
            wait_for_session_end(bridge, 60, stdio=(pipe[0], pipe2[1]))


@pytest.mark.parametrize("closed", ["stdin", "stdout"])
def test_once_the_cli_hangs_up_idea_gets_the_grace_and_no_more(
    pipe: tuple[int, int], pipe2: tuple[int, int], closed: str
) -> None:
    bridge, idea = socket.socketpair()
    with bridge, idea:
        os.close(pipe[1] if closed == "stdin" else pipe2[0])  # the CLI's end of the bridge's stdin / stdout
        started = time.monotonic()

        wait_for_session_end(bridge, GRACE_S, stdio=(pipe[0], pipe2[1]))  # IdeA never hangs up here

        assert time.monotonic() - started >= GRACE_S


def test_a_node_cli_ending_its_socket_s_input_starts_the_grace(pipe2: tuple[int, int]) -> None:
    bridge, idea = socket.socketpair()
    cli, stdin = socket.socketpair()
    with bridge, idea, cli, stdin:
        cli.shutdown(socket.SHUT_WR)  # Node's `child.stdin.end()`

        wait_for_session_end(bridge, GRACE_S, stdio=(stdin.fileno(), pipe2[1]))


def test_idea_hanging_up_after_the_cli_ends_the_wait_without_the_grace(
    pipe: tuple[int, int], pipe2: tuple[int, int]
) -> None:
    bridge, idea = socket.socketpair()
    with bridge:
        os.close(pipe[1])
        idea.close()
        started = time.monotonic()

        wait_for_session_end(bridge, 60, stdio=(pipe[0], pipe2[1]))

        assert time.monotonic() - started < 30
