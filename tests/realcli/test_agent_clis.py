"""The real agent CLIs, run as IdeA agents in a cell of the real GUI, as a user would run them.

Offline and without credentials each CLI still draws its start screen: Gemini its folder-trust dialog, Codex
its sign-in menu, Claude its logo and a connection error (after which it exits). These screens are what the
tests read; every process a CLI starts must end with the agent (docs/agent-clis.md).
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import psutil
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from pytestqt.exceptions import TimeoutError as WaitTimeout

from idea.domain import layout as lay
from idea.domain.agent_states.attention import AttentionReason
from idea.domain.session import SessionState
from tests.realcli.support import (
    START_TIMEOUT_MS,
    LaunchedAgent,
    assert_processes_end,
    describe,
    launch_agent,
    process_tree,
    processes_with_home,
)
from tests.ui.gui_support import Gui, new_project

pytestmark = pytest.mark.realcli

GEMINI_TRUST_QUESTION = "Do you trust the files in this folder?"
GEMINI_FOLDERS_QUESTION = "Do you trust the following folders being added to this workspace?"
GEMINI_SIGN_IN = "How would you like to authenticate"
CODEX_SIGN_IN = "Sign in with ChatGPT"
CLAUDE_LOGO = "Welcome to Claude Code"
# What Claude shows when it can reach its servers without credentials: it stays open on one of these.
CLAUDE_INTERACTIVE_SCREENS = ("Choose the text style", "Select login method", "Quick safety check", "Yes, I trust")
ENDED_TIMEOUT_MS = 15_000
# A stop returns once every process it signalled is gone; this only covers the reaping of zombies.
AFTER_STOP_MS = 2_000


def selected_option(screen: str, marker: str) -> str:
    """The menu line that carries the selection marker (box-drawing borders removed)."""
    for line in screen.splitlines():
        text = line.strip(" │")
        if text.startswith(marker):
            return text[len(marker) :].strip()
    return ""


def assert_agent_running(agent: LaunchedAgent) -> psutil.Process:
    session = agent.session()
    assert session is not None, "the registry has no live session for the agent"
    assert session.state is SessionState.RUNNING and session.pid, session
    assert session.agent_id == agent.entry.agent_id and session.cwd == str(agent.run_dir)
    return psutil.Process(session.pid)


def stop_and_assert_nothing_survives(agent: LaunchedAgent, home: Path, started: list[psutil.Process]) -> None:
    """Stop the agent as the Agents panel does; then no process it started, nor any process run with the
    test's HOME, may remain."""
    agent.stop()
    assert agent.session() is None
    assert_processes_end(agent.gui, started, home, AFTER_STOP_MS, "the stop")


def test_gemini_shows_its_trust_dialog_takes_arrow_keys_and_stops_cleanly(
    require_cli, agent_gui: Gui, cli_home: Path, tmp_path: Path, screenshots: Path
) -> None:
    require_cli("gemini")
    agent = launch_agent(agent_gui, new_project(tmp_path), "gemini", "Scout")
    assert (agent.run_dir / "GEMINI.md").is_file()
    assert "You check that IdeA runs this CLI." in (agent.run_dir / "GEMINI.md").read_text()

    agent.wait_for_screen(GEMINI_TRUST_QUESTION)
    process = assert_agent_running(agent)
    assert process.environ().get("HOME") == str(cli_home)
    agent.wait_for_screen("Don't trust")  # the whole dialog is drawn
    agent.screenshot(screenshots / "gemini-trust-dialog.png")
    shown = agent.screen()
    assert GEMINI_TRUST_QUESTION in shown, f"the dialog went away before the capture:\n{shown}"
    assert selected_option(shown, "●").startswith("1."), f"no option selected on the dialog:\n{shown}"

    agent.press(Qt.Key.Key_Down)  # the display turns it into ESC [ B (ESC O B in application cursor mode)
    try:
        agent_gui.wait(lambda: selected_option(agent.screen(), "●").startswith("2."), timeout=START_TIMEOUT_MS)
    except WaitTimeout as exc:
        raise AssertionError(f"Down did not move the selection; the screen is:\n{agent.screen()}") from exc
    assert GEMINI_TRUST_QUESTION in agent.screen()
    assert agent.session() is not None and agent.session().state is SessionState.RUNNING
    # The reference profile's blocking-prompt literals match what this version draws: IdeA tells the person.
    agent.wait_for_attention(AttentionReason.TRUST)

    agent.press(Qt.Key.Key_Up)
    agent_gui.wait(lambda: selected_option(agent.screen(), "●").startswith("1."), timeout=START_TIMEOUT_MS)
    agent.press(Qt.Key.Key_Return)  # trust the folder: Gemini asks about the project IdeA adds to its workspace
    agent.wait_for_screen(GEMINI_FOLDERS_QUESTION)
    agent.wait_for_attention(AttentionReason.TRUST)
    agent.press(Qt.Key.Key_Down)
    agent.press(Qt.Key.Key_Return)  # "Yes, and remember": restarted, without credentials, it asks to sign in
    agent.wait_for_screen(GEMINI_SIGN_IN)
    agent.wait_for_attention(AttentionReason.SIGN_IN)
    agent.screenshot(screenshots / "gemini-sign-in.png")

    started = process_tree(process.pid)
    stop_and_assert_nothing_survives(agent, cli_home, started)


