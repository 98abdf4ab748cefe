"""The agent dialogs on a real core: new agent, first-run wizard, profile editor, resume, templates."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QMessageBox
from pytestqt.qtbot import QtBot

from idea.application.agents.placement_rules import InBackground, InCell
from idea.application.agents.templates import TemplateLink
from idea.domain import layout as lay
from idea.domain.profile import reference_profile_id
from idea.ui.agents.new_agent_dialog import BLANK_TAB, NewAgentDialog
from idea.domain.agent_states.resume_offer import ResumeCandidate, ResumeChoice
from idea.infrastructure.scratch import scratch_parent
from idea.ui.agents.resume_dialog import ResumeDialog
from idea.ui.profiles.first_run_wizard import FirstRunWizard
from idea.ui.profiles.profile_editor import ProfileEditor
from idea.ui.profiles.profile_pane import FORM_TAB, JSON_TAB
from idea.ui.profiles.profile_trials import NO_PROJECT_TIP
from idea.ui.templates.save_template_dialog import SaveTemplateDialog
from idea.ui.templates.template_update_dialog import TemplateUpdateDialog
from tests.ui.accessibility import unnamed_controls
from tests.ui.agent_support import FAKE_BIN, WAIT_MS, PathHost, BootstrappedApp, bootstrapped_app

CLAUDE_ID = reference_profile_id("claude")


@pytest.fixture
def world(qtbot: QtBot, tmp_path: Path) -> Iterator[BootstrappedApp]:
    yield from bootstrapped_app(qtbot, tmp_path)


@pytest.fixture
def wizard_world(qtbot: QtBot, tmp_path: Path) -> Iterator[BootstrappedApp]:
    yield from bootstrapped_app(qtbot, tmp_path, host=PathHost(str(FAKE_BIN)))


def test_new_agent_from_scratch_validates_the_name_as_it_is_typed(world: BootstrappedApp, qtbot: QtBot) -> None:
    profile = world.add_fake_profile()
    runtime = world.open_project()
    world.create_agent(runtime, "Architect", profile)
    dialog = NewAgentDialog(world.client, runtime, world.app.profiles, world.app.templates)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitUntil(lambda: dialog.template_list.count() > 0, timeout=WAIT_MS)
    assert dialog.focusWidget() is dialog.name.edit
    dialog.source.setCurrentIndex(BLANK_TAB)
    assert not dialog.ok.isEnabled()

    qtbot.keyClicks(dialog.name.edit, "QA/bot")
    assert not dialog.ok.isEnabled() and "'/'" in dialog.name.message.text()
    dialog.name.edit.clear()
    qtbot.keyClicks(dialog.name.edit, "architect")
    assert not dialog.ok.isEnabled() and "already exists" in dialog.name.message.text()
    dialog.name.edit.clear()
    qtbot.keyClicks(dialog.name.edit, "QA bot")
    assert dialog.ok.isEnabled() and not dialog.name.message.is_error

    dialog.blank_persona.source.setPlainText("# QA bot\n\nRuns the tests.\n")
    qtbot.keyClick(dialog.name.edit, Qt.Key.Key_Return)  # Enter creates
    qtbot.waitUntil(lambda: dialog.result() == QDialog.DialogCode.Accepted, timeout=WAIT_MS)
    created = runtime.agents.manifest().by_name("QA bot")
    assert created is not None and created.template_id is None
    assert (world.project_dir / ".ideai" / created.md_path).read_text(encoding="utf-8") == "# QA bot\n\nRuns the tests.\n"


def test_first_run_wizard_presumes_nothing_and_enables_only_what_is_ticked(
    wizard_world: BootstrappedApp, qtbot: QtBot
) -> None:
    app = wizard_world.app
    assert app.profiles.needs_setup()
    wizard = FirstRunWizard(wizard_world.client, app.profiles, app.projects.open_runtimes)
    qtbot.addWidget(wizard)
    wizard.show()
    rows = {row.shipped.name: row for row in wizard.rows}
    assert list(rows) == ["Claude Code", "Codex", "Gemini CLI", "Aider"]
    assert not any(row.tick.isChecked() for row in wizard.rows)
    qtbot.waitUntil(lambda: all(row.detect_button.isEnabled() for row in wizard.rows), timeout=WAIT_MS)
    assert rows["Claude Code"].status.text() == "found v2.1.0 (Claude Code)"
    assert [rows[name].status.text() for name in ("Codex", "Gemini CLI", "Aider")] == ["not found"] * 3
    assert "MCP" in rows["Claude Code"].explanation.text()
    assert "file protocol" in rows["Aider"].explanation.text()
    # A CLI not found says how to install it, on a line of its own that the dialog makes room for.
    assert "install" not in rows["Claude Code"].explanation.text()
    assert rows["Codex"].explanation.text().splitlines()[1] == "To install it: npm install -g @openai/codex"
    assert rows["Aider"].explanation.text().endswith("python -m pip install aider-install && aider-install")
    explanation = rows["Aider"].explanation
    assert explanation.height() >= explanation.heightForWidth(explanation.width())

    rows["Codex"].command.setText("/opt/codex/bin/codex")  # a full path, detected again with Enter
    qtbot.keyClick(rows["Codex"].command, Qt.Key.Key_Return)
    assert rows["Codex"].status.text() == "detecting…"
    qtbot.waitUntil(lambda: rows["Codex"].detect_button.isEnabled(), timeout=WAIT_MS)
    assert rows["Codex"].status.text() == "not found"
    assert wizard.isVisible()  # Enter in a command does not finish the setup

    rows["Claude Code"].tick.setChecked(True)
    qtbot.mouseClick(wizard.finish_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: wizard.result() == QDialog.DialogCode.Accepted, timeout=WAIT_MS)
    stored = json.loads((app.data_dir / "profiles.json").read_text(encoding="utf-8"))
    assert [profile["id"] for profile in stored["profiles"]] == [CLAUDE_ID]
    assert not app.profiles.needs_setup()

    reopened = FirstRunWizard(wizard_world.client, app.profiles, app.projects.open_runtimes)
    qtbot.addWidget(reopened)
    assert [row.tick.isChecked() for row in reopened.rows] == [True, False, False, False]
    qtbot.waitUntil(lambda: all(row.detect_button.isEnabled() for row in reopened.rows), timeout=WAIT_MS)


def test_the_profile_editor_says_how_to_install_a_reference_cli_it_does_not_find(
    wizard_world: BootstrappedApp, qtbot: QtBot
) -> None:
    app = wizard_world.app
    codex = next(profile for profile in app.profiles.reference_profiles() if profile.name == "Codex")
    wizard_world.sync(lambda: app.profiles.complete_setup([codex]))
    editor = ProfileEditor(wizard_world.client, app.profiles, app.projects.open_runtimes)
    qtbot.addWidget(editor)
    editor.show()
    assert editor.pane.title.text().startswith("Codex")
    qtbot.mouseClick(editor.pane.detect_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: editor.pane.detect_result.text() != "detecting…", timeout=WAIT_MS)
    assert editor.pane.detect_result.text() == "not found. To install it: npm install -g @openai/codex"
    assert editor.pane.detect_result.is_error


def test_profile_editor_saves_a_custom_profile_and_refuses_to_delete_one_in_use(world: BootstrappedApp, qtbot: QtBot) -> None:
    used = world.add_fake_profile("Fake CLI")
    runtime = world.open_project()
    world.create_agent(runtime, "Builder", used)
    editor = ProfileEditor(world.client, world.app.profiles, world.app.projects.open_runtimes)
    qtbot.addWidget(editor)
    editor.show()
    assert editor.profiles.list.topLevelItem(0).text(2) == "request folder"

    editor.add_custom()
    assert not editor.pane.save_button.isEnabled()  # no command yet
    assert "command" in editor.pane.problem.text()
    editor.pane.form.name.setText("Echo CLI")
    editor.pane.form.command.setText(sys.executable)
    editor.pane.form.args.setText("-c 'print(42)'")
    editor.pane.form.submit_sequence.setText("\\r\\n")
    editor.pane.form.env.setPlainText("MODE=test")
    editor.pane.form.blocking_prompts.setPlainText("Allow? (y/n)\n")
    assert editor.pane.save_button.isEnabled(), editor.pane.problem.text()
    qtbot.mouseClick(editor.pane.save_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: any(p.name == "Echo CLI" for p in world.app.profiles.profiles()), timeout=WAIT_MS)
    saved = next(p for p in world.app.profiles.profiles() if p.name == "Echo CLI")
    assert saved.args == ("-c", "print(42)") and saved.submit_sequence == "\r\n"
    assert saved.env == {"MODE": "test"} and saved.blocking_prompts == ("Allow? (y/n)",)
    on_disk = json.loads((world.app.data_dir / "profiles.json").read_text(encoding="utf-8"))
    assert any(p["name"] == "Echo CLI" for p in on_disk["profiles"])
    qtbot.waitUntil(lambda: editor.current_profile() is not None and editor.current_profile().id == saved.id)

    editor.pane.tabs.setCurrentIndex(JSON_TAB)
    assert json.loads(editor.pane.json.toPlainText())["name"] == "Echo CLI"
    broken = {"id": saved.id, "name": "Echo CLI", "command": "x", "contextInjection": {}}
    editor.pane.json.setPlainText(json.dumps(broken))
    assert not editor.pane.save_button.isEnabled() and "contextInjection" in editor.pane.problem.text()
    editor.pane.tabs.setCurrentIndex(FORM_TAB)  # what cannot be shown in the form keeps the JSON tab
    assert editor.pane.tabs.currentIndex() == JSON_TAB and "Fix this first" in editor.pane.problem.text()
    editor.revert()
    assert not editor.pane.save_button.isEnabled() and not editor.pane.problem.is_error

    editor.profiles.list.setCurrentItem(editor.profiles.list.topLevelItem(0))
    assert editor.current_profile().id == used.id
    qtbot.mouseClick(editor.profiles.delete_button, Qt.MouseButton.LeftButton)
    box = editor.findChild(QMessageBox)
    assert box is not None and "Builder" in box.text()
    box.accept()
    assert world.app.profiles.book().by_id(used.id) is not None


def test_profile_editor_without_profiles_says_how_to_get_one_instead_of_an_empty_form(
    world: BootstrappedApp, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    editor = ProfileEditor(world.client, world.app.profiles, world.app.projects.open_runtimes)
    qtbot.addWidget(editor)
    editor.show()
    assert editor.profiles.list.topLevelItemCount() == 0
    assert editor.profiles.empty_hint.isVisible() and "Set up CLIs" in editor.profiles.empty_hint.text()
    assert editor.pane.body.currentWidget() is editor.pane.nothing and not editor.pane.tabs.isVisible()
    assert editor.pane.title.text() == "No profile" and not editor.pane.save_button.isEnabled()

    editor.add_custom()
    assert not editor.profiles.empty_hint.isVisible()
    assert editor.pane.body.currentWidget() is editor.pane.tabs and editor.pane.form.name.isEnabled()
    monkeypatch.setattr(QMessageBox, "question", lambda *_args: QMessageBox.StandardButton.Discard)
    editor.close()  # the draft is dropped
    assert not editor.isVisible()


def test_resume_dialog_resumes_the_selected_agent_and_forgets_the_other(world: BootstrappedApp, qtbot: QtBot) -> None:
    profile = world.add_fake_profile()
    runtime = world.open_project()
    in_cell = world.create_agent(runtime, "Visible", profile)
    hidden = world.create_agent(runtime, "Hidden", profile)
    cell = lay.leaves(runtime.active.root)[0].id
    world.on_core(runtime.placement.launch(in_cell.agent_id, InCell(cell)))
    world.on_core(runtime.placement.launch(hidden.agent_id, InBackground()))
    world.on_core(world.app.projects.close(runtime.id))

    reopened = world.open_project()
    candidates = reopened.runner.resumable()
    assert {c.name for c in candidates} == {"Visible", "Hidden"}
    dialog = ResumeDialog(world.client, reopened, candidates)
    qtbot.addWidget(dialog)
    dialog.show()
    texts = {c.name: label.text() for c, label in zip(dialog.candidates, dialog.labels, strict=True)}
    assert "cell 1" in texts["Visible"] and "background" in texts["Hidden"]
    # The fake CLI has no session to resume: its row says why "Don't start" is its default.
    assert all(c.native_resume is False for c in candidates)
    assert "its CLI cannot resume its session" in texts["Visible"]
    assert [box.currentText() for box in dialog.choices] == ["Don't start", "Don't start"]
    assert unnamed_controls(dialog) == []  # each choice is named by its row
    dialog.choose(in_cell.agent_id, ResumeChoice.RESUME)
    dialog.choose(hidden.agent_id, ResumeChoice.SKIP)
    qtbot.mouseClick(dialog.apply_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.result() == QDialog.DialogCode.Accepted, timeout=WAIT_MS)

    live = reopened.runner.live(in_cell.agent_id)
    assert live is not None and live.node_id == cell
    assert reopened.runner.live(hidden.agent_id) is None
    assert reopened.runner.resumable() == []


def test_each_row_of_the_resume_offer_starts_on_what_its_cli_can_do(world: BootstrappedApp, qtbot: QtBot) -> None:
    runtime = world.open_project()
    candidates = [
        ResumeCandidate("a1", "Architect", None, None, native_resume=True, subject="review the ports"),
        ResumeCandidate("a2", "Aider", None, None, native_resume=False),
    ]
    dialog = ResumeDialog(world.client, runtime, candidates)
    qtbot.addWidget(dialog)
    assert [box.currentText() for box in dialog.choices] == ["Resume", "Don't start"]
    assert [box.itemData(0, Qt.ItemDataRole.ToolTipRole) for box in dialog.choices] == [
        "Continues its own conversation",
        "Starts again with a summary of its work (its own session cannot be resumed)",
    ]
    architect, aider = (label.text() for label in dialog.labels)
    assert "cannot resume" not in architect and "“review the ports”" in architect
    assert "background · its CLI cannot resume its session" in aider


def test_saving_as_template_then_updating_an_agent_with_local_edits_offers_the_three_way_choice(
    world: BootstrappedApp, qtbot: QtBot
) -> None:
    profile = world.add_fake_profile()
    runtime = world.open_project()
    source = world.create_agent(runtime, "Reviewer", profile, persona="# Reviewer\n\nv1\n")
    dialog = SaveTemplateDialog(world.client, runtime, world.app.templates, source.agent_id, ["Architect"])
    qtbot.addWidget(dialog)
    dialog.show()
    assert unnamed_controls(dialog) == []
    dialog.name.setText("architect")
    assert not dialog.save_button.isEnabled()
    dialog.name.setText("Careful reviewer")
    dialog.description.setText("Reviews carefully")
    qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.saved_template is not None, timeout=WAIT_MS)
    template = dialog.saved_template

    follower = world.on_core(runtime.agents.create("Follower", profile.id, "", template=template))
    world.on_core(runtime.agents.update_persona(follower.agent_id, "# Reviewer\n\nmy own edits\n"))
    world.sync(lambda: world.app.templates.update(template.id, "# Reviewer\n\nv2\n"))
    status = world.sync(lambda: runtime.agents.template_status(follower.agent_id))
    assert status.link is TemplateLink.LOCAL_EDITS

    choices: list[str] = []
    update = TemplateUpdateDialog(
        "Follower",
        status,
        lambda show: show("# Reviewer\n\nmy own edits\n", "# Reviewer\n\nv2\n"),
        lambda: choices.append("take"),
        lambda: choices.append("keep"),
    )
    qtbot.addWidget(update)
    update.show()
    assert update.keep_button is not None and update.keep_button.text() == "Keep mine"
    qtbot.mouseClick(update.diff_button, Qt.MouseButton.LeftButton)
    assert "+v2" in update.diff.toPlainText() and "-my own edits" in update.diff.toPlainText()
    assert unnamed_controls(update) == []
    qtbot.mouseClick(update.keep_button, Qt.MouseButton.LeftButton)
    assert choices == ["keep"]

    world.on_core(runtime.agents.keep_persona(follower.agent_id))
    assert world.sync(lambda: runtime.agents.template_status(follower.agent_id)).link is TemplateLink.CURRENT
    assert world.sync(lambda: runtime.agents.persona(follower.agent_id)) == "# Reviewer\n\nmy own edits\n"


def test_test_runs_the_profile_as_shown_in_a_scratch_folder_in_a_cell_of_the_project(
    world: BootstrappedApp, qtbot: QtBot
) -> None:
    profile = world.add_fake_profile("Echo CLI")
    runtime = world.open_project()
    alone = ProfileEditor(world.client, world.app.profiles, world.app.projects.open_runtimes)
    qtbot.addWidget(alone)
    alone.show()
    assert not alone.pane.test_button.isEnabled() and alone.pane.test_button.toolTip() == NO_PROJECT_TIP
    alone.close()

    editor = ProfileEditor(world.client, world.app.profiles, world.app.projects.open_runtimes,
                           current_project=lambda: runtime)
    qtbot.addWidget(editor)
    editor.show()
    assert editor.current_profile() is not None and editor.current_profile().id == profile.id
    assert editor.pane.test_button.isEnabled()
    editor.pane.form.args.setText("-c 'import os, time; print(os.getcwd()); time.sleep(60)'")  # not saved
    editor.pane.form.env.setPlainText("TRIAL_DIR={agentRunDir}")

    qtbot.mouseClick(editor.pane.test_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: editor.pane.detect_result.text().startswith("Started"), timeout=WAIT_MS)
    assert editor.pane.detect_result.text() == (
        f"Started in a new cell of {runtime.name} (“test · Echo CLI”): close this window to see it"
    )
    [trial] = [s for s in runtime.sessions.snapshot() if s.label == "test · Echo CLI"]
    assert Path(trial.cwd).name.startswith("idea-test-echo-cli-") and Path(trial.cwd).parent == scratch_parent()
    qtbot.waitUntil(lambda: any(leaf.session == trial.id for leaf in lay.leaves(runtime.active.root)), timeout=WAIT_MS)
    assert world.app.profiles.profile(profile.id).args == profile.args  # the edits were tried, not saved
    world.on_core(runtime.sessions.stop(trial.id))
    editor.revert()  # closed at the end: nothing to ask about
