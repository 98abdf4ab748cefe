"""Gemini CLI started as IdeA starts an agent reaches the project with its own file tools.

Its file tools refuse any path outside its workspace, which is its working directory, the agent's run dir:
without the project added (`--include-directories`) a Gemini agent could edit nothing of the project and
could not write its file-protocol requests (`.ideai/requests/<agentId>/in/`). A stand-in for the Gemini API
has "the model" call the CLI's `write_file` there: once as `gemini -p` in a prepared run dir, once in a cell
of the real GUI, where Gemini asks the person about the added folder and about the edit, its lifecycle hooks
tell IdeA the turn and the edit waiting, and the agent started again resumes its session with the project
still in reach.
"""

from __future__ import annotations

import json
import os
import subprocess
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import psutil
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

from idea.application.agents.placement_rules import InCell
from idea.domain.agent_states.attention import AttentionReason
from idea.domain.orchestration.commands import Human, Source, SubmitHumanInput
from idea.infrastructure.fs import atomic_write_json
from tests.fakes_gateway import MAIN
from tests.realcli.fake_model import FakeGeminiApi, ModelAnswer
from tests.realcli.run_dirs import prepared_run_dir, reference_profile
from tests.realcli.support import START_TIMEOUT_MS, LaunchedAgent, launch_agent, through_client
from tests.ui.gui_support import Gui, new_project

pytestmark = pytest.mark.realcli

DIRECTIVE = "Ask IdeA for the list of agents."
TRUST_QUESTION = "Do you trust the files in this folder?"
FOLDERS_QUESTION = "Do you trust the following folders being added to this workspace?"
EDIT_QUESTION = "Apply this change?"
READY = "Type your message"
SESSION_EXISTS = "already exists"


@pytest.fixture
def gemini_api() -> Iterator[FakeGeminiApi]:
    api = FakeGeminiApi()
    api.serve()
    yield api
    api.close()


