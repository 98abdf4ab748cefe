"""The real Codex, run as IdeA runs it (its TUI in a terminal, in an agent's run dir, with the `config.toml`
IdeA writes), against a local server that answers every model request with an error.

When an API error ends a turn, Codex runs neither its `notify` program nor a hook: the turn's `task_complete`
record in its rollout is the only trace, and IdeA reads it from there (`CodexFailedTurns`).
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import ptyprocess

from idea.application.agents.ports import BridgeEndpoint, RunDirRequest
from idea.domain.agent_states.turn_failure import FailedTurn
from idea.domain.profile import Profile
from idea.infrastructure.agent_watching import LocalAgentWatchAdapters
from idea.infrastructure.agents.run_dir import LocalRunDirWriter
from idea.infrastructure.clock import SystemClock
from idea.infrastructure.resources import resources_dir
from idea.infrastructure.timer import MonotonicTimer
from tests.fakes import RecordingDiagnostics
from tests.fakes_gateway import MAIN, TOKENS

PROJECT_ID = "0f3c2a9e-6b1d-4c1e-9d0a-2f6f1f7b8c11"
READY = "\x1b]7501;state=idle:app=codex"  # the state Codex reports to its terminal once it takes prompts
START_S = 60
RECORD_S = 30


def codex_profile() -> Profile:
    data = json.loads((resources_dir() / "profiles" / "reference-profiles.json").read_text(encoding="utf-8"))
    return Profile.from_json(next(profile for profile in data if profile["name"] == "Codex"))


@contextmanager
def model_server() -> Iterator[tuple[str, list[tuple[int, dict[str, object]]], Callable[[], None]]]:
    """A local "model API" that answers every request with `answer[0]` (status, body), which the test sets;
    yields its base URL, `answer` and what starts serving (connections wait until then, so the CLI can be
    started before this process has a second thread)."""
    answer: list[tuple[int, dict[str, object]]] = [(500, {})]

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802
            self.rfile.read(int(self.headers.get("content-length") or 0))
            status, body = answer[0]
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST

        def log_message(self, *_args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", answer, thread.start
    finally:
        if thread.is_alive():
            server.shutdown()
        server.server_close()


class CodexInTerminal:
    """The Codex TUI in a pseudo-terminal; what it drew, read by a thread."""

    def __init__(self, codex: str, cwd: str, env: dict[str, str]) -> None:
        self.process = ptyprocess.PtyProcess.spawn([codex], cwd=cwd, env=env, dimensions=(40, 140))
        self.output = ""
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        while True:
            try:
                self.output += self.process.read(65536).decode(errors="replace")
            except EOFError:
                return

    def wait_for(self, text: str, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        while text not in self.output and time.monotonic() < deadline:
            time.sleep(0.1)
        assert text in self.output, f"{text!r} never drawn; the screen had: {self.output[-2000:]!r}"

    def submit(self, prompt: str) -> None:
        self.process.write(prompt.encode())
        time.sleep(0.3)  # as a person would: Codex takes Enter right after a paste-like burst as a newline
        self.process.write(b"\r")

    def end(self) -> None:
        self.process.terminate(force=True)


def failures_within(read: Callable[[], list[FailedTurn]], timeout_s: float, screen: Callable[[], str]) -> FailedTurn:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        found = read()
        if found:
            [failed] = found
            return failed
        time.sleep(0.2)
    raise AssertionError(f"no failed turn recorded; the screen had: {screen()[-2000:]!r}")


def test_turns_ended_by_api_errors_are_read_from_the_rollout(
    require_cli: Callable[[str], str], cli_home: Path, tmp_path: Path
) -> None:
    codex = require_cli("codex")
    resets_at_s = int(time.time()) + 90 * 60
    limit = {"error": {"type": "usage_limit_reached", "message": "limit", "plan_type": "plus", "resets_at": resets_at_s}}
    refused = {"error": {"message": "Incorrect API key provided", "type": "invalid_request_error"}}
    unknown = {"error": {"message": "The model does not exist", "type": "invalid_request_error", "code": "model_not_found"}}
    with model_server() as (base_url, answer, serve):
        project = tmp_path / "shop"
        project.mkdir()
        run_dir = project / ".ideai" / "run" / MAIN
        codex_home = run_dir / ".codex"
        codex_home.mkdir(parents=True)
        # The person's own settings in the agent's config, kept by IdeA's merge: a model provider at
        # `base_url` that never retries.
        (codex_home / "config.toml").write_text(
            'model_provider = "local"\n\n[model_providers.local]\nname = "local"\n'
            f'base_url = "{base_url}"\nexperimental_bearer_token = "sk-not-a-key"\nwire_api = "responses"\n'
            "request_max_retries = 0\nstream_max_retries = 0\n",
            encoding="utf-8",
        )
        (cli_home / ".codex" / "auth.json").write_text(json.dumps({"OPENAI_API_KEY": "sk-not-a-key"}))
        prepared = LocalRunDirWriter().prepare(
            RunDirRequest(
                project_root=str(project),
                project_id=PROJECT_ID,
                agent_id=MAIN,
                profile=codex_profile(),
                convention_text="# Project root\n",
                bridge=BridgeEndpoint(str(tmp_path / "no-idea-here.sock"), TOKENS[MAIN]),
                tool_timeout_ms=60_000,
                trust_run_dir=True,
            )
        )
        watching = LocalAgentWatchAdapters(SystemClock(), MonotonicTimer(), RecordingDiagnostics())
        turns = watching.failed_turns(str(project), MAIN, codex_profile())
        assert turns is not None
        cli = CodexInTerminal(codex, prepared.cwd, {**os.environ, **prepared.extra_env})
        serve()
        try:
            cli.wait_for(READY, START_S)
            time.sleep(1)  # its first screen drawn whole
            answer[0] = (429, limit)
            cli.submit("say hi")
            failed = failures_within(turns.new_failures, RECORD_S, lambda: cli.output)
            assert (failed.error, failed.prompt) == ("rate_limit", "say hi")
            assert failed.message is not None and "usage limit" in failed.message
            found = watching.limit_in_failure(failed.message)
            assert found is not None and found[0] is not None, failed.message
            assert abs(found[0] - resets_at_s * 1000) <= 60_000  # "try again at 9:04 PM": to the minute

            answer[0] = (401, refused)
            cli.submit("and now?")
            failed = failures_within(turns.new_failures, RECORD_S, lambda: cli.output)
            assert (failed.error, failed.prompt) == ("authentication_failed", "and now?")

            answer[0] = (400, unknown)
            cli.submit("which model?")
            failed = failures_within(turns.new_failures, RECORD_S, lambda: cli.output)
            assert (failed.error, failed.message) == ("model_not_found", "The model does not exist"), failed
        finally:
            cli.end()
