"""The Agents panel on a real core: creating from a starter template, launching, stopping, attaching,
editing a persona, and what the panel shows at each step."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu, QMessageBox
from pytestqt.qtbot import QtBot

from idea.application.projects import ProjectRuntime
from idea.domain import layout as lay
from idea.domain.agent import AgentEntry
from idea.domain.events import LayoutChanged
from idea.domain.orchestration.commands import AgentCaller, Source, UpdateAgentContext
from idea.domain.profile import Profile
from idea.ui.agents.agents_panel import AgentsPanel
from idea.ui.widgets.list_row_delegate import ListRowDelegate
from tests.ui.agent_support import WAIT_MS, RecordingHost, BootstrappedApp, bootstrapped_app
from tests.ui.accessibility import unnamed_controls


@pytest.fixture
def world(qtbot: QtBot, tmp_path: Path) -> Iterator[BootstrappedApp]:
    yield from bootstrapped_app(qtbot, tmp_path)


@pytest.fixture
def setup(world: BootstrappedApp, qtbot: QtBot) -> Iterator[tuple[BootstrappedApp, ProjectRuntime, Profile, AgentsPanel, RecordingHost]]:
    profile = world.add_fake_profile()
    runtime = world.open_project()
    host = RecordingHost()
    panel = AgentsPanel(world.client, world.app.profiles, world.app.templates, host)
    qtbot.addWidget(panel)
    world.relay.published.connect(panel.on_event)
    panel.set_project(runtime)
    panel.show()
    yield world, runtime, profile, panel, host
    assert not panel.findChildren(QMessageBox), "an error was shown to the user"


def wait_for_row(qtbot: QtBot, panel: AgentsPanel, name: str, **expected: object) -> None:
    def matches() -> bool:
        row = next((r for r in panel.rows() if r.name == name), None)
        return row is not None and all(getattr(row, key) == value for key, value in expected.items())

    qtbot.waitUntil(matches, timeout=WAIT_MS)


def stopped_agent_beside_a_shell(
    setup: tuple[World, ProjectRuntime, Profile, AgentsPanel, RecordingHost], qtbot: QtBot
) -> tuple[lay.Leaf, AgentEntry]:
    """The project's only cell runs its shell; a stopped agent "Dev" is listed and selected."""
    world, runtime, profile, panel, _host = setup
    shell_cell = lay.leaves(runtime.active.root)[0]
    qtbot.waitUntil(lambda: shell_cell.session is not None and runtime.sessions.is_live(shell_cell.session))
    agent = world.create_agent(runtime, "Dev", profile)
    wait_for_row(qtbot, panel, "Dev", state_text="stopped")
    panel.select_agent(agent.agent_id)
    return shell_cell, agent


def test_an_agent_made_from_a_starter_template_is_listed_then_runs_in_the_background_and_stops(
    setup: tuple[BootstrappedApp, ProjectRuntime, Profile, AgentsPanel, RecordingHost], qtbot: QtBot
) -> None:
    world, runtime, profile, panel, _host = setup
    assert panel.team.currentIndex() == 1  # "No agents yet"

    dialog = panel.team_gestures.new_agent()
    assert dialog is not None
    qtbot.waitUntil(lambda: dialog.template_list.count() >= 5, timeout=WAIT_MS)
    dialog.select_template("Architect")
    assert dialog.name.text() == "Architect"
    assert dialog.profile.currentData() == profile.id  # the template's Claude default is not set up here
    dialog.keep_in_sync.setChecked(True)
    qtbot.mouseClick(dialog.ok, Qt.MouseButton.LeftButton)

    wait_for_row(qtbot, panel, "Architect", state_text="stopped", place_text="—", profile_name="Fake CLI")
    assert panel.team.currentIndex() == 2
    entry = runtime.agents.manifest().agents[0]
    assert entry.synchronized and entry.template_id is not None
    persona = (world.project_dir / ".ideai" / entry.md_path).read_text(encoding="utf-8")
    assert persona == world.app.templates.body(entry.template_id)
    row = panel.rows()[0]
    assert row.is_orchestrator  # the first agent orchestrates by default
    assert panel.selected_agent() == entry.agent_id
    assert not panel.agent_actions.stop_action.isEnabled() and panel.agent_actions.launch_background_action.isEnabled()

    panel.agent_actions.launch_background_action.trigger()
    wait_for_row(qtbot, panel, "Architect", state_text="running", place_text="background")
    assert panel.agent_actions.stop_action.isEnabled()
    actions = panel.agent_actions
    assert not actions.launch_background_action.isEnabled() and not actions.delete_action.isEnabled()
    assert not panel.agent_actions.focus_action.isEnabled()

    panel.agent_actions.stop_action.trigger()
    wait_for_row(qtbot, panel, "Architect", state_text="stopped", place_text="—")
    assert runtime.runner.live(entry.agent_id) is None
    assert not panel.agent_actions.stop_action.isEnabled()


