"""The template manager on a real core: saving a new version brings synchronised agents along, creating,
duplicating and deleting templates, and the question asked before unsaved edits are lost."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox, QTreeWidgetItem, QWidget
from pytestqt.qtbot import QtBot

from idea.application.agents.template_editing import followers_sentence
from idea.application.agents.templates import TemplateLink
from idea.domain.template import TemplateRecord
from idea.ui.templates.template_manager import TemplateManager
from tests.ui.agent_support import WAIT_MS, BootstrappedApp, bootstrapped_app


@pytest.fixture
def world(qtbot: QtBot, tmp_path: Path) -> Iterator[BootstrappedApp]:
    yield from bootstrapped_app(qtbot, tmp_path)


def open_manager(world: BootstrappedApp, qtbot: QtBot) -> TemplateManager:
    manager = TemplateManager(
        world.client, world.app.templates, world.app.projects.open_runtimes, profiles=world.app.profiles
    )
    qtbot.addWidget(manager)
    manager.show()
    qtbot.waitUntil(manager.templates.new_button.isEnabled, timeout=WAIT_MS)  # the templates are loaded
    return manager


def row(manager: TemplateManager, name: str) -> QTreeWidgetItem:
    rows = [manager.templates.list.topLevelItem(i) for i in range(manager.templates.list.topLevelItemCount())]
    return next(item for item in rows if item.text(0) == name)


def message_box(parent: QWidget, qtbot: QtBot) -> QMessageBox:
    """The question the dialog opened (without a nested event loop)."""
    shown: list[QMessageBox] = []

    def opened() -> bool:
        shown[:] = [box for box in parent.findChildren(QMessageBox) if box.isVisible()]
        return len(shown) == 1

    qtbot.waitUntil(opened, timeout=WAIT_MS)
    return shown[0]


def create_template(world: BootstrappedApp, name: str, body: str, profile_id: str | None = None) -> TemplateRecord:
    return world.sync(lambda: world.app.templates.create(name, f"The {name} role", body, profile_id))


def test_saving_a_new_body_raises_the_version_and_brings_the_synchronised_agents_along(
    world: BootstrappedApp, qtbot: QtBot
) -> None:
    profile = world.add_fake_profile()
    runtime = world.open_project()
    template = create_template(world, "QA", "# QA\n\nv1\n", profile.id)
    follower = world.on_core(runtime.agents.create("Tester", profile.id, "", template=template, synchronized=True))
    reader = world.on_core(runtime.agents.create("Reader", profile.id, "", template=template))
    manager = open_manager(world, qtbot)
    changes: list[bool] = []
    manager.templatesChanged.connect(lambda: changes.append(True))
    manager.templates.list.setCurrentItem(row(manager, "QA"))
    assert [row(manager, "QA").text(column) for column in range(4)] == ["QA", "v1", "The QA role", "Fake CLI"]
    assert row(manager, "Architect").text(3) == "Claude Code (not set up)"  # a starter template
    assert manager.pane.users.text() == "Tester (kept in sync), Reader"
    assert manager.pane.name.isReadOnly() and not manager.pane.save_button.isEnabled()

    manager.pane.editor.source.setPlainText("# QA\n\nv2\n")
    assert manager.pane.save_button.isEnabled() and manager.isWindowModified()
    qtbot.mouseClick(manager.pane.save_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not manager.pane.report.isHidden(), timeout=WAIT_MS)

    assert world.sync(lambda: world.app.templates.template(template.id)).version == 2
    persona_dir = world.project_dir / ".ideai"
    assert (persona_dir / follower.md_path).read_text(encoding="utf-8") == "# QA\n\nv2\n"
    assert (persona_dir / reader.md_path).read_text(encoding="utf-8") == "# QA\n\nv1\n"
    assert world.sync(lambda: runtime.agents.template_status(reader.agent_id)).link is TemplateLink.UPDATE_AVAILABLE
    assert "QA v2 saved. Tester now follows v2." in manager.pane.report.text()
    assert "“update available”" in manager.pane.report.text()
    assert row(manager, "QA").text(1) == "v2" and not manager.isWindowModified()
    assert changes == [True]

    manager.pane.description.setText("Checks every change")
    qtbot.mouseClick(manager.pane.save_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "stays v2" in manager.pane.status.text(), timeout=WAIT_MS)
    stored = world.sync(lambda: world.app.templates.template(template.id))
    assert (stored.version, stored.description) == (2, "Checks every change")
    assert changes == [True, True]


def test_several_projects_are_named_in_the_report() -> None:
    assert followers_sentence([("Shop", ["QA", "Git"])], 3) == "QA and Git now follow v3."
    assert followers_sentence([("Shop", ["QA"]), ("API", ["Docs"])], 3) == "QA (Shop), Docs (API) now follow v3."
    assert followers_sentence([], 3) == "No agent of the open projects is kept in sync with it."


def test_new_duplicate_and_delete(world: BootstrappedApp, qtbot: QtBot) -> None:
    profile = world.add_fake_profile()
    runtime = world.open_project()
    template = create_template(world, "QA", "# QA\n", profile.id)
    agent = world.on_core(runtime.agents.create("Tester", profile.id, "", template=template, synchronized=True))
    manager = open_manager(world, qtbot)
    starting_count = manager.templates.list.topLevelItemCount()
    changes: list[bool] = []
    manager.templatesChanged.connect(lambda: changes.append(True))

    qtbot.mouseClick(manager.templates.new_button, Qt.MouseButton.LeftButton)
    assert not manager.pane.name.isReadOnly() and manager.focusWidget() is manager.pane.name
    qtbot.keyClicks(manager.pane.name, "qa")
    assert not manager.pane.save_button.isEnabled() and "already exists" in manager.pane.name_message.text()
    manager.pane.name.clear()
    qtbot.keyClicks(manager.pane.name, "Docs")
    assert [manager.templates.list.currentItem().text(column) for column in range(2)] == ["Docs", "new"]
    manager.pane.editor.source.setPlainText("# Docs\n")
    qtbot.mouseClick(manager.pane.save_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(manager.pane.name.isReadOnly, timeout=WAIT_MS)  # the draft became a stored template
    assert manager.templates.list.topLevelItemCount() == starting_count + 1
    docs = next(t for t in world.sync(world.app.templates.templates) if t.name == "Docs")
    assert docs.version == 1 and world.sync(lambda: world.app.templates.body(docs.id)) == "# Docs\n"

    qtbot.mouseClick(manager.templates.duplicate_button, Qt.MouseButton.LeftButton)
    assert manager.pane.name.text() == "Docs copy" and manager.pane.editor.text() == "# Docs\n"
    qtbot.mouseClick(manager.pane.save_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(manager.pane.name.isReadOnly, timeout=WAIT_MS)
    assert manager.templates.list.topLevelItemCount() == starting_count + 2 and manager.pane.name.text() == "Docs copy"

    manager.templates.list.setCurrentItem(row(manager, "QA"))
    assert manager.pane.name.text() == "QA"
    qtbot.mouseClick(manager.templates.delete_button, Qt.MouseButton.LeftButton)
    box = message_box(manager, qtbot)
    assert "“template deleted”" in box.informativeText() and "Tester" in box.informativeText()
    next(button for button in box.buttons() if button.text() == "Delete").click()
    qtbot.waitUntil(lambda: manager.templates.list.topLevelItemCount() == starting_count + 1, timeout=WAIT_MS)
    assert world.sync(lambda: world.app.templates.template(template.id)) is None
    assert world.sync(lambda: runtime.agents.template_status(agent.agent_id)).link is TemplateLink.TEMPLATE_DELETED
    assert (world.project_dir / ".ideai" / agent.md_path).read_text(encoding="utf-8") == "# QA\n"
    assert changes == [True, True, True]


def test_unsaved_changes_are_confirmed_before_switching_and_closing(world: BootstrappedApp, qtbot: QtBot) -> None:
    qa = create_template(world, "QA", "# QA\n")
    git = create_template(world, "Git", "# Git\n")
    manager = open_manager(world, qtbot)
    manager.templates.list.setCurrentItem(row(manager, "QA"))
    assert manager.pane.name.text() == "QA"
    manager.pane.description.setText("edited")

    manager.templates.list.setCurrentItem(row(manager, "Git"))
    box = message_box(manager, qtbot)
    assert manager.templates.list.currentItem().text(0) == "QA"  # nothing moves until the user answers
    box.button(QMessageBox.StandardButton.Cancel).click()
    assert manager.pane.name.text() == "QA" and manager.pane.description.text() == "edited"

    manager.templates.list.setCurrentItem(row(manager, "Git"))
    message_box(manager, qtbot).button(QMessageBox.StandardButton.Discard).click()
    assert manager.pane.name.text() == "Git" and manager.templates.list.currentItem().text(0) == "Git"
    assert world.sync(lambda: world.app.templates.template(qa.id)).description == "The QA role"

    manager.pane.editor.source.setPlainText("# Git\n\nOwns the repository.\n")
    manager.close()
    box = message_box(manager, qtbot)
    assert manager.isVisible()
    box.button(QMessageBox.StandardButton.Save).click()
    qtbot.waitUntil(lambda: not manager.isVisible(), timeout=WAIT_MS)
    assert world.sync(lambda: world.app.templates.template(git.id)).version == 2
