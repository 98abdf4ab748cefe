"""Resumes through the real launch path (spec 05 §9.2, §11; spec 04 §6): an agent whose CLI exited while
limited, or that was running when its project closed, is started again on the conversation it carried,
resuming the CLI's own session by its engine id (never `--continue`), with that conversation's bounded
handoff under `# Conversation resume` in its context file."""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from pathlib import Path

import psutil
import pytest

from idea.application.agents.placement_rules import InBackground
from idea.domain.agent_states.session_limit import HOUR_MS, RESUME_PROMPT
from idea.domain.ids import AgentId, ConversationId, conversation_for_pair
from idea.domain.knowledge.conversation_log import ConversationTurn, TurnRole
from idea.domain.knowledge.handoff import Handoff
from idea.domain.orchestration.tickets import AgentSource, HumanSource
from tests.integration.scenario_support import Scenario, ScenarioFactory, eventually, fake_profile, scenario_factory


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # noqa: ANN201
    yield from scenario_factory(tmp_path, monkeypatch)


@dataclass
class Running:
    scenario: Scenario
    qa: AgentId
    conversation: ConversationId
    engine: str
    pid: int
    handoff: Handoff


def engine_id(scenario: Scenario, conversation: ConversationId) -> str | None:
    providers = scenario.project_dir / ".ideai" / "providers.json"
    if not providers.is_file():
        return None
    entries = json.loads(providers.read_text(encoding="utf-8")).get("entries", [])
    return next((e["engineSessionId"] for e in entries if e["conversationId"] == conversation), None)


def qa_with_a_handoff(world: ScenarioFactory, *, sessions: bool = True) -> Running:
    """QA runs in the background on its conversation with Main — as after a resume of that conversation —
    which has a handoff. `sessions`: its CLI assigns and resumes its session ids, like Claude; without, IdeA
    has no way to resume the CLI's own session (custom profiles, Aider)."""
    scenario = world.open(warm=(), cold=())
    strategy = {"assignFlag": "--session-id", "resumeFlag": "--resume"} if sessions else None
    profile = fake_profile("Fake Claude with sessions").with_changes({"session": strategy})
    qa = scenario.add_agent("QA", profile).agent_id
    runtime = scenario.runtime
    conversation = conversation_for_pair(qa, scenario.id_of("Main"))
    scenario.on_core(runtime.placement.start(qa, InBackground(), reason="user", conversation_id=conversation))
    scenario.wait_bridge("QA")
    pid = scenario.pid("QA")
    assert pid is not None
    if sessions:
        engine = eventually(lambda: engine_id(scenario, conversation), "QA's engine session id in providers.json")
        assert psutil.Process(pid).cmdline()[-2:] == ["--session-id", engine]
    else:
        engine = ""

    async def talk() -> None:
        turns = [(TurnRole.PROMPT, "Audit the storage ports"), (TurnRole.RESPONSE, "Done: three ports audited.")]
        for i, (role, text) in enumerate(turns, 1):
            source = HumanSource() if role is TurnRole.PROMPT else AgentSource(qa)
            turn = ConversationTurn(str(uuid.uuid4()), conversation, 1_781_368_615_582 + i, source, role, text)
            await runtime.knowledge.append(turn)

    scenario.on_core(talk())
    handoff = eventually(
        lambda: scenario.sync(lambda: runtime.knowledge.record.current(conversation)), "the conversation's handoff"
    )
    return Running(scenario, qa, conversation, engine, pid, handoff)


def assert_resumed(run: Running, pid: int | None) -> None:
    """Relaunched by the CLI's own session id when there is one, and always with the conversation's handoff."""
    assert pid is not None and pid != run.pid
    cmdline = psutil.Process(pid).cmdline()
    if run.engine:
        assert cmdline[-2:] == ["--resume", run.engine]
    else:
        assert "--resume" not in cmdline and "--session-id" not in cmdline
    assert "--continue" not in cmdline
    context_file = (run.scenario.run_dir("QA") / "CLAUDE.md").read_text(encoding="utf-8")
    resume = context_file.split("# Conversation resume\n\n", 1)[1].rstrip("\n")
    assert resume == run.handoff.summary and "Audit the storage ports" in resume


@pytest.mark.parametrize("sessions", [True, False], ids=["engine id", "no session strategy"])
def test_an_exited_cli_resumed_after_its_limit_carries_its_engine_id_and_the_handoff(
    world: ScenarioFactory, sessions: bool
) -> None:
    run = qa_with_a_handoff(world, sessions=sessions)
    scenario, qa = run.scenario, run.qa
    runtime = scenario.runtime
    states = runtime.orchestrator.states
    scenario.sync(lambda: states.limit_seen(qa, runtime.clock.now_ms() + HOUR_MS, "Claude usage limit reached"))
    assert scenario.sync(lambda: states.limits.armed_fire_at(qa)) is not None  # type: ignore[union-attr]
    psutil.Process(run.pid).kill()  # the CLI quits at its limit screen by itself
    eventually(lambda: scenario.live("QA") is None, "QA's CLI to exit")
    (scenario.run_dir("QA") / "CLAUDE.md").unlink()  # what the relaunch writes is read below

    assert scenario.on_core(states.limits.resume_now(qa))  # type: ignore[union-attr]
    relaunched = eventually(lambda: scenario.live("QA"), "QA started again")
    assert relaunched.node_id is None  # where it ran: the background
    assert_resumed(run, relaunched.terminal.pid())
    eventually(lambda: RESUME_PROMPT in scenario.screen("QA"), "the resume prompt as its first turn")


def test_resume_on_reopen_carries_the_engine_id_and_the_handoff(world: ScenarioFactory) -> None:
    run = qa_with_a_handoff(world)
    scenario = run.scenario
    app, root = scenario.app, str(scenario.project_dir)
    scenario.on_core(app.projects.close(scenario.runtime.id))
    eventually(lambda: not psutil.pid_exists(run.pid), "QA's CLI to end with its project")
    (scenario.run_dir("QA") / "CLAUDE.md").unlink()
    reopened = scenario.on_core(app.projects.open(root))
    scenario.runtime = reopened
    offer = next(c for c in scenario.sync(reopened.runner.resumable) if c.agent_id == run.qa)
    assert offer.conversation_id == run.conversation and offer.native_resume and offer.node_id is None
    assert scenario.live("QA") is None  # never launched without the person's choice

    assert scenario.on_core(reopened.placement.resume([offer], [])) == []
    relaunched = eventually(lambda: scenario.live("QA"), "QA resumed")
    assert_resumed(run, relaunched.terminal.pid())
