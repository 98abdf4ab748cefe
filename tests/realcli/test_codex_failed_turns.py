"""The real Codex, run as IdeA runs it (its TUI in a terminal, in an agent's run dir, with the `config.toml`
IdeA writes), against a stand-in for its model API that answers the prompts with errors.

When an API error ends a turn, Codex runs neither its `notify` program nor a hook: the turn's `task_complete`
record in its rollout is the only trace, and IdeA reads it from there (`CodexFailedTurns`).
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

import ptyprocess

from idea.domain.agent_states.turn_failure import FailedTurn
from idea.infrastructure.agent_watching import LocalAgentWatchAdapters
from idea.infrastructure.clock import SystemClock
from idea.infrastructure.timer import MonotonicTimer
from tests.fakes import RecordingDiagnostics
from tests.fakes_gateway import MAIN
from tests.realcli.fake_model import FakeResponsesApi, ModelAnswer
from tests.realcli.run_dirs import prepared_run_dir, reference_profile

DIRECTIVE = "Check"  # the prompts the stand-in answers (Codex's own title requests get a plain answer)
READY = "\x1b]7501;state=idle:app=codex"  # the state Codex reports to its terminal once it takes prompts
START_S = 60
RECORD_S = 30


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
    limit = {"error": {"type": "usage_limit_reached", "message": "limit", "resets_at": resets_at_s}}
    refused = {"error": {"message": "Incorrect API key provided", "type": "invalid_request_error"}}
    unknown = {"error": {"message": "The model does not exist", "code": "model_not_found"}}
    model = FakeResponsesApi(answer=ModelAnswer(directive=DIRECTIVE))
    profile = reference_profile("Codex")
    try:
        # The person's own settings in the agent's config, kept by IdeA's merge: the stand-in's provider.
        codex_home = tmp_path / "shop" / ".ideai" / "run" / MAIN / ".codex"
        codex_home.mkdir(parents=True)
        (codex_home / "config.toml").write_text(model.provider_toml(), encoding="utf-8")
        (cli_home / ".codex" / "auth.json").write_text(json.dumps({"OPENAI_API_KEY": "sk-not-a-key"}))
        prepared = prepared_run_dir(tmp_path, profile)
        watching = LocalAgentWatchAdapters(SystemClock(), MonotonicTimer(), RecordingDiagnostics())
        turns = watching.failed_turns(str(tmp_path / "shop"), MAIN, profile)
        assert turns is not None
        cli = CodexInTerminal(codex, prepared.cwd, {**os.environ, **prepared.extra_env})
        model.serve()
        try:
            cli.wait_for(READY, START_S)
            time.sleep(1)  # its first screen drawn whole
            model.answer = ModelAnswer(directive=DIRECTIVE, status=429, error=limit)
            cli.submit(f"{DIRECTIVE}: say hi")
            failed = failures_within(turns.new_failures, RECORD_S, lambda: cli.output)
            assert (failed.error, failed.prompt) == ("rate_limit", f"{DIRECTIVE}: say hi")
            assert failed.message is not None and "usage limit" in failed.message
            found = watching.limit_in_failure(failed.message)
            assert found is not None and found[0] is not None, failed.message
            assert abs(found[0] - resets_at_s * 1000) <= 60_000  # "try again at 9:04 PM": to the minute

            model.answer = ModelAnswer(directive=DIRECTIVE, status=401, error=refused)
            cli.submit(f"{DIRECTIVE}: and now?")
            failed = failures_within(turns.new_failures, RECORD_S, lambda: cli.output)
            assert (failed.error, failed.prompt) == ("authentication_failed", f"{DIRECTIVE}: and now?")

            model.answer = ModelAnswer(directive=DIRECTIVE, status=400, error=unknown)
            cli.submit(f"{DIRECTIVE}: which model?")
            failed = failures_within(turns.new_failures, RECORD_S, lambda: cli.output)
            assert (failed.error, failed.message) == ("model_not_found", "The model does not exist"), failed
        finally:
            cli.end()
    finally:
        model.close()
