"""What the fuzz suites of the doors share (issue 16): a real IdeA (bootstrap, the real orchestration core, the
project's real socket and request folders) whose team cannot start — every agent but Main names a CLI that
does not exist, so asks and launches end at once with a typed error instead of starting processes — and a
plain blocking line client for the socket.

The checks every fuzz run ends with: no traceback in IdeA's log (no handler failed), the doors still serve,
and no control character reached a file an agent can write to.
"""

from __future__ import annotations

import json
import os
import socket
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from idea.domain.agent_text import follows_the_rule
from idea.domain.profile import Profile
from tests.integration.scenario_support import Scenario, ScenarioFactory

TEAM = ("QA", "Architect", "Dev Ops")
ANSWER_TIMEOUT_S = 30.0


def missing_cli_profile() -> Profile:
    return Profile.from_json(
        {
            "id": str(uuid.uuid4()),
            "name": "Missing CLI",
            "command": "/nonexistent/idea-fuzz-cli",
            "contextInjection": {"strategy": "conventionFile", "target": "CLAUDE.md"},
            "mcp": {"config": {"strategy": "configFile", "target": ".mcp.json"}, "transport": "stdio"},
        }
    )


def open_fuzz_world(factory: ScenarioFactory) -> Scenario:
    scenario = factory.open(warm=(), cold=())  # Main only, launched: its bridge declaration holds its token
    profile = missing_cli_profile()
    for name in TEAM:
        scenario.add_agent(name, profile)
    return scenario


def names_of(scenario: Scenario) -> tuple[str, ...]:
    return ("Main", *TEAM, "Nobody")


class LineClient:
    """A bridge-less MCP client on the project's socket: a handshake, then one JSON message per line."""

    def __init__(self, scenario: Scenario) -> None:
        declared = scenario.mcp_declaration("Main")
        args = declared["args"]
        option = {args[i]: args[i + 1] for i in range(len(args) - 1) if args[i].startswith("--")}
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(ANSWER_TIMEOUT_S)
        self.sock.connect(option["--endpoint"])
        self._buffer = b""
        handshake = {
            "v": 1,
            "kind": "mcp",
            "project": option["--project"],
            "requester": option["--requester"],
            "token": declared["env"]["IDEA_MCP_TOKEN"],
        }
        self.send(json.dumps(handshake).encode())
        initialize = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "fuzz", "version": "1"}}
        self.send(json.dumps({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": initialize}).encode())
        answer = self.receive()
        assert answer.get("id") == "init" and "result" in answer, answer
        self.send(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}')

    def send(self, line: bytes) -> None:
        self.sock.sendall(line + b"\n")

    def receive(self, timeout: float = ANSWER_TIMEOUT_S) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError("no answer")
            self.sock.settimeout(remaining)
            chunk = self.sock.recv(1 << 20)
            if not chunk:
                raise ConnectionError("IdeA closed the connection")
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return dict(json.loads(line))

    def close(self) -> None:
        self.sock.close()


@dataclass
class LineVerdict:
    """What one line owes: how many answers carrying its id (when it has a usable one), and how many
    null-id errors (answers to lines whose id cannot be read)."""

    request_id: str | int | None
    id_answers: tuple[int, ...]
    null_answers: tuple[int, ...]


def owed_by(line: bytes) -> LineVerdict:
    try:
        document = json.loads(line)
    except (ValueError, RecursionError):
        return LineVerdict(None, (0,), (1,))  # a parse error
    if not isinstance(document, dict):
        return LineVerdict(None, (0,), (1,))
    if "id" not in document:
        return LineVerdict(None, (0,), (0, 1))  # a notification, or an invalid message without an id
    request_id = document["id"]
    if not isinstance(request_id, str | int) or isinstance(request_id, bool):
        return LineVerdict(None, (0,), (1,))
    if "method" in document or not ("result" in document or "error" in document):
        return LineVerdict(request_id, (1,), (0,))  # a request, valid or not: one answer
    return LineVerdict(request_id, (0, 1), (0,))  # a response from the client: nothing, or -32600 if invalid


def tracebacks(scenario: Scenario) -> list[str]:
    log = scenario.app.data_dir / "logs" / "idea.log"
    text = log.read_text(encoding="utf-8", errors="replace") if log.exists() else ""
    return [line for line in text.splitlines() if "Traceback" in line]


def texts_in_agent_files(project: Path) -> list[tuple[str, str]]:
    """Every string of live-state.json, and every file the tools write from an agent's text (personas, memory
    notes, skills, the shared context and its proposals), as (where, text)."""
    found: list[tuple[str, str]] = []
    ideai = project / ".ideai"
    live = ideai / "live-state.json"
    if live.exists():
        for entry in json.loads(live.read_text(encoding="utf-8")).get("entries", []):
            found += [(f"live-state {key}", value) for key, value in entry.items() if isinstance(value, str)]
    written = [*ideai.glob("agents/*.md"), *ideai.glob("memory/*.md"), *ideai.glob("skills/md/*.md")]
    written += [*ideai.glob("proposals/*.md"), *ideai.glob("CONTEXT.md")]
    for path in written:
        found.append((str(path.relative_to(ideai)), path.read_text(encoding="utf-8")))
    return found


def control_characters_stored(project: Path) -> list[str]:
    return [f"{where}: {text[:60]!r}" for where, text in texts_in_agent_files(project) if not follows_the_rule(text)]


def fuzz_count(variable: str, default: int) -> int:
    return int(os.environ.get(variable) or default)