def test_launch_here_replaces_the_idle_shell_of_the_active_cell_and_focuses_the_agent(
    setup: tuple[BootstrappedApp, ProjectRuntime, Profile, AgentsPanel, RecordingHost], qtbot: QtBot
) -> None:
    world, runtime, profile, panel, host = setup
    shell_cell, agent = stopped_agent_beside_a_shell(setup, qtbot)
    assert not panel.agent_actions.launch_here_action.isEnabled()  # no active cell yet
    host.leaf = shell_cell.id
    panel.active_cell_changed()
    assert panel.agent_actions.launch_here_action.isEnabled()

    panel.agent_actions.launch_here_action.trigger()
    wait_for_row(qtbot, panel, "Dev", state_text="running", place_text="cell 1")
    live = runtime.runner.live(agent.agent_id)
    assert live is not None and live.node_id == shell_cell.id
    assert not runtime.sessions.is_live(shell_cell.session)
    qtbot.waitUntil(lambda: host.focused == [live.session_id], timeout=WAIT_MS)
    assert panel.agent_actions.focus_action.isEnabled() and panel.agent_actions.background_action.isEnabled()

    panel.agent_actions.background_action.trigger()
    wait_for_row(qtbot, panel, "Dev", state_text="running", place_text="background")
    assert panel.agent_actions.attach_action.isEnabled()  # the cell it left is empty now
    panel.agent_actions.attach_action.trigger()
    wait_for_row(qtbot, panel, "Dev", state_text="running", place_text="cell 1")
    assert runtime.runner.live(agent.agent_id).session_id == live.session_id  # same process


def test_each_gesture_of_the_panel_is_one_saved_change_of_the_layouts(
    setup: tuple[World, ProjectRuntime, Profile, AgentsPanel, RecordingHost], qtbot: QtBot
) -> None:
    world, runtime, profile, panel, host = setup
    shell_cell, agent = stopped_agent_beside_a_shell(setup, qtbot)
    host.leaf = shell_cell.id
    panel.active_cell_changed()
    saved: list[LayoutChanged] = []
    world.relay.published.connect(lambda event: saved.append(event) if isinstance(event, LayoutChanged) else None)

    def gesture(action: QAction, **row: object) -> int:
        before = len(saved)
        action.trigger()
        wait_for_row(qtbot, panel, "Dev", **row)
        world.sync(lambda: None)  # follow-up work on the core has run and published
        QCoreApplication.processEvents()  # and its events reached the GUI thread
        return len(saved) - before

    assert gesture(panel.agent_actions.launch_here_action, state_text="running", place_text="cell 1") == 1
    assert gesture(panel.agent_actions.background_action, place_text="background") == 1
    assert gesture(panel.agent_actions.attach_action, place_text="cell 1") == 1
    assert gesture(panel.agent_actions.stop_action, state_text="stopped") == 1
    assert gesture(panel.agent_actions.launch_split_action, state_text="running", place_text="cell 2") == 1