def test_gemini_writes_a_file_protocol_request_into_the_project_with_its_own_file_tool(
    tmp_path: Path, cli_home: Path, require_cli: Callable[[str], str], gemini_api: FakeGeminiApi
) -> None:
    gemini = require_cli("gemini")
    prepared = prepared_run_dir(tmp_path, reference_profile("Gemini CLI"))
    request = tmp_path / "shop" / ".ideai" / "requests" / MAIN / "in" / f"{uuid.uuid4()}.json"
    content = json.dumps({"type": "agent.list"})
    write = ("write_file", {"file_path": str(request), "content": content})
    gemini_api.answer = ModelAnswer(directive=DIRECTIVE, tool=write)
    atomic_write_json(cli_home / ".gemini" / "settings.json", FakeGeminiApi.gemini_settings)
    env = {**os.environ, "GEMINI_API_KEY": "not-a-key", "GOOGLE_GEMINI_BASE_URL": gemini_api.origin}
    # Non-interactive, with edits approved: what is checked is where its tools may write, not who approves.
    command = [gemini, *prepared.extra_args, "--approval-mode", "auto_edit", "-p", DIRECTIVE]
    finished = subprocess.run(
        command, cwd=prepared.cwd, env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert gemini_api.tool_outputs, (finished.returncode, finished.stdout[-2000:], finished.stderr[-2000:])
    assert "workspace" not in " ".join(gemini_api.tool_outputs), gemini_api.tool_outputs
    assert request.read_text(encoding="utf-8") == content


@pytest.fixture
def gemini_user(cli_home: Path, gemini_api: FakeGeminiApi, monkeypatch: pytest.MonkeyPatch) -> FakeGeminiApi:
    """A person signed in to Gemini CLI with an API key, whose model is the stand-in."""
    monkeypatch.setenv("GEMINI_API_KEY", "not-a-key")
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", gemini_api.origin)
    atomic_write_json(cli_home / ".gemini" / "settings.json", FakeGeminiApi.gemini_settings)
    return gemini_api


def test_a_gemini_agent_in_a_cell_edits_the_project_and_keeps_it_when_started_again(
    require_cli: Callable[[str], str],
    agent_gui: Gui,
    cli_home: Path,
    tmp_path: Path,
    screenshots: Path,
    gemini_user: FakeGeminiApi,
) -> None:
    require_cli("gemini")
    agent_gui.session.app.preferences.update_settings(trust_run_dirs_automatically=True)
    project = new_project(tmp_path)
    target = project / "notes" / "plan.md"  # in the project, outside the agent's run dir
    gemini_user.answer = ModelAnswer(
        directive=DIRECTIVE, tool=("write_file", {"file_path": str(target), "content": "1. parser\n"})
    )

    agent = launch_agent(agent_gui, project, "gemini", "Scout")
    # The run dir trusted beforehand, Gemini asks about the project alone; IdeA tells the person.
    agent.wait_for_screen(FOLDERS_QUESTION)
    agent.wait_for_attention(AttentionReason.TRUST)
    agent.screenshot(screenshots / "gemini-added-folders.png")
    agent.press(Qt.Key.Key_Down)
    agent.press(Qt.Key.Key_Return)  # "Yes, and remember the directories as trusted"
    agent.wait_for_screen(READY)
    edit(agent_gui, agent, target)
    # Delivered once its prompt was drawn, not after the profile's cold-start limit.
    assert "[cold-start] released agent=Scout by=prompt" in log(agent_gui), log(agent_gui)[-3000:]
    # Its lifecycle hooks told IdeA the turn's start, the edit waiting for the person, and the turn's end.
    agent_gui.wait(lambda: "[turn] ended agent=Scout" in log(agent_gui), timeout=30_000)
    hooks = [line.split()[3] for line in log(agent_gui).splitlines() if " [hook] gemini " in line]
    assert hooks[:4] == ["SessionStart", "UserPromptSubmit", "Notification", "Stop"], hooks
    assert "[attention] raised agent=Scout reason=permission origin=hook" in log(agent_gui)
    assert "workspace" not in " ".join(gemini_user.tool_outputs), gemini_user.tool_outputs
    folders = json.loads((cli_home / ".gemini" / "trustedFolders.json").read_text(encoding="utf-8"))
    assert folders == {str(agent.run_dir): "TRUST_FOLDER", str(project.resolve()): "TRUST_FOLDER"}

    # Started again, it resumes the session IdeA gave it, with the project in reach and nothing to ask.
    started_again_resumes(agent_gui, agent, target, gemini_user)


def test_a_gemini_agent_that_asks_to_trust_its_run_dir_has_the_project_and_resumes_the_session_it_picked(
    require_cli: Callable[[str], str], agent_gui: Gui, tmp_path: Path, gemini_user: FakeGeminiApi
) -> None:
    """Run folders not trusted automatically: Gemini asks, adds the project, then restarts to apply the trust.
    The start gave it no session id (it would refuse its own as existing after that restart): its hooks tell
    IdeA the one it took."""
    require_cli("gemini")
    project = new_project(tmp_path)
    target = project / "notes" / "plan.md"
    gemini_user.answer = ModelAnswer(
        directive=DIRECTIVE, tool=("write_file", {"file_path": str(target), "content": "1. parser\n"})
    )

    agent = launch_agent(agent_gui, project, "gemini", "Scout")
    agent.wait_for_screen(TRUST_QUESTION)
    agent.wait_for_attention(AttentionReason.TRUST)
    agent.press(Qt.Key.Key_Return)  # trust the folder: Gemini asks about the project, then restarts
    agent.wait_for_screen(FOLDERS_QUESTION)
    first = gemini_children(agent)
    agent.press(Qt.Key.Key_Down)
    agent.press(Qt.Key.Key_Return)  # "Yes, and remember": the restarted CLI does not ask again
    # The restart (Gemini's launcher starts its CLI process anew) after the folders were added.
    agent_gui.wait(lambda: bool(gemini_children(agent)) and not gemini_children(agent) & first, START_TIMEOUT_MS)
    agent.wait_for_screen(READY)
    edit(agent_gui, agent, target)
    assert SESSION_EXISTS not in agent.screen()

    started_again_resumes(agent_gui, agent, target, gemini_user)


def gemini_children(agent: LaunchedAgent) -> set[int]:
    """The CLI processes Gemini's launcher runs (one at a time; a restart starts another)."""
    session = agent.session()
    if session is None or session.pid is None:
        return set()
    try:
        return {child.pid for child in psutil.Process(session.pid).children() if child.name() == "node"}
    except psutil.Error:
        return set()


def edit(gui: Gui, agent: LaunchedAgent, target: Path) -> None:
    """The person's directive, after which "the model" writes `target` and Gemini asks to apply it; allowed."""
    submit(gui, agent, DIRECTIVE)
    agent.wait_for_screen(EDIT_QUESTION)
    agent.wait_for_attention(AttentionReason.PERMISSION)
    answer(gui, agent, Qt.Key.Key_Return)  # allow once
    gui.wait(lambda: written(target) == "1. parser\n", timeout=30_000)


def started_again_resumes(gui: Gui, agent: LaunchedAgent, target: Path, api: FakeGeminiApi) -> None:
    """Stopped and started again, the agent resumes its session (the model is sent the first edit), with the
    project in reach and nothing to ask."""
    agent.stop()
    requests = len(api.requests)
    again = relaunch(gui, agent)
    again.wait_for_screen(READY)
    target.unlink()
    edit(gui, again, target)
    assert SESSION_EXISTS not in again.screen() and FOLDERS_QUESTION not in again.screen()
    resumed = api.requests[requests:]
    assert any("1. parser" in json.dumps(request) for request in resumed), "the first session was not resumed"
    session = again.session()
    assert session is not None and session.pid is not None
    assert "--resume" in psutil.Process(session.pid).cmdline(), "not started by its session id"
    again.stop()


def submit(gui: Gui, agent: LaunchedAgent, text: str) -> None:
    """`text` given to the agent as the person's prompt, as IdeA delivers it (its profile's submit delay)."""
    command = SubmitHumanInput(agent.entry.name, text)
    through_client(gui, agent.runtime.orchestrator.dispatch(Human(), command, Source.UI), timeout=60_000)


def log(gui: Gui) -> str:
    """IdeA's diagnostics log."""
    return (gui.session.app.data_dir / "logs" / "idea.log").read_text(encoding="utf-8")


def written(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None


def answer(gui: Gui, agent: LaunchedAgent, key: Qt.Key) -> None:
    """`key` pressed once IdeA has given the keyboard back after its delivery (its overlay gone), as the
    person does."""
    view = agent.cell.view
    assert view is not None
    overlay = view.findChild(QLabel, "AgentTypingOverlay")
    gui.wait(lambda: overlay is None or overlay.isHidden())
    agent.press(key)


def relaunch(gui: Gui, agent: LaunchedAgent) -> LaunchedAgent:
    """The stopped agent launched again in its cell, as the Agents panel's Launch does."""
    through_client(gui, agent.runtime.placement.launch(agent.entry.agent_id, InCell(agent.leaf_id)))
    return LaunchedAgent(gui, agent.tab, agent.leaf_id, entry=agent.entry).follow()
