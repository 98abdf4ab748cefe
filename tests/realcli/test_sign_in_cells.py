"""Sign in from a cell with the real CLI: what IdeA runs for an agent whose CLI has no credentials is the CLI's
own sign-in, shown beside the agent, and it ends with the cell."""

from __future__ import annotations

from pathlib import Path

from idea.application.agents.sign_in_cell import open_sign_in
from tests.realcli.support import (
    PERSONA,
    WatchedCell,
    assert_processes_end,
    enable_reference_profile,
    on_core,
    process_tree,
    through_client,
)
from tests.ui.gui_support import Gui, new_project

CLAUDE_CODE_PROMPT = "Paste code here if prompted"
ENDED_TIMEOUT_MS = 5_000


def test_claude_signs_in_in_a_cell_beside_its_agent(
    require_cli, agent_gui: Gui, cli_home: Path, tmp_path: Path, screenshots: Path
) -> None:
    require_cli("claude")
    profile_id = enable_reference_profile(agent_gui, "claude")
    project = new_project(tmp_path)
    agent_gui.restore([project])
    tab = agent_gui.tab(project)
    agent_gui.wait(lambda: len(agent_gui.leaves(tab)) == 1)
    runtime = tab.runtime
    entry = on_core(agent_gui, runtime.agents.create("Reviewer", profile_id, PERSONA))
    check = runtime.runner.sign_in_check(entry.agent_id)
    assert check is not None and not check.signed_in, "the test's HOME holds no Claude credentials"

    session_id = through_client(agent_gui, open_sign_in(runtime, runtime.runner, entry.agent_id))
    agent_gui.wait(lambda: any(leaf.session == session_id for leaf in agent_gui.leaves(tab)))
    [leaf] = [leaf for leaf in agent_gui.leaves(tab) if leaf.session == session_id]
    cell = WatchedCell(agent_gui, tab, leaf.id).follow()

    # Offline too, `claude auth login` shows where to sign in, then waits for the code.
    assert "oauth/authorize" in cell.wait_for_screen(CLAUDE_CODE_PROMPT).replace("\n", "")
    cell.screenshot(screenshots / "claude-sign-in.png")
    assert runtime.sessions.info(session_id).label == "sign in · Claude Code"
    assert runtime.runner.live(entry.agent_id) is None  # the agent waits for the person

    started = process_tree(runtime.sessions.info(session_id).pid)
    through_client(agent_gui, runtime.sessions.stop(session_id))
    assert_processes_end(agent_gui, started, cli_home, ENDED_TIMEOUT_MS, "the sign-in cell")
