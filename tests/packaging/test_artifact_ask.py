"""A real ask between two fake agents through the bridge and hook relay of a built artifact (the AppImage,
the frozen one-dir, or a venv's console script): the run dirs' declarations name that executable, the agent
CLIs start it, and the answer comes back — also with both agents under the Reviewer preset plus a read deny,
each started by the artifact's `sandbox-exec` inside a Landlock sandbox that restricts reading, where an
AppImage cannot mount itself.

Run by packaging/smoke/smoke_linux.py with `IDEA_SMOKE_COMMAND` set to the JSON argv prefix of the
artifact; skipped otherwise. The orchestration core runs in this test process; everything an agent CLI
starts is the artifact. For an AppImage run through FUSE, the test mounts the image as the IdeA running from
it has it and names that mount in IDEA_LIVE_APPDIR, as that IdeA does for the processes it starts.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import psutil
import pytest

from idea.domain.permissions.model import Capability, Effect, PermissionRule
from idea.domain.permissions.view import preset
from idea.domain.spawn_env import LIVE_APPDIR_ENV
from idea.infrastructure.agents import run_dir
from idea.infrastructure.installation import Installation, Kind
from idea.infrastructure.sandbox import enforcer
from idea.infrastructure.sandbox.landlock import abi_version
from idea.infrastructure.stores.permissions import JsonPermissionStore
from tests.integration.scenario_support import Scenario, ScenarioFactory, eventually, processes_with_home
from tests.integration.test_orchestration_scenarios import directive

COMMAND_ENV = "IDEA_SMOKE_COMMAND"
COMMAND: list[str] = json.loads(os.environ.get(COMMAND_ENV, "[]"))
pytestmark = pytest.mark.skipif(not COMMAND, reason=f"{COMMAND_ENV} names no built IdeA")
IS_APPIMAGE = bool(COMMAND) and COMMAND[0].endswith(".AppImage")
THROUGH_FUSE = IS_APPIMAGE and os.environ.get("APPIMAGE_EXTRACT_AND_RUN", "0") in ("", "0")
# The user's own home, which the scenarios replace with one of their own: nothing grants the agents reading it.
REAL_HOME = Path.home()


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # noqa: ANN201
    monkeypatch.setattr(run_dir, "idea_command", lambda: list(COMMAND))
    # `<artifact> hook`, as a frozen IdeA declares it (a Python installation declares its interpreter on the
    # relay module instead: tests/integration/test_hook_relay.py), so that the artifact's relay is what runs.
    monkeypatch.setattr(run_dir, "hook_relay_command", lambda: [*COMMAND, "hook"])
    monkeypatch.setattr(enforcer, "idea_command", lambda: list(COMMAND))  # agents start through its sandbox-exec
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
    assert bridges_started_from_the_artifact(scenario), "no bridge process runs"

    scenario.submit_human("Main", directive("ask QA reply pong-from-the-artifact"))

    results = eventually(lambda: scenario.tool_results("Main"), "Main's ask to return", timeout=60)
    assert results[0] == ("pong-from-the-artifact", False)  # QA's idea_reply, through both bridges
    # QA's CLI posted its turn (UserPromptSubmit) to the project's hook door.
    qa = scenario.id_of("QA")
    eventually(lambda: scenario.beacons(f"[hook] claude UserPromptSubmit agent={qa}"), "QA's turn posted", timeout=30)
    # The artifact's hook relay, as Codex runs it for its notifications, reaches the core too.
    declared = scenario.mcp_declaration("QA")
    args = declared["args"]
    relay = [*COMMAND, "hook", "--source", "codex", "--endpoint", args[args.index("--endpoint") + 1]]
    relay += ["--project", args[args.index("--project") + 1], "--agent", qa, json.dumps({"type": "smoke-check"})]
    finished = subprocess.run(
        relay, env={**os.environ, **declared["env"]}, capture_output=True, timeout=60, check=False
    )
    assert (finished.returncode, finished.stdout) == (0, b""), finished.stderr.decode(errors="replace")
    eventually(lambda: scenario.beacons(f"[hook] codex smoke-check agent={qa}"), "the relayed event", timeout=30)


def agent_cli(scenario: Scenario, name: str) -> psutil.Process:
    """The agent's CLI process: its terminal's child, or below it when the artifact's runtime stays as the parent
    (a mount of its own, an extracted copy)."""
    top = psutil.Process(scenario.pid(name))
    for process in (top, *top.children(recursive=True)):
        if "sandbox-exec" not in process.cmdline() and any("fake_agent_cli" in arg for arg in process.cmdline()):
            return process
    raise AssertionError(f"no CLI process under {top.cmdline()}")


@pytest.fixture
def idea_mount(world: ScenarioFactory, monkeypatch: pytest.MonkeyPatch) -> Iterator[str | None]:
    """For an AppImage through FUSE: the image mounted, and named in IDEA_LIVE_APPDIR, as IdeA running from
    it has it (its runtime mounts the image; IdeA names that mount for the processes it starts), and the
    sandbox plans granting what that IdeA grants. The mount point is made in a folder no other grant covers
    (not a temporary folder, not the agents' home), so that only the grant of IdeA's mount lets them in."""
    if not THROUGH_FUSE:
        yield None
        return
    mounts = tempfile.mkdtemp(prefix=".idea-test-mounts-", dir=REAL_HOME)
    env = {**os.environ, "TMPDIR": mounts}
    mounter = subprocess.Popen([*COMMAND, "--appimage-mount"], stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert mounter.stdout is not None
        point = mounter.stdout.readline().strip()
        assert point.startswith(mounts + "/"), "the AppImage did not mount"
        monkeypatch.setenv(LIVE_APPDIR_ENV, point)
        running = Installation(Kind.APPIMAGE, (COMMAND[0],), COMMAND[0], point)
        monkeypatch.setattr(enforcer, "detect", lambda environ=None: running)
        yield point
    finally:
        mounter.send_signal(signal.SIGTERM)
        mounter.wait(timeout=30)
        os.rmdir(mounts)


def test_reviewers_in_a_landlock_sandbox_ask_through_the_built_bridge(
    world: ScenarioFactory, idea_mount: str | None
) -> None:
    if abi_version()[0] < 1:
        pytest.skip("no Landlock on this kernel: nothing would sandbox the agents")
    store = JsonPermissionStore()
    project = str(world.project_dir)
    # A read deny restricts what the operating system lets the agents read to what the plan grants.
    reviewer = preset("reviewer").permissions
    secrets = PermissionRule(Capability.READ, Effect.DENY, ("secrets/**",))
    permissions = replace(reviewer, rules=(*reviewer.rules, secrets))
    store.save(project, store.read(project).document.with_project_defaults(permissions))
    # The first start of an extract-and-run image extracts it (seconds): done here, not in a bridge's start.
    assert subprocess.run([*COMMAND, "--version"], capture_output=True, timeout=300).returncode == 0

    scenario = world.open(requester="fake", warm=("QA",), cold=())

    for name in ("Main", "QA"):
        agent = agent_cli(scenario, name)
        env = agent.environ()
        assert env.get("IDEA_SANDBOX_STATUS") == "enforced", f"{name} is not sandboxed: {agent.cmdline()}"
        packaging = ("APPDIR", "APPIMAGE")
        leaked = sorted(key for key in env if key.startswith(("_PYI_", "PYINSTALLER_")) or key in packaging)
        assert leaked == [], f"{name}'s CLI got the wrapper's packaging variables"
        assert env.get(LIVE_APPDIR_ENV) == idea_mount  # passed on, or absent
    bridges = [p for p in processes_with_home(scenario.home) if "mcp-server" in p.cmdline()]
    assert bridges, "no bridge process runs"
    if idea_mount is not None:
        # Inside the sandbox no mount is possible: each bridge runs from IdeA's own mount, and no runtime of
        # the image stays behind it (it became AppRun).
        assert [p.exe() for p in bridges if not p.exe().startswith(idea_mount + "/")] == []
    elif IS_APPIMAGE:
        frozen = [p.exe() for p in bridges if p.exe() != str(Path(COMMAND[0]).resolve())]
        assert frozen and all("/idea-appimage/" in exe for exe in frozen), frozen  # the extraction cache

    scenario.submit_human("Main", directive("ask QA reply pong-from-the-sandbox"))

    results = eventually(lambda: scenario.tool_results("Main"), "Main's ask to return", timeout=60)
    assert results[0] == ("pong-from-the-sandbox", False)
    qa = scenario.id_of("QA")
    eventually(lambda: scenario.beacons(f"[hook] claude UserPromptSubmit agent={qa}"), "QA's turn relayed", timeout=30)