def test_a_persona_edit_reaches_the_file_and_says_a_running_agent_needs_a_restart(
    setup: tuple[BootstrappedApp, ProjectRuntime, Profile, AgentsPanel, RecordingHost], qtbot: QtBot
) -> None:
    world, runtime, profile, panel, _host = setup
    agent = world.create_agent(runtime, "Writer", profile, persona="# Writer\n\nWrites docs.\n")
    wait_for_row(qtbot, panel, "Writer")
    panel.select_agent(agent.agent_id)
    panel.agent_actions.launch_background_action.trigger()
    wait_for_row(qtbot, panel, "Writer", state_text="running")

    panel.agent_actions.persona_action.trigger()
    qtbot.waitUntil(lambda: agent.agent_id in panel.team_gestures.persona_editors, timeout=WAIT_MS)
    editor = panel.team_gestures.persona_editors[agent.agent_id]
    assert editor.editor.text() == "# Writer\n\nWrites docs.\n"
    assert editor.notice.isVisible() and "restart" in editor.notice.text()
    assert not editor.save_button.isEnabled()
    assert unnamed_controls(editor) == []
    editor.editor.source.setPlainText("# Writer\n\nWrites the user guide.\n")
    qtbot.waitUntil(lambda: "user guide" in editor.editor.preview.toPlainText(), timeout=WAIT_MS)
    qtbot.mouseClick(editor.save_button, Qt.MouseButton.LeftButton)

    persona_file = world.project_dir / ".ideai" / agent.md_path
    qtbot.waitUntil(lambda: "user guide" in persona_file.read_text(encoding="utf-8"), timeout=WAIT_MS)
    qtbot.waitUntil(lambda: not editor.is_modified, timeout=WAIT_MS)

    panel.agent_actions.stop_action.trigger()
    qtbot.waitUntil(lambda: not editor.notice.isVisible(), timeout=WAIT_MS)
    editor.close()


def test_deleting_keeps_the_persona_and_renaming_validates_the_name(
    setup: tuple[BootstrappedApp, ProjectRuntime, Profile, AgentsPanel, RecordingHost], qtbot: QtBot
) -> None:
    world, runtime, profile, panel, _host = setup
    world.create_agent(runtime, "Main", profile)
    second = world.create_agent(runtime, "Helper", profile)
    wait_for_row(qtbot, panel, "Helper")
    panel.select_agent(second.agent_id)

    dialog = panel.team_gestures.rename()
    assert dialog is not None
    dialog.name.set_text("main")
    assert not dialog.ok.isEnabled() and "already exists" in dialog.name.message.text()
    dialog.name.set_text("Helper 2")
    assert dialog.ok.isEnabled()
    qtbot.mouseClick(dialog.ok, Qt.MouseButton.LeftButton)
    wait_for_row(qtbot, panel, "Helper 2")

    panel.agent_actions.orchestrator_action.trigger()
    wait_for_row(qtbot, panel, "Helper 2", is_orchestrator=True)
    assert not panel.agent_actions.orchestrator_action.isEnabled()

    panel.agent_actions.delete_action.trigger()
    box = panel.findChild(QMessageBox)
    assert ".ideai/agents/.deleted/" in box.informativeText()
    delete_button = next(b for b in box.buttons() if b.text() == "Delete")
    qtbot.mouseClick(delete_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: [r.name for r in panel.rows()] == ["Main"], timeout=WAIT_MS)
    trash = world.project_dir / ".ideai" / "agents" / ".deleted"
    assert any(path.name.startswith("helper") for path in trash.iterdir())
    qtbot.waitUntil(lambda: not panel.findChildren(QMessageBox), timeout=WAIT_MS)


def test_the_panel_follows_the_current_project(
    setup: tuple[BootstrappedApp, ProjectRuntime, Profile, AgentsPanel, RecordingHost], qtbot: QtBot, tmp_path: Path
) -> None:
    world, runtime, profile, panel, _host = setup
    world.create_agent(runtime, "First", profile)
    wait_for_row(qtbot, panel, "First")
    other_dir = tmp_path / "other"
    other_dir.mkdir()
    other = world.open_project(other_dir)
    panel.set_project(other)
    assert panel.rows() == [] and panel.team.currentIndex() == 1
    world.create_agent(runtime, "Unseen", profile)  # an event of the other project changes nothing
    world.create_agent(other, "Second", profile)
    wait_for_row(qtbot, panel, "Second")
    assert [r.name for r in panel.rows()] == ["Second"]
    panel.set_project(None)
    assert panel.team.currentIndex() == 0 and not panel.agent_actions.new_agent_action.isEnabled()


