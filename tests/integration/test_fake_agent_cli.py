"""The fake agent CLI on its own, in a real PTY, against a stub MCP server and a hook recorder: proof that
it speaks MCP through `.mcp.json`, runs Claude-style hooks, grows its transcript and follows directives,
before the integration tests drive it through the real launch pipeline and MCP server."""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from ptyprocess import PtyProcess

from idea.domain.mcp_wiring import McpServerWiring, claude_settings
from idea.domain.orchestration.delivery import compose_delivery, encode_delivery
from idea.domain.orchestration.tickets import AgentSource, Ticket, TicketKind

FAKE_AGENT = Path(__file__).resolve().parents[1] / "fake_agent"
TIMEOUT_S = 20.0


class RunningAgent:
    def __init__(self, tmp_path: Path, *args: str) -> None:
        self.run_dir = tmp_path / "project" / ".ideai" / "run" / "a0000000-0000-4000-8000-000000000001"
        self.run_dir.mkdir(parents=True)
        self.home = tmp_path / "home"
        self.calls = tmp_path / "calls.jsonl"
        self.hook_log = tmp_path / "hooks.jsonl"
        wiring = McpServerWiring(
            command=sys.executable, args=(str(FAKE_AGENT / "stub_idea_server.py"),), env={"IDEA_MCP_TOKEN": "s3cret"}
        )
        (self.run_dir / ".mcp.json").write_text(wiring.to_mcp_json())
        settings = claude_settings([sys.executable, str(FAKE_AGENT / "record_hook.py")], tool_timeout_ms=60_000)
        (self.run_dir / ".claude").mkdir()
        (self.run_dir / ".claude" / "settings.local.json").write_text(json.dumps(settings))
        env = {
            **os.environ,
            "HOME": str(self.home),
            "STUB_CALLS": str(self.calls),
            "HOOK_LOG": str(self.hook_log),
            "FAKE_AGENT_LOG": str(tmp_path / "fake-agent.log"),
        }
        self.process = PtyProcess.spawn(
            [sys.executable, str(FAKE_AGENT / "fake_agent_cli.py"), *args],
            cwd=str(self.run_dir),
            env=env,
            dimensions=(40, 200),
        )
        self.output = ""
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        while True:
            try:
                self.output += self.process.read(4096).decode("utf-8", errors="replace")
            except EOFError:
                return

    def type(self, text: str) -> None:
        self.process.write(text.encode("utf-8"))

    def deliver(self, text: str, bracketed: bool = True) -> None:
        """Like IdeA: the text in chunks, then the submit sequence alone after a delay."""
        for chunk in encode_delivery(text, bracketed).chunks:
            self.type(chunk)
            time.sleep(0.01)
        time.sleep(0.35)
        self.type("\r")

    def tool_calls(self) -> list[dict[str, object]]:
        return _json_lines(self.calls)

    def hooks(self) -> list[dict[str, object]]:
        return _json_lines(self.hook_log)

    def transcript_size(self) -> int:
        return sum(path.stat().st_size for path in (self.home / ".claude" / "projects").rglob("*.jsonl"))

    def close(self) -> None:
        if self.process.isalive():
            self.process.terminate(force=True)


