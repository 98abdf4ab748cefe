"""A real ask between two fake agents through the bridge and hook relay of a built artifact (the AppImage,
the frozen one-dir, or a venv's console script): the run dirs' declarations name that executable, the agent
CLIs start it, and the answer comes back.

Run by packaging/smoke/smoke_linux.py with `IDEA_SMOKE_COMMAND` set to the JSON argv prefix of the
artifact; skipped otherwise. The orchestration core runs in this test process; everything an agent CLI
starts is the artifact.
"""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path

import psutil
import pytest

from idea.infrastructure.agents import run_dir
from tests.integration.scenario_support import Scenario, ScenarioFactory, eventually, processes_with_home
from tests.integration.test_orchestration_scenarios import directive

COMMAND_ENV = "IDEA_SMOKE_COMMAND"
COMMAND: list[str] = json.loads(os.environ.get(COMMAND_ENV, "[]"))
pytestmark = pytest.mark.skipif(not COMMAND, reason=f"{COMMAND_ENV} names no built IdeA")


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # noqa: ANN201
    monkeypatch.setattr(run_dir, "idea_command", lambda: list(COMMAND))
    factory = ScenarioFactory(tmp_path, monkeypatch)
    try:
        yield factory
    finally:
        factory.close()


def bridges_started_from_the_artifact(scenario: Scenario) -> list[str]:
    """Command lines of the live bridges of this scenario that run the artifact."""
    found = []
    for process in processes_with_home(scenario.home):
        try:
            argv = process.cmdline()
        except psutil.Error:
            continue
        if "mcp-server" in argv:
            found.append(shlex.join(argv))
    return found


def test_main_asks_qa_through_the_built_bridge(world: ScenarioFactory) -> None:
    scenario = world.open(requester="fake", warm=("QA",), cold=())

    for name in ("Main", "QA"):
        declared = scenario.mcp_declaration(name)
        assert [declared["command"], *declared["args"]][: len(COMMAND) + 1] == [*COMMAND, "mcp-server"]
        settings = json.loads((scenario.run_dir(name) / ".claude" / "settings.local.json").read_text())
        hook = settings["hooks"]["Stop"][0]["hooks"][0]["command"]
        assert shlex.split(hook)[: len(COMMAND) + 1] == [*COMMAND, "hook"]
    assert bridges_started_from_the_artifact(scenario), "no bridge process runs"

    scenario.submit_human("Main", directive("ask QA reply pong-from-the-artifact"))

    results = eventually(lambda: scenario.tool_results("Main"), "Main's ask to return", timeout=60)
    assert results[0] == ("pong-from-the-artifact", False)  # QA's idea_reply, through both bridges
    # The artifact's hook relay reported QA's turn (UserPromptSubmit) to the core.
    qa = scenario.id_of("QA")
    eventually(lambda: scenario.beacons(f"[hook] claude UserPromptSubmit agent={qa}"), "QA's turn relayed", timeout=30)