def test_double_click_launches_where_there_is_room_then_goes_to_the_agent(
    setup: tuple[BootstrappedApp, ProjectRuntime, Profile, AgentsPanel, RecordingHost], qtbot: QtBot
) -> None:
    world, runtime, profile, panel, host = setup
    agent = world.create_agent(runtime, "Solo", profile)
    wait_for_row(qtbot, panel, "Solo")
    centre = panel.team.list.visualItemRect(panel.team.list.item(0)).center()

    def double_click() -> None:
        # As a real double-click: the first press selects, the second one activates.
        qtbot.mouseClick(panel.team.list.viewport(), Qt.MouseButton.LeftButton, pos=centre)
        qtbot.mouseDClick(panel.team.list.viewport(), Qt.MouseButton.LeftButton, pos=centre)

    double_click()

    # The only cell runs a shell, so the agent gets a new split beside it.
    wait_for_row(qtbot, panel, "Solo", state_text="running", place_text="cell 2")
    assert len(lay.leaves(runtime.active.root)) == 2
    live = runtime.runner.live(agent.agent_id)
    qtbot.waitUntil(lambda: host.focused == [live.session_id], timeout=WAIT_MS)
    double_click()
    assert host.focused == [live.session_id, live.session_id]


def test_changing_the_profile_of_a_stopped_agent(
    setup: tuple[BootstrappedApp, ProjectRuntime, Profile, AgentsPanel, RecordingHost], qtbot: QtBot
) -> None:
    world, runtime, profile, panel, _host = setup
    other = world.add_fake_profile("Other CLI")
    agent = world.create_agent(runtime, "Switcher", profile)
    wait_for_row(qtbot, panel, "Switcher", profile_name="Fake CLI")
    panel.select_agent(agent.agent_id)
    panel.agent_actions.change_profile_menu.aboutToShow.emit()
    names = [a.text() for a in panel.agent_actions.change_profile_menu.actions()]
    assert names == ["Fake CLI", "Other CLI"] and panel.agent_actions.change_profile_menu.actions()[0].isChecked()
    panel.agent_actions.change_profile_menu.actions()[1].trigger()
    wait_for_row(qtbot, panel, "Switcher", profile_name="Other CLI")
    assert runtime.agents.agent(agent.agent_id).profile_id == other.id


def test_a_running_agent_whose_persona_another_agent_rewrote_is_marked_until_restarted(
    setup: tuple[BootstrappedApp, ProjectRuntime, Profile, AgentsPanel, RecordingHost], qtbot: QtBot
) -> None:
    world, runtime, profile, panel, _host = setup
    main = world.create_agent(runtime, "Main", profile)
    writer = world.create_agent(runtime, "Writer", profile, persona="# Writer\n\nWrites docs.\n")
    wait_for_row(qtbot, panel, "Writer")
    panel.select_agent(writer.agent_id)
    panel.agent_actions.launch_background_action.trigger()
    wait_for_row(qtbot, panel, "Writer", state_text="running")
    started = runtime.runner.live(writer.agent_id).session_id
    assert not panel.agent_actions.restart_action.isEnabled()

    world.on_core(runtime.orchestrator.dispatch(  # the orchestrator's idea_update_context
        AgentCaller(main.agent_id), UpdateAgentContext("Writer", "# Writer\n\nWrites the user guide.\n"), Source.MCP
    ))

    wait_for_row(qtbot, panel, "Writer", context_text="context changed")
    item = panel.team.list.item(1)
    assert item.data(ListRowDelegate.MARK_ROLE) == "context changed"
    assert "Persona changed since it started — restart to apply" in item.toolTip()
    assert panel.agent_actions.restart_action.isEnabled()
    menu = QMenu()
    panel.agent_actions.fill_menu(menu)
    assert "Restart to apply" in [action.text() for action in menu.actions()]

    panel.agent_actions.restart_action.trigger()

    qtbot.waitUntil(lambda: (live := runtime.runner.live(writer.agent_id)) is not None and live.session_id != started,
                    timeout=WAIT_MS)
    wait_for_row(qtbot, panel, "Writer", state_text="running", context_text="")
    assert panel.team.list.item(1).data(ListRowDelegate.MARK_ROLE) == ""
    assert not panel.agent_actions.restart_action.isEnabled()