def _json_lines(path: Path) -> list[dict[str, object]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def eventually(condition: Callable[[], object], what: str) -> None:
    deadline = time.monotonic() + TIMEOUT_S
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def ask(ticket_id: str, task: str) -> str:
    return compose_delivery(
        Ticket(
            id=ticket_id,
            target="a0000000-0000-4000-8000-000000000001",
            source=AgentSource("a0000000-0000-4000-8000-000000000002"),
            requester_label="Main",
            conversation="c",
            task=task,
            expects_reply=True,
            created_at_ms=0,
            kind=TicketKind.ASK,
        )
    )


@pytest.fixture
def agent(tmp_path: Path) -> Iterator[RunningAgent]:
    running = RunningAgent(tmp_path)
    yield running
    running.close()


def replies(agent: RunningAgent) -> list[object]:
    return [call["arguments"] for call in agent.tool_calls() if call["tool"] == "idea_reply"]


def test_the_fake_agent_starts_like_claude(agent: RunningAgent) -> None:
    eventually(lambda: "fake> " in agent.output, "the prompt")
    eventually(lambda: agent.hooks(), "the SessionStart hook")

    start = agent.hooks()[0]
    assert start["event"] == "SessionStart"
    payload = start["payload"]
    assert payload["hook_event_name"] == "SessionStart" and payload["cwd"] == str(agent.run_dir)  # type: ignore[index]
    expected_folder = "".join(ch if ch.isalnum() and ch.isascii() else "-" for ch in str(agent.run_dir))
    assert f"/.claude/projects/{expected_folder}/" in payload["transcript_path"]  # type: ignore[index]
    assert "--ideai-run-" in expected_folder
    assert "\x1b[?2004h" in agent.output  # it asks for bracketed paste


def test_the_fake_agent_follows_delegated_directives(agent: RunningAgent) -> None:
    eventually(lambda: "fake> " in agent.output, "the prompt")

    agent.deliver(ask("t-1", "reply pong"))
    eventually(lambda: replies(agent) == [{"result": "pong", "ticket": "t-1"}], "idea_reply pong")
    assert agent.tool_calls()[0]["token"] == "s3cret"  # the bridge got the declared environment
    eventually(lambda: [h["event"] for h in agent.hooks()][-2:] == ["UserPromptSubmit", "Stop"], "the turn hooks")
    submitted = next(h for h in agent.hooks() if h["event"] == "UserPromptSubmit")
    assert "ticket t-1" in submitted["payload"]["prompt"]  # type: ignore[index]
    assert "\n\nIdeA: when you are done" in submitted["payload"]["prompt"]  # type: ignore[index]

    before = agent.transcript_size()
    agent.deliver(ask("t-2", "work 0.8 then reply built"))
    time.sleep(0.5)
    assert agent.transcript_size() > before + 100  # it writes while it works
    eventually(lambda: {"result": "built", "ticket": "t-2"} in replies(agent), "the reply after work")

    agent.deliver(ask("t-3", "ask QA check the build"), bracketed=False)  # flattened, typed as keys
    eventually(lambda: {"result": "relay:answer-from-QA", "ticket": "t-3"} in replies(agent), "the relayed answer")
    assert {"target": "QA", "task": "check the build"} in [c["arguments"] for c in agent.tool_calls()]

    agent.deliver(ask("t-4", "list"))
    eventually(lambda: any(r["ticket"] == "t-4" and "QA" in r["result"] for r in replies(agent)), "the list")  # type: ignore[index]

    stops = sum(h["event"] == "Stop" for h in agent.hooks())
    agent.deliver(ask("t-5", "prose just words"))
    eventually(lambda: sum(h["event"] == "Stop" for h in agent.hooks()) == stops + 1, "the prose turn's Stop")
    assert "just words" in agent.output and all(r["ticket"] != "t-5" for r in replies(agent))  # type: ignore[index]


def test_prompts_typed_during_a_turn_wait_in_the_native_queue(agent: RunningAgent) -> None:
    eventually(lambda: "fake> " in agent.output, "the prompt")

    agent.deliver(ask("t-1", "work 0.6 then reply first"))
    time.sleep(0.1)
    agent.deliver(ask("t-2", "reply second"))

    eventually(lambda: len(replies(agent)) == 2, "both replies")
    assert [r["result"] for r in replies(agent)] == ["first", "second"]  # type: ignore[index]


def test_silence_and_death(agent: RunningAgent) -> None:
    eventually(lambda: "fake> " in agent.output, "the prompt")
    agent.deliver(ask("t-1", "silent 0.8"))
    time.sleep(0.5)
    size = agent.transcript_size()
    time.sleep(0.2)
    assert agent.transcript_size() == size  # no activity at all while silent

    agent.deliver(ask("t-2", "die 3"))
    eventually(lambda: not agent.process.isalive(), "the exit")
    agent.process.wait()
    assert agent.process.exitstatus == 3


def test_without_bracketed_paste_the_cli_never_asks_for_it(tmp_path: Path) -> None:
    running = RunningAgent(tmp_path, "--no-bracketed-paste", "--session-id", "11111111-2222-4333-8444-555555555555")
    try:
        eventually(lambda: "fake> " in running.output, "the prompt")
        eventually(lambda: running.hooks(), "the SessionStart hook")
        assert "\x1b[?2004h" not in running.output
        assert running.hooks()[0]["payload"]["session_id"] == "11111111-2222-4333-8444-555555555555"  # type: ignore[index]
    finally:
        running.close()


def test_the_trust_dialog_holds_everything_until_it_is_answered(tmp_path: Path) -> None:
    running = RunningAgent(tmp_path, "--trust-dialog")
    try:
        eventually(lambda: "Do you trust the files in this folder?" in running.output, "the trust dialog")
        time.sleep(0.3)
        assert running.hooks() == [] and running.tool_calls() == [] and "fake> " not in running.output
        running.type("\r")
        eventually(lambda: "fake> " in running.output, "the prompt after trusting")
        eventually(lambda: [h["event"] for h in running.hooks()] == ["SessionStart"], "the SessionStart hook")
        running.deliver(ask("t-1", "limit 3pm (Europe/Paris)"))
        eventually(lambda: "Claude usage limit reached ∙ resets 3pm (Europe/Paris)" in running.output, "the limit")
    finally:
        running.close()


def test_refusing_trust_exits(tmp_path: Path) -> None:
    running = RunningAgent(tmp_path, "--trust-dialog")
    try:
        eventually(lambda: "Do you trust the files in this folder?" in running.output, "the trust dialog")
        running.type("\x1b")
        eventually(lambda: not running.process.isalive(), "the exit")
        assert running.hooks() == []
    finally:
        running.close()