def test_codex_shows_its_sign_in_menu_and_its_daemon_ends_with_it(
    require_cli, agent_gui: Gui, cli_home: Path, tmp_path: Path, screenshots: Path
) -> None:
    require_cli("codex")
    assert not (cli_home / ".codex" / "auth.json").exists()  # no credentials: the sign-in menu is due
    agent = launch_agent(agent_gui, new_project(tmp_path), "codex", "Builder")
    assert (agent.run_dir / "AGENTS.md").is_file()
    config = tomllib.loads((agent.run_dir / ".codex" / "config.toml").read_text())
    idea_server = config["mcp_servers"]["idea"]
    assert idea_server["command"] and isinstance(idea_server["args"], list)
    assert "transport" not in idea_server  # refused by Codex under --strict-config

    agent.wait_for_screen(CODEX_SIGN_IN)
    agent.wait_for_screen("Press enter to continue")
    agent.wait_for_attention(AttentionReason.SIGN_IN)
    process = assert_agent_running(agent)
    environment = process.environ()
    assert environment.get("HOME") == str(cli_home)
    assert environment.get("CODEX_HOME") == str(agent.run_dir / ".codex")
    agent.screenshot(screenshots / "codex-sign-in.png")
    shown = agent.screen()
    assert selected_option(shown, ">").startswith("1. Sign in with ChatGPT"), shown

    agent.press(Qt.Key.Key_Down)
    try:
        agent_gui.wait(lambda: selected_option(agent.screen(), ">").startswith("2."), timeout=START_TIMEOUT_MS)
    except WaitTimeout as exc:
        raise AssertionError(f"Down did not move the selection; the screen is:\n{agent.screen()}") from exc

    # Codex starts a shared background server; it must not outlive the agent.
    def daemons() -> list[psutil.Process]:
        found = []
        for candidate in processes_with_home(cli_home):
            try:
                if "app-server" in candidate.cmdline():
                    found.append(candidate)
            except psutil.Error:
                continue
        return found

    try:
        agent_gui.wait(lambda: bool(daemons()), timeout=START_TIMEOUT_MS)
    except WaitTimeout as exc:
        raise AssertionError(
            f"Codex started no app-server daemon; running: {describe(processes_with_home(cli_home))}"
        ) from exc
    started = process_tree(process.pid) + daemons()
    stop_and_assert_nothing_survives(agent, cli_home, started)


def test_claude_draws_its_logo_and_its_exit_is_shown_by_the_cell(
    require_cli, agent_gui: Gui, cli_home: Path, tmp_path: Path, screenshots: Path
) -> None:
    require_cli("claude")
    agent = launch_agent(agent_gui, new_project(tmp_path), "claude", "Reviewer")
    assert (agent.run_dir / "CLAUDE.md").is_file()
    assert "idea" in (agent.run_dir / ".mcp.json").read_text()
    assert (agent.run_dir / ".claude" / "settings.local.json").is_file()

    agent.wait_for_screen(CLAUDE_LOGO)
    runtime = agent.runtime
    session_id = lay.find_leaf(runtime.active.root, agent.leaf_id).session
    assert session_id is not None
    pid = runtime.sessions.info(session_id).pid
    agent.screenshot(screenshots / "claude-start.png")
    assert CLAUDE_LOGO in agent.screen()

    def settled() -> bool:
        screen = agent.screen()
        ended = not runtime.sessions.info(session_id).is_live
        return ended or any(marker in screen for marker in CLAUDE_INTERACTIVE_SCREENS)

    try:
        agent_gui.wait(settled, timeout=START_TIMEOUT_MS)
    except WaitTimeout as exc:
        raise AssertionError(f"Claude neither exited nor opened a screen; the screen is:\n{agent.screen()}") from exc

    info = runtime.sessions.info(session_id)
    if info.is_live:  # Claude reached its servers: it waits for the user, as it should
        started = process_tree(pid)
        stop_and_assert_nothing_survives(agent, cli_home, started)
        return

    # Offline Claude exits: the cell keeps its last screen and says how the program ended.
    assert info.state is SessionState.EXITED and info.exit_code is not None, info
    agent_gui.wait(lambda: agent.banner_text() is not None, timeout=ENDED_TIMEOUT_MS)
    assert agent.banner_text() == info.describe_end() == f"Reviewer exited with code {info.exit_code}"
    assert agent.cell.view is not None and CLAUDE_LOGO in agent.screen()
    assert agent.cell.header.state_dot.toolTip() == info.describe_end()
    agent.screenshot(screenshots / "claude-exited.png")
    # Nothing else is disturbed: no error dialog, the cell still pins the agent (Restart), nothing to resume.
    assert QApplication.activeModalWidget() is None, "an error dialog opened"
    assert agent_gui.windows[0].isVisible() and agent.tab.isVisible()
    assert lay.find_leaf(runtime.active.root, agent.leaf_id).agent == agent.entry.agent_id
    assert agent.session() is None
    agent_gui.wait(lambda: not runtime.runner.resumable(), timeout=ENDED_TIMEOUT_MS)
    assert not processes_with_home(cli_home), describe(processes_with_home(cli_home))
