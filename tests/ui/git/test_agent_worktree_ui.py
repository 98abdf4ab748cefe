"""The per-agent worktree option as a person uses it (spec 07 §2), on a real core and a real repository: the
new-agent dialog's "Run in its own worktree" (where it goes, or why not), what was copied and skipped, the
option turned off from the agent's menu with the loss confirmed, a missing worktree at launch, the Git panel's
Worktrees tab naming the agent and editing the setup command."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot

from idea.application.projects import ProjectRuntime
from idea.domain.profile import Profile
from idea.ui.agents.agents_panel import AgentsPanel
from idea.ui.agents.new_agent_dialog import BLANK_TAB
from idea.ui.git.dialogs import LineDialog, LossDialog
from idea.ui.git.git_panel import TAB_WORKTREES
from tests.git_support import RepoBuilder
from tests.ui.agent_support import RecordingHost
from tests.ui.git.conftest import PanelWorld
from tests.ui.accessibility import unnamed_controls


@dataclass
class AgentWorld:
    w: PanelWorld
    runtime: ProjectRuntime
    profile: Profile
    agents: AgentsPanel
    repo: RepoBuilder

    @property
    def tree_parent(self) -> Path:
        return self.w.project.parent / "project.worktrees"


@pytest.fixture
def agents(panel_world: PanelWorld, qtbot: QtBot) -> Iterator[AgentWorld]:
    w = panel_world
    repo = RepoBuilder(w.project)
    repo.commit("base", {"app.py": "print('hi')\n", ".gitignore": ".env\n"})
    repo.write(".env", "TOKEN=1\n")
    repo.write(".worktreeinclude", ".env\nlocal-*.cfg\n")
    profile = w.world.add_fake_profile()
    runtime = w.open()
    panel = AgentsPanel(w.world.client, w.world.app.profiles, w.world.app.templates, RecordingHost())
    qtbot.addWidget(panel)
    w.world.relay.published.connect(panel.on_event)
    panel.set_project(runtime)
    panel.resize(420, 640)
    panel.show()
    yield AgentWorld(w, runtime, profile, panel, repo)


def buttons(box: QMessageBox) -> dict[str, object]:
    return {button.text(): button for button in box.buttons()}


def test_a_new_agent_in_its_own_worktree_from_the_dialog(agents: AgentWorld, qtbot: QtBot) -> None:
    a, w = agents, agents.w
    dialog = a.agents.team_gestures.new_agent()
    assert dialog is not None
    option = dialog.worktree
    w.wait(lambda: option.check.isEnabled())
    dialog.source.setCurrentIndex(BLANK_TAB)
    qtbot.keyClicks(dialog.name.edit, "QA bot")
    option.check.setChecked(True)
    target = a.tree_parent / "qa-bot"
    assert option.hint.text() == f"Branch idea/qa-bot from main, in {target}"
    w.screenshot(dialog, "new-agent-own-worktree")

    dialog.ok.click()
    gestures = a.agents.worktree_gestures
    w.wait(lambda: isinstance(gestures.dialog, QMessageBox) and gestures.dialog.isVisible())
    report = gestures.dialog
    assert isinstance(report, QMessageBox)
    assert report.text().startswith(f"QA bot now has its own worktree at {target}, on branch idea/qa-bot (from main).")
    assert "Copied from the main tree (.worktreeinclude): .env." in report.text()
    assert "Not copied: local-*.cfg: matches nothing." in report.text()
    w.screenshot(report, "new-agent-worktree-report")
    report.close()
    entry = a.runtime.agents.manifest().by_name("QA bot")
    assert entry is not None and entry.worktree is not None and entry.worktree.path == str(target)
    row = next(r for r in a.agents.rows() if r.name == "QA bot")
    assert row.details().startswith("Fake CLI · ⎇ idea/qa-bot")
    assert (target / ".env").read_text() == "TOKEN=1\n"

    # The Git panel's Worktrees tab names the agent working there.
    w.panel.tabs.setCurrentIndex(TAB_WORKTREES)
    w.refreshed()
    w.wait(lambda: w.panel.worktrees.list.count() == 1)
    assert w.panel.worktrees.list.item(0).text().startswith("idea/qa-bot  —  QA bot\n")
    w.screenshot(w.panel, "git-panel-agent-worktree")


def test_the_option_says_why_a_repository_cannot_have_a_worktree_yet(panel_world: PanelWorld, qtbot: QtBot) -> None:
    w = panel_world
    RepoBuilder(w.project)  # a repository without any commit
    w.world.add_fake_profile()
    runtime = w.open()
    panel = AgentsPanel(w.world.client, w.world.app.profiles, w.world.app.templates, RecordingHost())
    qtbot.addWidget(panel)
    panel.set_project(runtime)
    dialog = panel.team_gestures.new_agent()
    assert dialog is not None
    w.wait(lambda: dialog.worktree.hint.text().startswith("Not available:"))
    assert "commit" in dialog.worktree.hint.text() and not dialog.worktree.check.isEnabled()
    assert not dialog.worktree.chosen


def test_turning_the_option_off_from_the_agents_menu_lists_what_would_be_lost(agents: AgentWorld) -> None:
    a, w = agents, agents.w
    created = w.world.on_core(a.runtime.worktrees.create_agent("Dev", a.profile.id, "", own_worktree=True))
    tree = Path(created.agent.worktree.path)  # type: ignore[union-attr]
    (tree / "notes.md").write_text("not committed\n")
    w.wait(lambda: any(r.name == "Dev" for r in a.agents.rows()))
    a.agents.select_agent(created.agent.agent_id)
    actions = a.agents.agent_actions
    actions.update()
    assert actions.worktree_action.isEnabled() and actions.worktree_action.isChecked()
    assert str(tree) in actions.worktree_action.toolTip()

    actions.worktree_action.trigger()
    question = a.agents.worktree_gestures.dialog
    assert isinstance(question, QMessageBox) and "Stop running Dev in its own worktree?" in question.text()
    buttons(question)["Remove worktree"].click()  # type: ignore[union-attr]
    w.wait(lambda: isinstance(a.agents.worktree_gestures.dialog, LossDialog))
    loss = a.agents.worktree_gestures.dialog
    assert isinstance(loss, LossDialog) and loss.details.toPlainText() == "1 uncommitted file:\n  notes.md"
    assert unnamed_controls(loss) == []
    assert tree.exists()
    loss.accept_button.click()
    w.wait(lambda: a.runtime.agents.agent(created.agent.agent_id).worktree is None)
    assert not tree.exists()
    actions.update()
    assert not actions.worktree_action.isChecked()


def test_a_missing_worktree_at_launch_offers_to_recreate_it(agents: AgentWorld) -> None:
    a, w = agents, agents.w
    created = w.world.on_core(a.runtime.worktrees.create_agent("Dev", a.profile.id, "", own_worktree=True))
    tree = Path(created.agent.worktree.path)  # type: ignore[union-attr]
    shutil.rmtree(tree)
    w.wait(lambda: any(r.name == "Dev" for r in a.agents.rows()))
    a.agents.select_agent(created.agent.agent_id)
    a.agents.agent_actions.update()
    a.agents.agent_actions.launch_background_action.trigger()

    gestures = a.agents.worktree_gestures
    w.wait(lambda: isinstance(gestures.dialog, QMessageBox) and gestures.dialog.windowTitle() == "Worktree missing")
    box = gestures.dialog
    assert isinstance(box, QMessageBox) and str(tree) in box.text()
    assert set(buttons(box)) == {"Recreate worktree", "Run in the main tree", "Cancel"}
    w.screenshot(box, "agent-worktree-missing")
    buttons(box)["Recreate worktree"].click()  # type: ignore[union-attr]
    w.wait(lambda: a.runtime.runner.live(created.agent.agent_id) is not None)  # launched after all
    assert tree.is_dir() and a.runtime.agents.agent(created.agent.agent_id).worktree is not None
    w.world.on_core(a.runtime.placement.stop(created.agent.agent_id))


def test_a_missing_worktree_at_launch_can_run_the_agent_in_the_main_tree(agents: AgentWorld) -> None:
    a, w = agents, agents.w
    created = w.world.on_core(a.runtime.worktrees.create_agent("Dev", a.profile.id, "", own_worktree=True))
    shutil.rmtree(created.agent.worktree.path)  # type: ignore[union-attr]
    w.wait(lambda: any(r.name == "Dev" for r in a.agents.rows()))
    a.agents.select_agent(created.agent.agent_id)
    a.agents.agent_actions.update()
    a.agents.agent_actions.launch_background_action.trigger()
    gestures = a.agents.worktree_gestures
    w.wait(lambda: isinstance(gestures.dialog, QMessageBox) and gestures.dialog.windowTitle() == "Worktree missing")
    buttons(gestures.dialog)["Run in the main tree"].click()  # type: ignore[arg-type, union-attr]
    w.wait(lambda: a.runtime.runner.live(created.agent.agent_id) is not None)
    assert a.runtime.agents.agent(created.agent.agent_id).worktree is None
    w.world.on_core(a.runtime.placement.stop(created.agent.agent_id))


def test_the_worktrees_tab_edits_the_setup_command_and_removes_an_agents_worktree(agents: AgentWorld) -> None:
    a, w = agents, agents.w
    w.panel.tabs.setCurrentIndex(TAB_WORKTREES)
    worktrees = w.panel.worktrees
    worktrees.setup_button.click()
    w.wait(lambda: isinstance(w.panel.worktree_actions.dialog, LineDialog))
    dialog = w.panel.worktree_actions.dialog
    assert isinstance(dialog, LineDialog) and dialog.field.text() == ""
    dialog.field.setText("true setup")
    dialog.buttons.accepted.emit()
    w.wait(lambda: "New agent worktrees run: true setup" in w.panel.message.text())
    assert a.runtime.git is not None and a.runtime.git.setup_command() == "true setup"

    created = w.world.on_core(a.runtime.worktrees.create_agent("Dev", a.profile.id, "", own_worktree=True))
    assert created.worktree is not None and created.worktree.setup_session is not None  # the setup's shell cell
    w.refreshed()
    w.wait(lambda: worktrees.list.count() == 1)
    worktrees.list.setCurrentRow(0)
    worktrees.remove_button.click()
    question = w.panel.worktree_actions.dialog
    assert isinstance(question, QMessageBox) and question.text().startswith("Remove Dev's worktree at ")
    assert "Dev then works in the main tree" in question.informativeText()
    buttons(question)["Remove"].click()  # type: ignore[union-attr]
    w.wait(lambda: "it now works in the main tree" in w.panel.message.text())
    assert a.runtime.agents.agent(created.agent.agent_id).worktree is None
    assert not Path(created.worktree.created.info.path).exists()
    w.wait(lambda: not w.panel._refreshing)


def test_a_new_agents_worktree_can_start_from_another_branch(agents: AgentWorld, qtbot: QtBot) -> None:
    a, w = agents, agents.w
    a.repo.branch("develop")
    a.repo.checkout("develop")
    a.repo.commit("docs draft", {"docs.md": "# Draft\n"})
    a.repo.checkout("main")
    dialog = a.agents.team_gestures.new_agent()
    assert dialog is not None
    option = dialog.worktree
    w.wait(lambda: option.check.isEnabled())
    assert not option.base.isVisible()  # only with the option on
    dialog.source.setCurrentIndex(BLANK_TAB)
    qtbot.keyClicks(dialog.name.edit, "Docs")
    option.check.setChecked(True)
    assert option.base.isVisible() and option.base.currentText() == "main" and option.chosen_base is None
    assert [option.base.itemText(i) for i in range(option.base.count())] == ["main", "develop"]
    assert unnamed_controls(option) == []

    option.base.setCurrentText("develop")
    target = a.tree_parent / "docs"
    assert option.hint.text() == f"Branch idea/docs from develop, in {target}"
    assert option.chosen_base == "develop"
    w.screenshot(dialog, "new-agent-worktree-base")
    dialog.ok.click()
    w.wait(lambda: (entry := a.runtime.agents.manifest().by_name("Docs")) is not None and entry.worktree is not None)
    gestures = a.agents.worktree_gestures
    w.wait(lambda: isinstance(gestures.dialog, QMessageBox) and gestures.dialog.isVisible())
    assert "on branch idea/docs (from develop)" in gestures.dialog.text()
    gestures.dialog.close()
    assert (target / "docs.md").read_text() == "# Draft\n"  # develop's work, not main's
