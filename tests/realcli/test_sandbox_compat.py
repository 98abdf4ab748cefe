"""Spec 06 §11: the real agent CLIs still start under the Reviewer preset's sandbox plan.

Each CLI is launched as an IdeA agent in a cell of the real GUI with `.ideai/permissions.json` set to the
Reviewer preset, so the launch wraps it in `idea sandbox-exec` with Landlock. The test's HOME lies outside the
temporary folders the plan grants, so the CLIs' state folders are reached only through the plan's own grants
(`~/.claude`, `~/.claude.json`, `~/.codex`, `~/.gemini`, `~/.cache`, ...), as on a user's machine.
"""

from __future__ import annotations

import json
import shutil
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import psutil
import pytest
from pytestqt.exceptions import TimeoutError as WaitTimeout

from idea.domain.permissions.document import permissions_to_json
from idea.domain.permissions.model import ProjectPermissions
from idea.domain.permissions.view import preset
from idea.domain.permissions.sandbox import EnforcementLevel
from tests.realcli.conftest import CI_VARIABLES, CREDENTIAL_VARIABLES
from tests.realcli.support import START_TIMEOUT_MS, LaunchedAgent, alive, describe, launch_agent, process_tree
from tests.realcli.support import end_processes, processes_with_home
from tests.ui.gui_support import Gui

pytestmark = pytest.mark.realcli

OUTSIDE_TMP = Path(__file__).resolve().parents[2] / ".test-homes"
STARTS = {
    "claude": "Welcome to Claude Code",
    "codex": "Sign in with ChatGPT",
    "gemini": "Do you trust the files in this folder?",
}


@pytest.fixture
def fenced_home(quiet_home: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:  # noqa: ARG001
    """A HOME outside every folder the plan grants as temporary; removed (and its processes ended) after."""
    home = OUTSIDE_TMP / uuid.uuid4().hex[:12]
    home.mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CODEX_HOME", raising=False)
    for variable in ("XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME",
                     *CREDENTIAL_VARIABLES, *CI_VARIABLES):
        monkeypatch.delenv(variable, raising=False)
    try:
        yield home
    finally:
        end_processes(processes_with_home(home))
        shutil.rmtree(home, ignore_errors=True)
        if OUTSIDE_TMP.exists() and not any(OUTSIDE_TMP.iterdir()):
            OUTSIDE_TMP.rmdir()


@pytest.fixture
def reviewer_gui(fenced_home: Path, gui_factory: Callable[[], Gui]) -> Gui:
    from idea.domain.workspace import NewCellContent

    gui = gui_factory()
    gui.session.app.preferences.update_settings(new_cell_content=NewCellContent.EMPTY)
    return gui


def reviewer_project(tmp_path: Path, home: Path) -> Path:
    project = home / "projects" / f"review-{uuid.uuid4().hex[:6]}"  # outside the temporary folders too
    (project / ".ideai").mkdir(parents=True)
    document = ProjectPermissions().with_project_defaults(preset("reviewer").permissions)
    (project / ".ideai" / "permissions.json").write_text(json.dumps(permissions_to_json(document)), encoding="utf-8")
    return project


def sandbox_status(agent: LaunchedAgent, gui: Gui) -> str:
    """What `idea sandbox-exec` told the CLI it runs under (it sets IDEA_SANDBOX_STATUS before exec)."""
    session = agent.session()
    assert session is not None and session.pid is not None, "the CLI is not running"
    process = psutil.Process(session.pid)
    seen: list[str] = []

    def told() -> bool:
        # The value is kept from the read that found it: a second read can fall within the next exec of the
        # same process (`#!/usr/bin/env node` is two), when its environment reads empty for a moment.
        try:
            status = process.environ().get("IDEA_SANDBOX_STATUS")
        except psutil.Error:  # gone, or a zombie: said below
            return False
        if status is not None:
            seen.append(status)
        return status is not None

    try:
        gui.wait(told, timeout=START_TIMEOUT_MS)
    except WaitTimeout:
        try:
            state = f"{process.status()}, {' '.join(process.cmdline())[:200]!r}"
        except psutil.Error as exc:
            state = repr(exc)
        pytest.fail(f"pid {session.pid} never ran under `idea sandbox-exec` ({state}); its screen:\n{agent.screen()}")
    return seen[-1]


@pytest.mark.parametrize("cli", ["claude", "codex", "gemini"])
def test_the_cli_starts_under_the_reviewer_sandbox(
    cli: str, require_cli, reviewer_gui: Gui, fenced_home: Path, tmp_path: Path, screenshots: Path
) -> None:
    require_cli(cli)
    system = reviewer_gui.session.app.permissions.system_status()
    agent = launch_agent(reviewer_gui, reviewer_project(tmp_path, fenced_home), cli, "Reviewer")
    plan = json.loads((agent.run_dir / "sandbox-plan.json").read_text(encoding="utf-8"))
    assert plan["handled"] == {"ro": False, "rw": True}
    assert str(agent.runtime.root) not in {grant["path"] for grant in plan["grants"] if "rw" in grant["access"]}
    assert sandbox_status(agent, reviewer_gui) == system.level.value
    print(f"\n{cli} under the Reviewer plan: Landlock {system.label()} ({system.detail})")

    try:
        agent.wait_for_screen(STARTS[cli])
    except AssertionError as exc:
        raise AssertionError(f"{cli} did not start under the sandbox: {exc}") from exc
    agent.screenshot(screenshots / f"{cli}-reviewer-sandbox.png")
    if system.level is EnforcementLevel.ENFORCED:
        # Nothing the CLI did at start wrote the project (IdeA itself keeps .ideai/ and its .gitignore block).
        root = Path(agent.runtime.root)
        written = [p for p in root.rglob("*") if ".ideai" not in p.parts and p != root / ".gitignore"]
        assert written == [], written
    if cli == "claude":
        # Offline, Claude exits after its logo; online it waits on a screen. Either way, let it settle first.
        settle = ("Choose the text style", "Select login method", "Quick safety check", "Yes, I trust")
        reviewer_gui.wait(lambda: agent.session() is None or any(m in agent.screen() for m in settle),
                          timeout=START_TIMEOUT_MS)
        assert "cannot be used with root" not in agent.screen()
    session = agent.session()
    if session is not None:
        started = process_tree(session.pid)
        agent.stop()
        try:
            reviewer_gui.wait(lambda: not alive(started), timeout=5_000)
        except WaitTimeout as exc:
            raise AssertionError(f"processes survived the stop: {describe(alive(started))}") from exc
