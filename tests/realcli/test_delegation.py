"""Delegation between the real agent CLIs, end to end, offline: IdeA's core (headless terminals), agents on the
reference profiles started by the first ask, in the background, as delegation does, and a requester that is
either the official SDK client started as an agent's `.mcp.json` says, or a real CLI told by the person to
ask. "The model" of each CLI is a local stand-in (`fake_model.py`): Codex reaches it through a model
provider kept in the agent's `config.toml`, Claude Code through `ANTHROPIC_BASE_URL`, Gemini CLI through
`GOOGLE_GEMINI_BASE_URL`.

What this proves with the real CLIs: what IdeA writes in the run dir (the MCP server, the hooks or `notify`,
the permission to run IdeA's own tools), the delivery typed into the TUI, the bridge the CLI starts,
`idea_reply` and `idea_ask_agent` called by the CLI without anyone at its cell (and, for a Gemini profile
without IdeA's MCP server, its reply written as a request file with its own file tool), the end of the turn —
and, when the model API fails a Codex turn (where Codex runs no hook and no `notify`), the asker told why from
the rollout instead of waiting for its window to run out.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from idea.application.agents.placement_rules import InBackground
from idea.application.orchestrator import timing
from idea.domain.agent_states.session_limit import RESUME_PROMPT
from idea.domain.orchestration.commands import StopAgent
from idea.domain.profile import reference_profile_id
from tests.integration.scenario_support import (
    Scenario,
    ScenarioFactory,
    error_code,
    eventually,
    requester_client,
    result_text,
)
from tests.realcli.conftest import CI_VARIABLES, CREDENTIAL_VARIABLES
from tests.realcli.fake_model import (
    FakeGeminiApi,
    FakeMessagesApi,
    FakeResponsesApi,
    LoopbackModelApi,
    ModelAnswer,
)

ASK_WINDOW_MS = 90_000  # a cold CLI takes seconds to start; a passing test never waits this long
TIMINGS = {timing.WINDOW_ENV: ASK_WINDOW_MS, timing.CEILING_ENV: 120_000}
API_KEY = "sk-ant-api03-" + "x" * 80


@pytest.fixture
def world(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[ScenarioFactory]:
    for variable in (*CREDENTIAL_VARIABLES, *CI_VARIABLES, "CODEX_HOME"):
        monkeypatch.delenv(variable, raising=False)
    factory = ScenarioFactory(tmp_path, monkeypatch)
    try:
        yield factory
    finally:
        factory.close()


@pytest.fixture
def models() -> Iterator[Callable[[LoopbackModelApi], LoopbackModelApi]]:
    """`models(api)`: serve it for this test."""
    opened: list[LoopbackModelApi] = []

    def serve(api: LoopbackModelApi) -> LoopbackModelApi:
        opened.append(api)
        api.serve()
        return api

    try:
        yield serve
    finally:
        for api in opened:
            api.close()


def add_agent(scenario: Scenario, name: str, slug: str, *, without_mcp: bool = False) -> None:
    """An agent on a reference profile (`without_mcp`: on a copy of it without IdeA's MCP server, as a person
    makes one), not started yet; run folders trusted as the setting does it."""
    [profile] = [p for p in scenario.app.profiles.reference_profiles() if p.id == reference_profile_id(slug)]
    if without_mcp:
        profile = profile.model_copy(update={"id": str(uuid.uuid4()), "name": f"{profile.name}, files", "mcp": None})

    def enable() -> None:
        scenario.app.profiles.complete_setup([profile])
        scenario.app.preferences.update_settings(trust_run_dirs_automatically=True)

    scenario.sync(enable)
    scenario.agents[name] = scenario.on_core(scenario.runtime.agents.create(name, profile.id, f"# {name}\n"))


def add_codex(scenario: Scenario, name: str, model: FakeResponsesApi) -> None:
    """Its run dir already holds the person's model provider; an API-key sign-in in the user's CODEX_HOME."""
    add_agent(scenario, name, "codex")
    codex_home = scenario.run_dir(name) / ".codex"
    codex_home.mkdir(parents=True)
    (codex_home / "config.toml").write_text(model.provider_toml(), encoding="utf-8")
    user_codex = scenario.home / ".codex"
    user_codex.mkdir(exist_ok=True)
    (user_codex / "auth.json").write_text(json.dumps({"OPENAI_API_KEY": "sk-not-a-key"}), encoding="utf-8")


def add_claude(scenario: Scenario, name: str, model: FakeMessagesApi, monkeypatch: pytest.MonkeyPatch) -> None:
    """A person who has used Claude Code with this API key before: its first-run screens are behind them."""
    monkeypatch.setenv("ANTHROPIC_BASE_URL", model.origin)
    monkeypatch.setenv("ANTHROPIC_API_KEY", API_KEY)
    state = {"hasCompletedOnboarding": True, "customApiKeyResponses": {"approved": [API_KEY[-20:]], "rejected": []}}
    (scenario.home / ".claude.json").write_text(json.dumps(state), encoding="utf-8")
    add_agent(scenario, name, "claude")


def claude_asks_before_commands(scenario: Scenario) -> None:
    """The person keeps Claude Code asking before it runs a command (`permissions.defaultMode` "default") and
    has said so when Claude offered auto mode ("No, keep manual mode": `hasSeenAutoDefaultNudge`): since
    2.1.332 its default is auto mode, whose classifier lets it run `rm -rf build` unasked."""
    settings = scenario.home / ".claude" / "settings.json"
    settings.parent.mkdir(exist_ok=True)
    settings.write_text(json.dumps({"permissions": {"defaultMode": "default"}}), encoding="utf-8")
    state_file = scenario.home / ".claude.json"
    state = json.loads(state_file.read_text(encoding="utf-8"))
    state_file.write_text(json.dumps({**state, "hasSeenAutoDefaultNudge": True}), encoding="utf-8")


def add_gemini(
    scenario: Scenario, name: str, model: FakeGeminiApi, monkeypatch: pytest.MonkeyPatch, *, file_protocol: bool = False
) -> None:
    """A person who uses Gemini CLI with an API key and has trusted the project (Gemini's question about the
    folders IdeA adds, answered "Yes, and remember"). With `file_protocol`, the agent's profile is a copy of
    the reference one without IdeA's MCP server, and the person lets Gemini apply edits without asking."""
    monkeypatch.setenv("GEMINI_API_KEY", "not-a-key")
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", model.origin)
    folder = scenario.home / ".gemini"
    folder.mkdir(exist_ok=True)
    settings: dict[str, Any] = FakeGeminiApi.gemini_settings
    if file_protocol:
        settings = {**settings, "general": {**settings["general"], "defaultApprovalMode": "auto_edit"}}
    (folder / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    trusted = {str(scenario.project_dir.resolve()): "TRUST_FOLDER"}
    (folder / "trustedFolders.json").write_text(json.dumps(trusted), encoding="utf-8")
    add_agent(scenario, name, "gemini", without_mcp=file_protocol)


def add_helper(
    scenario: Scenario,
    kind: str,
    name: str,
    answer: ModelAnswer,
    models: Callable[[Any], Any],
    monkeypatch: pytest.MonkeyPatch,
) -> LoopbackModelApi:
    """An agent of `kind` ("codex", "claude", "gemini") whose model answers `answer`; returns its model's stand-in."""
    if kind == "codex":
        codex_model: FakeResponsesApi = models(FakeResponsesApi(answer=answer))
        add_codex(scenario, name, codex_model)
        return codex_model
    if kind == "gemini":
        gemini_model: FakeGeminiApi = models(FakeGeminiApi(answer=answer))
        add_gemini(scenario, name, gemini_model, monkeypatch)
        return gemini_model
    claude_model: FakeMessagesApi = models(FakeMessagesApi(answer=answer))
    add_claude(scenario, name, claude_model, monkeypatch)
    return claude_model


def written_down(scenario: Scenario, name: str, text: str) -> bool:
    """Whether the agent's CLI has written `text` into its session files (Claude's transcripts under the
    test's HOME, Codex's rollouts under the agent's CODEX_HOME)."""
    files = [
        *scenario.home.glob(".claude/projects/*/*.jsonl"),
        *(scenario.run_dir(name) / ".codex" / "sessions").glob("**/*.jsonl"),
    ]
    return any(text in path.read_text(encoding="utf-8", errors="replace") for path in files)


def ask(scenario: Scenario, target: str, task: str) -> Any:
    """`idea_ask_agent` from Main's SDK client, through its bridge."""

    async def run() -> Any:
        async with requester_client(scenario) as client:
            return await client.call_tool("idea_ask_agent", {"target": target, "task": task})

    return asyncio.run(run())


def beacons_until(scenario: Scenario, fragment: str, timeout_s: float = 10) -> list[str]:
    deadline = time.monotonic() + timeout_s
    while not (found := scenario.beacons(fragment)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return found


def test_codex_started_by_an_ask_replies_through_idea_and_its_turn_end_is_told_by_notify(
    require_cli: Callable[[str], str], world: ScenarioFactory, models: Callable[[Any], Any]
) -> None:
    require_cli("codex")
    model = models(FakeResponsesApi(answer=ModelAnswer(reply="pong from Codex")))
    scenario = world.open(warm=(), cold=(), timings=TIMINGS)
    add_codex(scenario, "Coder", model)

    result = ask(scenario, "Coder", "reply pong")

    assert not result.is_error, (result_text(result), scenario.screen("Coder"))
    assert "pong from Codex" in result_text(result), (result_text(result), model.tool_outputs)
    prompts = [item for body in model.requests for item in body.get("input", []) if item.get("role") == "user"]
    assert any("reply pong" in json.dumps(item) for item in prompts)  # the task, as IdeA typed it into the TUI
    assert beacons_until(scenario, "[turn] ended agent=Coder"), "Codex's notify never ended the turn"
    # The title Codex asks for the new session ran `notify` in a thread of its own: not taken as the turn's end.
    assert beacons_until(scenario, "ignored: Codex thread")


@pytest.mark.parametrize("file_protocol", [False, True], ids=["mcp", "file-protocol"])
def test_gemini_started_by_an_ask_replies_unasked_and_its_hooks_tell_the_turn(
    file_protocol: bool,
    require_cli: Callable[[str], str],
    world: ScenarioFactory,
    models: Callable[[Any], Any],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """On the reference profile Gemini CLI replies through `idea_reply` without asking the person (IdeA's
    server is trusted in its settings). On a profile without IdeA's MCP server its reply is a request file,
    written with its own `write_file` into the project's request folder, which IdeA adds to its workspace."""
    require_cli("gemini")
    model = models(FakeGeminiApi(answer=ModelAnswer(reply="pong from Gemini")))
    scenario = world.open(warm=(), cold=(), timings=TIMINGS)
    add_gemini(scenario, "Scout", model, monkeypatch, file_protocol=file_protocol)

    result = ask(scenario, "Scout", "reply pong")

    assert not result.is_error, (result_text(result), scenario.screen("Scout"), model.tool_outputs)
    assert "pong from Gemini" in result_text(result)
    assert beacons_until(scenario, "[cold-start] released agent=Scout by=prompt")
    assert beacons_until(scenario, "[turn] started agent=Scout"), "Gemini's BeforeAgent hook never came"
    assert beacons_until(scenario, "[turn] ended agent=Scout"), "Gemini's AfterAgent hook never came"
    assert len(model.tool_outputs) == 1, model.tool_outputs  # one call, which nobody had to approve
    assert bool(scenario.beacons("[mcp] call idea_reply requester=")) is not file_protocol


def test_a_codex_turn_failed_by_the_model_api_tells_the_asker_at_once(
    require_cli: Callable[[str], str], world: ScenarioFactory, models: Callable[[Any], Any]
) -> None:
    require_cli("codex")
    reset_s = int(time.time()) + 2 * 3600
    limit = {"error": {"type": "usage_limit_reached", "message": "limit", "plan_type": "plus", "resets_at": reset_s}}
    model = models(FakeResponsesApi(answer=ModelAnswer(status=429, error=limit)))
    scenario = world.open(warm=(), cold=(), timings=TIMINGS)
    add_codex(scenario, "Coder", model)
    started = time.monotonic()

    result = ask(scenario, "Coder", "review the parser")

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
    require_cli: Callable[[str], str],
    world: ScenarioFactory,
    models: Callable[[Any], Any],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    require_cli("claude")
    model = models(FakeMessagesApi(answer=ModelAnswer(reply="pong from Claude")))
    scenario = world.open(warm=(), cold=(), timings=TIMINGS)
    add_claude(scenario, "Reviewer", model, monkeypatch)

    result = ask(scenario, "Reviewer", "reply pong")

    assert not result.is_error, (result_text(result), scenario.screen("Reviewer"))
    assert "pong from Claude" in result_text(result)
    assert beacons_until(scenario, "[turn] ended agent=Reviewer"), "Claude's Stop hook never ended the turn"


def test_a_claude_turn_failed_by_the_model_api_tells_the_asker_which_error_at_once(
    require_cli: Callable[[str], str],
    world: ScenarioFactory,
    models: Callable[[Any], Any],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A request rate limit of the API (not a plan's usage limit): `StopFailure` ends the turn, and the asker
    learns which error ended it instead of waiting for its window to run out."""
    require_cli("claude")
    monkeypatch.setenv("CLAUDE_CODE_MAX_RETRIES", "0")
    refused = {"type": "error", "error": {"type": "rate_limit_error", "message": "Please try again later."}}
    model = models(FakeMessagesApi(answer=ModelAnswer(status=429, error=refused, headers={"retry-after": "60"})))
    scenario = world.open(warm=(), cold=(), timings=TIMINGS)
    add_claude(scenario, "Reviewer", model, monkeypatch)
    started = time.monotonic()

    result = ask(scenario, "Reviewer", "reply pong")

    took_s = time.monotonic() - started
    assert error_code(result) == "TARGET_RETURNED_NO_REPLY", result_text(result)
    assert "turn ended on an error of its model's API (rate_limit)" in result_text(result)
    assert took_s < ASK_WINDOW_MS / 1000 / 2, f"the asker waited {took_s:.0f} s"
    assert scenario.beacons("[hook] claude StopFailure")


# A command each CLI asks the person about (its own tool), the question it draws, where IdeA learns of it.
PERMISSIONS = [
    ("claude", ("Bash", {"command": "rm -rf build", "description": "x"}), "Do you want to proceed?", "hook"),
    (
        "codex",
        ("exec_command", {"cmd": "rm -rf build", "sandbox_permissions": "require_escalated", "justification": "x"}),
        "Would you like to run the following command?",
        "screen",
    ),
]


@pytest.mark.parametrize(("kind", "command", "question", "origin"), PERMISSIONS)
def test_an_agent_waiting_for_a_permission_in_the_background_tells_the_asker_why(
    kind: str,
    command: tuple[str, dict[str, Any]],
    question: str,
    origin: str,
    require_cli: Callable[[str], str],
    world: ScenarioFactory,
    models: Callable[[Any], Any],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The task makes the model run a command the CLI asks the person about: Claude Code's `Notification`
    hook, or the question Codex draws, raises attention on the background agent, and the asker learns why
    instead of waiting for its window to run out."""
    require_cli(kind)
    scenario = world.open(warm=(), cold=(), timings={**TIMINGS, timing.ATTENTION_NOTICE_ENV: 1_000})
    add_helper(scenario, kind, "Helper", ModelAnswer(tool=command), models, monkeypatch)
    if kind == "claude":
        claude_asks_before_commands(scenario)

    result = ask(scenario, "Helper", "clean the build")

    assert error_code(result) == "TARGET_NEEDS_ATTENTION", result_text(result)
    assert "permission" in result_text(result) and "background" in result_text(result)
    assert question in scenario.screen("Helper")
    assert scenario.beacons(f"[attention] raised agent=Helper reason=permission origin={origin} visible=false")


# (kind of the asking agent, its name, kind of the asked one, its name, the task, the answer)
PAIRS = [
    ("codex", "Coder", "claude", "Reviewer", "review the parser", "LGTM: the parser handles every case"),
    ("claude", "Reviewer", "codex", "Coder", "implement the parser", "Implemented: parse() and its tests"),
    ("gemini", "Scout", "claude", "Reviewer", "review the lexer", "LGTM: the lexer keeps every token"),
]


@pytest.mark.parametrize(("asking", "asker", "asked", "target", "task", "answer"), PAIRS)
def test_an_agent_told_by_the_person_asks_another_and_gets_its_answer(
    asking: str,
    asker: str,
    asked: str,
    target: str,
    task: str,
    answer: str,
    require_cli: Callable[[str], str],
    world: ScenarioFactory,
    models: Callable[[Any], Any],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Agent to agent: the person tells one CLI to ask the other; it calls `idea_ask_agent` and waits in that
    call while IdeA starts the other in the background and delivers the task; that one answers with
    `idea_reply`, and the answer is the result of the first one's tool call."""
    require_cli(asking)
    require_cli(asked)
    directive = f"Ask {target} to {task}"
    scenario = world.open(warm=(), cold=(), timings=TIMINGS)
    delegates = ModelAnswer(directive=directive, ask=(target, task))
    asker_model = add_helper(scenario, asking, asker, delegates, models, monkeypatch)
    add_helper(scenario, asked, target, ModelAnswer(reply=answer), models, monkeypatch)

    scenario.submit_human(asker, directive)

    eventually(lambda: asker_model.tool_outputs, f"{asker}'s idea_ask_agent call to return", timeout=90)
    assert answer in asker_model.tool_outputs[0], asker_model.tool_outputs
    asks = scenario.beacons("[rendezvous] ask ticket=")
    assert len(asks) == 1 and f"from={asker} to={target}" in asks[0], asks


@pytest.mark.parametrize("kind", ["codex", "claude"])
def test_an_agent_stopped_then_asked_again_resumes_its_own_session(
    kind: str,
    require_cli: Callable[[str], str],
    world: ScenarioFactory,
    models: Callable[[Any], Any],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The CLI's own session id (the one IdeA assigned Claude Code, the thread Codex's `notify` named) starts
    it again on its conversation: the model sees the first task's turn in the second task's history."""
    require_cli(kind)
    scenario = world.open(warm=(), cold=(), timings=TIMINGS)
    model = add_helper(scenario, kind, "Helper", ModelAnswer(reply="noted: pineapple"), models, monkeypatch)
    assert "noted: pineapple" in result_text(ask(scenario, "Helper", "remember the word pineapple"))
    # The reply comes in the middle of the turn, and Claude Code writes its transcript in batches: stopped
    # at once, it would lose the turn (docs/agent-clis.md). The test stops it once the turn is written down.
    assert beacons_until(scenario, "[turn] ended agent=Helper"), "the turn did not end"
    eventually(lambda: written_down(scenario, "Helper", "noted: pineapple"), "the CLI to write its turn down")
    scenario.dispatch(StopAgent("Helper"))
    eventually(lambda: scenario.live("Helper") is None, "Helper to stop")
    first_launch = len(model.requests)
    model.answer = ModelAnswer(reply="the word was pineapple")

    assert "the word was pineapple" in result_text(ask(scenario, "Helper", "which word?"))

    history = json.dumps(model.requests[first_launch:])
    assert "noted: pineapple" in history, "the second launch did not resume the first session"
    launches = scenario.beacons("[launch] Helper argv=")
    assert len(launches) == 2, launches


@pytest.mark.parametrize(("asking", "asked"), [("codex", "claude"), ("claude", "codex")])
def test_esc_in_an_agent_waiting_on_its_ask_cancels_the_ask(
    asking: str,
    asked: str,
    require_cli: Callable[[str], str],
    world: ScenarioFactory,
    models: Callable[[Any], Any],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Both CLIs tell their MCP server when the person interrupts a tool call (`notifications/cancelled`): the
    ask ends as cancelled at once, and the target's late work is not delivered into an abandoned call."""
    require_cli(asking)
    require_cli(asked)
    directive = "Ask Target to clean the build"
    scenario = world.open(warm=(), cold=(), timings=TIMINGS)
    delegates = ModelAnswer(directive=directive, ask=("Target", "clean the build"))
    add_helper(scenario, asking, "Asker", delegates, models, monkeypatch)
    waits = next(command for kind, command, _, _ in PERMISSIONS if kind == asked)  # it waits for a permission
    add_helper(scenario, asked, "Target", ModelAnswer(tool=waits), models, monkeypatch)
    if asked == "claude":
        claude_asks_before_commands(scenario)
    scenario.submit_human("Asker", directive)
    eventually(lambda: scenario.beacons("[attention] raised agent=Target"), "Target to wait for a permission")
    asker = scenario.live("Asker")
    assert asker is not None

    scenario.on_core(asker.terminal.write_text("\x1b"))  # Esc in the asker's cell

    ended = eventually(lambda: scenario.beacons("[rendezvous] ended ticket="), "the ask to end", timeout=15)
    assert "outcome=cancelled cancel=requesterGone" in ended[0], ended


def test_gemini_giving_up_on_its_ask_ends_it_with_the_next_prompt_typed_into_it(
    require_cli: Callable[[str], str],
    world: ScenarioFactory,
    models: Callable[[Any], Any],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Esc in Gemini CLI cancels its tool call on its side only ("Request cancelled."): it tells neither its MCP
    server nor its hooks. The ask ends as abandoned when the person types the next prompt into it (its
    `BeforeAgent` hook). The person sits at Gemini's cell and types both prompts."""
    require_cli("gemini")
    require_cli("claude")
    directive = "Ask Target to clean the build"
    scenario = world.open(warm=(), cold=(), timings={**TIMINGS, timing.ATTENTION_NOTICE_ENV: 60_000})
    delegates = ModelAnswer(directive=directive, ask=("Target", "clean the build"))
    add_helper(scenario, "gemini", "Asker", delegates, models, monkeypatch)
    waits = next(command for kind, command, _, _ in PERMISSIONS if kind == "claude")
    add_helper(scenario, "claude", "Target", ModelAnswer(tool=waits), models, monkeypatch)
    claude_asks_before_commands(scenario)
    asker = scenario.on_core(scenario.runtime.placement.launch(scenario.id_of("Asker"), InBackground()))
    eventually(lambda: scenario.beacons("[cold-start] released agent=Asker"), "Gemini to show its prompt")

    def type_in(text: str) -> None:
        for key in text:
            scenario.on_core(asker.terminal.write_text(key))
        eventually(lambda: text in scenario.screen("Asker"), f"Gemini to echo {text!r}")
        time.sleep(0.1)  # Gemini takes an Enter within 30 ms of a key for a pasted newline (FAST_RETURN_TIMEOUT)
        scenario.on_core(asker.terminal.write_text("\r"))

    type_in(directive)
    eventually(lambda: scenario.beacons("[attention] raised agent=Target"), "Target to wait for a permission")
    scenario.on_core(asker.terminal.write_text("\x1b"))  # Esc
    eventually(lambda: "Request cancelled." in scenario.screen("Asker"), "Gemini to cancel its request")
    assert not scenario.beacons("[rendezvous] ended ticket=")

    type_in("Never mind")

    ended = eventually(lambda: scenario.beacons("[rendezvous] ended ticket="), "the ask to end", timeout=15)
    assert "outcome=cancelled cancel=requesterNewPrompt" in ended[0], ended


def test_a_codex_limit_resumed_now_types_the_resume_prompt_into_the_running_cli(
    require_cli: Callable[[str], str], world: ScenarioFactory, models: Callable[[Any], Any]
) -> None:
    """After a usage limit, "Resume now" (the toast's and the Agents panel's) gives the CLI still running the
    resume prompt as the person's input: Codex takes it as a new turn."""
    require_cli("codex")
    reset_s = int(time.time()) + 2 * 3600
    limit = {"error": {"type": "usage_limit_reached", "message": "limit", "resets_at": reset_s}}
    model = models(FakeResponsesApi(answer=ModelAnswer(status=429, error=limit)))
    scenario = world.open(warm=(), cold=(), timings=TIMINGS)
    add_codex(scenario, "Coder", model)
    assert error_code(ask(scenario, "Coder", "review the parser")) == "TARGET_RATE_LIMITED"
    limits = scenario.runtime.orchestrator.states.limits
    assert limits is not None
    model.answer = ModelAnswer(directive=RESUME_PROMPT)  # the limit lifted: a plain answer
    before = len(model.requests)
    turns_ended = len(beacons_until(scenario, "[turn] ended agent=Coder"))

    assert scenario.on_core(limits.resume_now(scenario.id_of("Coder")))

    def resumed() -> bool:
        return any(RESUME_PROMPT in json.dumps(body.get("input", [])[-1:]) for body in model.requests[before:])

    eventually(resumed, "Codex to send the resume prompt to its model", timeout=30)
    eventually(
        lambda: len(scenario.beacons("[turn] ended agent=Coder")) > turns_ended, "the resumed turn to end (notify)"
    )


def test_claude_code_on_its_trust_dialog_in_the_background_tells_the_asker_and_is_never_typed_into(
    require_cli: Callable[[str], str],
    world: ScenarioFactory,
    models: Callable[[Any], Any],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Run folders not trusted by the setting: Claude Code started by the ask opens on its trust question;
    IdeA sees it on the screen, types nothing into it, and the asker learns why instead of waiting. (Codex
    never asks: IdeA trusts the folders in the agent's own CODEX_HOME, which only IdeA's agents use.)"""
    require_cli("claude")
    scenario = world.open(warm=(), cold=(), timings={**TIMINGS, timing.ATTENTION_NOTICE_ENV: 1_000})
    model = add_helper(scenario, "claude", "Helper", ModelAnswer(reply="never"), models, monkeypatch)
    scenario.sync(lambda: scenario.app.preferences.update_settings(trust_run_dirs_automatically=False))

    result = ask(scenario, "Helper", "review the parser")

    assert error_code(result) == "TARGET_NEEDS_ATTENTION", result_text(result)
    assert "trust its folder" in result_text(result) and "not delivered" in result_text(result)
    assert "Quick safety check" in scenario.screen("Helper")
    assert not [body for body in model.requests if "review the parser" in json.dumps(body)]