def test_a_stopped_agent_is_not_marked_when_its_persona_changes(
    setup: tuple[BootstrappedApp, ProjectRuntime, Profile, AgentsPanel, RecordingHost], qtbot: QtBot
) -> None:
    world, runtime, profile, panel, _host = setup
    agent = world.create_agent(runtime, "Idle", profile)
    wait_for_row(qtbot, panel, "Idle", state_text="stopped")
    world.on_core(runtime.agents.update_persona(agent.agent_id, "# Idle\n\nNew role.\n"))
    world.sync(lambda: None)
    QCoreApplication.processEvents()

    assert panel.row(agent.agent_id).context_text == ""
    assert world.on_core(runtime.runner.context_changes()) == {}


def test_an_agent_whose_codex_is_not_signed_in_is_marked_and_signs_in_from_a_cell(
    setup: tuple[BootstrappedApp, ProjectRuntime, Profile, AgentsPanel, RecordingHost], qtbot: QtBot,
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    world, runtime, _profile, panel, _host = setup
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    for name in ("CODEX_HOME", "OPENAI_API_KEY", "CODEX_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    codex = tmp_path / "bin" / "codex"  # a stand-in for `codex login`: it writes the shared login and ends
    codex.parent.mkdir()
    codex.write_text('#!/bin/sh\nmkdir -p "$CODEX_HOME" && echo "{}" > "$CODEX_HOME/auth.json"\necho "signed in: $1"\n')
    codex.chmod(0o755)
    profile = Profile.from_json({
        "id": str(uuid.uuid4()), "name": "My Codex", "command": str(codex),
        "contextInjection": {"strategy": "conventionFile", "target": "AGENTS.md"},
    })
    world.sync(lambda: world.app.profiles.save_profile(profile))
    reviewer = world.create_agent(runtime, "Reviewer", profile)
    panel.refresh()

    wait_for_row(qtbot, panel, "Reviewer", sign_in_text="Codex not signed in", can_sign_in=True)
    item = panel.team.list.item([row.name for row in panel.rows()].index("Reviewer"))
    assert item.data(ListRowDelegate.MARK_ROLE) == "Codex not signed in"
    assert "Codex not signed in: choose Sign in to Codex in the agent" in item.toolTip()
    panel.select_agent(reviewer.agent_id)
    menu = QMenu()
    panel.agent_actions.fill_menu(menu)
    [sign_in] = [action for action in menu.actions() if action.text() == "Sign in to Codex…"]
    assert sign_in.isEnabled()

    sign_in.trigger()
    qtbot.waitUntil(lambda: any(s.label == "sign in · Codex" for s in runtime.sessions.snapshot()), timeout=WAIT_MS)
    [session] = [s for s in runtime.sessions.snapshot() if s.label == "sign in · Codex"]
    qtbot.waitUntil(lambda: any(leaf.session == session.id for leaf in lay.leaves(runtime.active.root)))  # in a cell
    qtbot.waitUntil(lambda: (home / ".codex" / "auth.json").is_file(), timeout=WAIT_MS)  # CODEX_HOME was the user's
    wait_for_row(qtbot, panel, "Reviewer", sign_in_text="")  # the login is seen once the sign-in ends
    assert runtime.runner.live(reviewer.agent_id) is None  # the person starts the agent afterwards
