"""The Permissions panel on a real core (spec 06 §10): problems of a hand-edited file, presets, saving an
override, the effective view and its test box, enforcement status per agent, and the now/next-launch message
with a restart for a running agent."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest
from PySide6.QtWidgets import QMessageBox, QScrollArea
from pytestqt.qtbot import QtBot

from idea.application.agents.placement_rules import InBackground
from idea.domain.permissions.model import Effect
from idea.ui.permissions.panel import PermissionsDialog
from tests.ui.accessibility import unnamed_controls
from tests.ui.agent_support import WAIT_MS, BootstrappedApp, bootstrapped_app


@pytest.fixture
def world(qtbot: QtBot, tmp_path: Path) -> Iterator[BootstrappedApp]:
    yield from bootstrapped_app(qtbot, tmp_path)


@pytest.fixture
def yes(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    asked: list[str] = []

    def answer(_parent: object, title: str, _text: str, *args: object) -> QMessageBox.StandardButton:
        asked.append(title)
        return QMessageBox.StandardButton.Yes

    monkeypatch.setattr(QMessageBox, "question", answer)
    return asked


def scope_texts(dialog: PermissionsDialog) -> list[str]:
    return [dialog.scopes.item(row).text() for row in range(dialog.scopes.count())]


def select(dialog: PermissionsDialog, name: str) -> None:
    for row in range(dialog.scopes.count()):
        if dialog.scopes.item(row).text().startswith(name):
            dialog.scopes.setCurrentRow(row)
            return
    raise AssertionError(f"{name} is not listed: {scope_texts(dialog)}")


def open_panel(world: BootstrappedApp, qtbot: QtBot, runtime: object) -> PermissionsDialog:
    dialog = PermissionsDialog(world.client, world.app.permissions, runtime)  # type: ignore[arg-type]
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitUntil(lambda: dialog.scopes.count() > 1, timeout=WAIT_MS)
    return dialog


def test_the_panel_shows_problems_edits_an_override_and_answers_the_test_box(
    world: BootstrappedApp, qtbot: QtBot, yes: list[str], tmp_path: Path
) -> None:
    profile = world.add_fake_profile()
    runtime = world.open_project()
    architect = world.create_agent(runtime, "Architect", profile)
    world.create_agent(runtime, "Developer", profile)
    permissions = world.project_dir / ".ideai" / "permissions.json"
    hand_edited = {
        "version": 1,
        "projectDefaults": {"rules": [{"capability": "write", "effect": "allow", "paths": ["**"], "commands": []}],
                            "fallback": "allow"},
        "agents": [{"agentId": architect.agent_id, "permissions": {"rules": [
            {"capability": "write", "effect": "deny", "paths": ["/etc/**"], "commands": []}], "fallback": "allow"}}],
    }
    permissions.write_text(json.dumps(hand_edited), encoding="utf-8")

    dialog = open_panel(world, qtbot, runtime)

    texts = scope_texts(dialog)
    assert texts[0] == "Project defaults"
    assert texts[1] == "Architect — will not start · own rules"
    assert texts[2].startswith("Developer — ")
    assert dialog.problems.isVisible()
    assert "agents[0].permissions.rules[0].paths[0]" in dialog.problems.text()
    assert "blocks Architect" in dialog.problems.text()
    assert "This system:" in dialog.system.text()
    assert "every agent runs as your user" in dialog.system.text()  # the limit of identities between agents
    dialog.grab().save(str(tmp_path / "permissions-problems.png"))

    select(dialog, "Developer")
    assert not dialog.enabled.isChecked() and not dialog.editor.isEnabled()
    dialog.enabled.setChecked(True)
    dialog.editor.preset.setCurrentIndex(dialog.editor.preset.findData("reviewer"))
    dialog.editor.preset.activated.emit(dialog.editor.preset.currentIndex())
    assert dialog.editor.preset_note.text().startswith("Reads everything")
    assert dialog.save.isEnabled()
    assert unnamed_controls(dialog) == []  # each rule's cells too
    qtbot.mouseClick(dialog.save, qtbot_button())
    qtbot.waitUntil(lambda: "Saved" in dialog.impact.text() or "kept" in dialog.impact.text(), timeout=WAIT_MS)
    assert yes == ["Replace permissions.json"]  # the file had problems: the person confirmed
    assert "Your previous file was kept as" in dialog.impact.text()
    saved = json.loads(permissions.read_text(encoding="utf-8"))
    developer = runtime.agents.manifest().by_name("Developer")
    assert developer is not None
    [developer_entry] = [a for a in saved["agents"] if a["agentId"] == developer.agent_id]
    assert [rule["effect"] for rule in developer_entry["permissions"]["rules"]] == ["allow", "deny", "deny", "allow"]
    assert developer_entry["permissions"]["fallback"] == Effect.ALLOW.value
    assert list((world.project_dir / ".ideai").glob("permissions.json.before-*"))

    select(dialog, "Developer")
    view = dialog.effective
    assert "Effective permissions of Developer" in view.title()
    assert "you cannot create, modify or delete files in the project" in view.summary.toPlainText()
    view.verb.setCurrentIndex(view.verb.findText("write"))
    view.subject.setText("docs/x.md")
    view.ask()
    assert "Can Developer write `docs/x.md`?</b> No." in view.answer.text()
    view.verb.setCurrentIndex(view.verb.findText("run"))
    view.subject.setText("git push")
    view.ask()
    assert "Can Developer run `git push`?</b> Yes." in view.answer.text()
    assert "always needs your approval" in view.answer.text()
    view.verb.setCurrentIndex(view.verb.findText("read"))
    view.subject.setText("/etc/passwd")
    view.ask()
    assert "outside the project" in view.answer.text()
    dialog.grab().save(str(tmp_path / "permissions-developer.png"))


def test_an_invalid_glob_keeps_save_disabled_with_the_reason(world: BootstrappedApp, qtbot: QtBot) -> None:
    runtime = world.open_project()
    dialog = open_panel_no_agents(world, qtbot, runtime)
    dialog.enabled.setChecked(True)
    dialog.editor.preset.setCurrentIndex(dialog.editor.preset.findData("autonomous"))
    dialog.editor.preset.activated.emit(dialog.editor.preset.currentIndex())
    assert dialog.save.isEnabled()
    editor = dialog.editor
    editor.table.selectRow(1)
    paths = editor.table.cellWidget(1, 2)
    paths.setText("../outside/**")
    paths.textEdited.emit("../outside/**")
    assert not dialog.save.isEnabled()
    assert "contains '..'" in editor.problem.text()
    assert editor.preset.currentText() == "Custom"


def test_each_cell_of_the_rules_and_command_entries_has_a_name(world: BootstrappedApp, qtbot: QtBot) -> None:
    runtime = world.open_project()
    dialog = open_panel_no_agents(world, qtbot, runtime)
    dialog.enabled.setChecked(True)
    editor = dialog.editor
    editor.preset.setCurrentIndex(editor.preset.findData("reviewer"))
    editor.preset.activated.emit(editor.preset.currentIndex())
    [shell] = [row for row in range(editor.table.rowCount()) if "command" in editor.table.cellWidget(row, 2).text()]
    editor.table.selectRow(shell)
    editor.add_command.click()
    assert editor.commands.rowCount() == 1
    assert unnamed_controls(dialog) == []
    assert editor.commands.cellWidget(0, 1).accessibleName() == "Command entry 1: command"
    assert editor.table.cellWidget(0, 1).accessibleName() == "Rule 1: effect"


def open_panel_no_agents(world: BootstrappedApp, qtbot: QtBot, runtime: object) -> PermissionsDialog:
    dialog = PermissionsDialog(world.client, world.app.permissions, runtime)  # type: ignore[arg-type]
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitUntil(lambda: dialog.scopes.count() == 1 and dialog.enabled.text() != "", timeout=WAIT_MS)
    return dialog


def test_changing_a_running_agent_says_what_applies_when_and_restarts_it_under_the_sandbox(
    world: BootstrappedApp, qtbot: QtBot, tmp_path: Path
) -> None:
    profile = world.add_fake_profile()
    runtime = world.open_project()
    agent = world.create_agent(runtime, "Architect", profile)
    world.on_core(runtime.placement.launch(agent.agent_id, InBackground()))
    first = world.sync(lambda: runtime.sessions.live_agent_session(agent.agent_id))
    assert first is not None and first.pid is not None
    assert "IDEA_SANDBOX_STATUS" not in psutil.Process(first.pid).environ()

    dialog = open_panel(world, qtbot, runtime)
    assert scope_texts(dialog)[1] == "Architect — Not set · running"
    select(dialog, "Project defaults")
    dialog.enabled.setChecked(True)
    dialog.editor.preset.setCurrentIndex(dialog.editor.preset.findData("reviewer"))
    dialog.editor.preset.activated.emit(dialog.editor.preset.currentIndex())
    dialog.save.click()
    qtbot.waitUntil(lambda: dialog.restart.isVisible(), timeout=WAIT_MS)
    assert scope_texts(dialog)[1] == "Architect — Enforced · restart to apply"
    message = dialog.impact.text()
    assert "<b>Architect</b> is running." in message
    assert "the running process keeps the permissions it started with" in message
    assert "When Architect next starts: the operating-system sandbox is rebuilt" in message
    assert dialog.restart.text() == "Restart Architect now"
    dialog.grab().save(str(tmp_path / "permissions-running.png"))

    dialog.restart.click()
    qtbot.waitUntil(lambda: dialog.impact.text() == "Restarted under the new policy.", timeout=WAIT_MS)
    qtbot.waitUntil(lambda: scope_texts(dialog)[1] == "Architect — Enforced · running", timeout=WAIT_MS)
    second = world.sync(lambda: runtime.sessions.live_agent_session(agent.agent_id))
    assert second is not None and second.id != first.id and second.pid is not None
    # The CLI was started by `idea sandbox-exec`, which restricted itself and then exec'd it.
    qtbot.waitUntil(lambda: "IDEA_SANDBOX_STATUS" in psutil.Process(second.pid).environ(), timeout=WAIT_MS)
    status = psutil.Process(second.pid).environ()["IDEA_SANDBOX_STATUS"]
    assert status == world.app.permissions.system_status().level.value
    run_dir = world.project_dir / ".ideai" / "run" / agent.agent_id
    assert json.loads((run_dir / "sandbox-plan.json").read_text())["handled"]["rw"] is True


def qtbot_button():  # noqa: ANN201
    from PySide6.QtCore import Qt

    return Qt.MouseButton.LeftButton


def test_on_a_short_screen_the_dialog_fits_and_the_agent_side_scrolls(world: BootstrappedApp, qtbot: QtBot) -> None:
    # The test screen (800 px tall) is shorter than the dialog would like (820): its buttons stay on the screen,
    # and an agent's rules and effective view, taller together than the room left, scroll instead of squeezing.
    runtime = world.open_project()
    world.create_agent(runtime, "Architect", world.add_fake_profile())
    dialog = open_panel(world, qtbot, runtime)
    available = dialog.screen().availableGeometry()
    assert dialog.height() < available.height()

    select(dialog, "Architect")
    qtbot.waitUntil(dialog.effective.isVisible, timeout=WAIT_MS)
    side = dialog.effective.parentWidget()
    scroll = dialog.findChild(QScrollArea)
    assert scroll is not None and scroll.widget() is side
    qtbot.waitUntil(lambda: side.height() >= side.minimumSizeHint().height(), timeout=WAIT_MS)
    squeezed = scroll.viewport().height() < side.minimumSizeHint().height()
    assert scroll.verticalScrollBar().maximum() == (side.height() - scroll.viewport().height() if squeezed else 0)
    assert dialog.height() < available.height()


def test_on_a_tall_enough_screen_nothing_scrolls(world: BootstrappedApp, qtbot: QtBot) -> None:
    runtime = world.open_project()
    world.create_agent(runtime, "Architect", world.add_fake_profile())
    dialog = open_panel(world, qtbot, runtime)
    select(dialog, "Architect")
    qtbot.waitUntil(dialog.effective.isVisible, timeout=WAIT_MS)
    side = dialog.effective.parentWidget()
    dialog.resize(dialog.width(), side.minimumSizeHint().height() + 200)
    scroll = dialog.findChild(QScrollArea)
    assert scroll is not None
    qtbot.waitUntil(lambda: scroll.viewport().height() >= side.minimumSizeHint().height(), timeout=WAIT_MS)
    qtbot.waitUntil(lambda: scroll.verticalScrollBar().maximum() == 0, timeout=WAIT_MS)
