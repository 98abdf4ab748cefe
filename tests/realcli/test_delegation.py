"""Delegation to the real agent CLIs, end to end, offline: IdeA's core (headless terminals), a requester whose
MCP client is the official SDK client started as its `.mcp.json` says, and a target agent on a reference
profile started by the first ask, in the background, as delegation does. "The model" is a local stand-in
(`fake_model.py`): Codex reaches it through a model provider kept in the agent's `config.toml`, Claude Code
through `ANTHROPIC_BASE_URL`.

What this proves with the real CLIs: what IdeA writes in the run dir (the MCP server, the hooks or `notify`),
the delivery typed into the TUI, the bridge the CLI starts, `idea_reply` called by the CLI without anyone at
its cell, the end of the turn — and, when the model API fails a Codex turn (where Codex runs no hook and no
`notify`), the asker told why from the rollout instead of waiting for its window to run out.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from idea.application.orchestrator import timing
from idea.domain.profile import reference_profile_id
from idea.domain.workspace import NewCellContent
from tests.integration.scenario_support import (
    Scenario,
    ScenarioFactory,
    error_code,
    requester_client,
    result_text,
)
from tests.realcli.conftest import CI_VARIABLES, CREDENTIAL_VARIABLES
from tests.realcli.fake_model import FakeMessagesApi, FakeResponsesApi, LoopbackModelApi, ModelAnswer

ASK_WINDOW_MS = 90_000  # a cold Codex takes seconds to start; a passing test never waits this long


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[ScenarioFactory]:
    for variable in (*CREDENTIAL_VARIABLES, *CI_VARIABLES, "CODEX_HOME"):
        monkeypatch.delenv(variable, raising=False)
    factory = ScenarioFactory(tmp_path, monkeypatch)
    try:
        yield factory
    finally:
        factory.close()


@pytest.fixture
def model() -> Iterator[FakeResponsesApi]:
    api = FakeResponsesApi()
    try:
        yield api
    finally:
        api.close()


def team_with_codex(world: ScenarioFactory, model: FakeResponsesApi, codex: str) -> Scenario:
    """Main (the test's SDK client) and Coder, a Codex agent not started yet, whose run dir already holds the
    person's model provider; its folder trusted as the setting does it."""
    scenario = world.open(warm=(), cold=(), timings={timing.WINDOW_ENV: ASK_WINDOW_MS, timing.CEILING_ENV: 120_000})
    app = scenario.app
    profile_id = reference_profile_id("codex")

    def enable() -> None:
        [profile] = [p for p in app.profiles.reference_profiles() if p.id == profile_id]
        app.profiles.complete_setup([profile])
        app.preferences.update_settings(new_cell_content=NewCellContent.EMPTY, trust_run_dirs_automatically=True)

    scenario.sync(enable)
    scenario.agents["Coder"] = scenario.on_core(scenario.runtime.agents.create("Coder", profile_id, "# Coder\n"))
    codex_home = scenario.run_dir("Coder") / ".codex"
    codex_home.mkdir(parents=True)
    (codex_home / "config.toml").write_text(model.provider_toml(), encoding="utf-8")
    user_codex = scenario.home / ".codex"
    user_codex.mkdir()
    (user_codex / "auth.json").write_text(json.dumps({"OPENAI_API_KEY": "sk-not-a-key"}), encoding="utf-8")
    assert Path(codex).is_file()
    return scenario


def ask(scenario: Scenario, model: LoopbackModelApi, task: str, target: str = "Coder") -> Any:
    async def run() -> Any:
        async with requester_client(scenario) as client:
            call = asyncio.ensure_future(client.call_tool("idea_ask_agent", {"target": target, "task": task}))
            await asyncio.sleep(0)
            model.serve()  # the CLI is started by the ask, in another process: no fork from a second thread here
            return await call

    return asyncio.run(run())


def beacons_until(scenario: Scenario, fragment: str, timeout_s: float = 10) -> list[str]:
    deadline = time.monotonic() + timeout_s
    while not (found := scenario.beacons(fragment)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return found


def test_codex_started_by_an_ask_replies_through_idea_and_its_turn_end_is_told_by_notify(
    require_cli: Callable[[str], str], world: ScenarioFactory, model: FakeResponsesApi
) -> None:
    scenario = team_with_codex(world, model, require_cli("codex"))
    model.answer = ModelAnswer(reply="pong from Codex")

    result = ask(scenario, model, "reply pong")

    assert not result.is_error, result_text(result)
    assert "pong from Codex" in result_text(result), (result_text(result), model.tool_outputs)
    prompts = [item for body in model.requests for item in body.get("input", []) if item.get("role") == "user"]
    assert any("reply pong" in json.dumps(item) for item in prompts)  # the task, as IdeA typed it into the TUI
    assert beacons_until(scenario, "[turn] ended agent=Coder"), "Codex's notify never ended the turn"
    assert scenario.bridge_connected("Coder")


def test_a_codex_turn_failed_by_the_model_api_tells_the_asker_at_once(
    require_cli: Callable[[str], str], world: ScenarioFactory, model: FakeResponsesApi
) -> None:
    scenario = team_with_codex(world, model, require_cli("codex"))
    reset_s = int(time.time()) + 2 * 3600
    model.answer = ModelAnswer(
        status=429,
        error={"error": {"type": "usage_limit_reached", "message": "limit", "plan_type": "plus", "resets_at": reset_s}},
    )
    started = time.monotonic()

    result = ask(scenario, model, "review the parser")

    took_s = time.monotonic() - started
    assert error_code(result) == "TARGET_RATE_LIMITED", result_text(result)
    error = (result.structured_content or {})["error"]
    assert abs(error["resetsAtMs"] - reset_s * 1000) <= 60_000, error  # Codex's "try again at 9:04 PM"
    assert error["autoResume"] is True
    assert took_s < ASK_WINDOW_MS / 1000 / 2, f"the asker waited {took_s:.0f} s"
    # Whichever saw it first (the limit drawn on its screen, or the failed turn in its rollout), the rollout
    # is read too: its turn ended on that error, though Codex ran no `notify` for it.
    assert beacons_until(scenario, "[turn] failed agent=Coder error=rate_limit"), "the failed turn was not read"


def test_claude_code_started_by_an_ask_replies_through_idea_unasked(
    require_cli: Callable[[str], str], world: ScenarioFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    require_cli("claude")
    model = FakeMessagesApi(answer=ModelAnswer(reply="pong from Claude"))
    key = "sk-ant-api03-" + "x" * 80
    monkeypatch.setenv("ANTHROPIC_BASE_URL", model.origin)
    monkeypatch.setenv("ANTHROPIC_API_KEY", key)
    scenario = world.open(warm=(), cold=(), timings={timing.WINDOW_ENV: ASK_WINDOW_MS, timing.CEILING_ENV: 120_000})
    # A person who has used Claude Code with this key before: its first-run screens are behind them.
    state = {"hasCompletedOnboarding": True, "customApiKeyResponses": {"approved": [key[-20:]], "rejected": []}}
    (scenario.home / ".claude.json").write_text(json.dumps(state), encoding="utf-8")
    profile_id = reference_profile_id("claude")

    def enable() -> None:
        [profile] = [p for p in scenario.app.profiles.reference_profiles() if p.id == profile_id]
        scenario.app.profiles.complete_setup([profile])
        scenario.app.preferences.update_settings(trust_run_dirs_automatically=True)

    scenario.sync(enable)
    scenario.agents["Reviewer"] = scenario.on_core(scenario.runtime.agents.create("Reviewer", profile_id, "# R\n"))
    try:
        result = ask(scenario, model, "reply pong", target="Reviewer")
    finally:
        model.close()

    assert not result.is_error, (result_text(result), scenario.screen("Reviewer"))
    assert "pong from Claude" in result_text(result)
    assert beacons_until(scenario, "[turn] ended agent=Reviewer"), "Claude's Stop hook never ended the turn"
