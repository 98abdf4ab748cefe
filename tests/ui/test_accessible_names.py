"""Every control a person can reach in IdeA's window and its dialogs has a name a screen reader can say."""

from __future__ import annotations

from pathlib import Path

import pygit2
import shiboken6
from PySide6.QtWidgets import QApplication, QDockWidget, QTabWidget, QToolButton, QWidget

from idea.application.agents.placement_rules import InBackground
from tests.ui.accessibility import accessible_name, unnamed_controls
from tests.ui.gui_support import Gui
from tests.ui.test_knowledge_window import fake_profile, menu_action

DIALOGS = [  # every dialog the menus open without a question first
    ("&File", "Settings…"),
    ("&Agents", "New agent…"),
    ("&Agents", "Send task…"),
    ("&Agents", "Set up AI CLIs…"),
    ("&Agents", "Profiles…"),
    ("&Agents", "Templates…"),
    ("&Agents", "Permissions…"),
    ("&Knowledge", "Memory…"),
    ("&Knowledge", "Skills…"),
    ("&Knowledge", "Project context…"),
    ("&Help", "Keyboard shortcuts"),
    ("&Help", "Diagnostics"),
]


def shown_windows(window: QWidget) -> dict[int, QWidget]:
    """The visible windows, top-level ones and the window's dialogs, by the address of their C++ object."""
    found = [*QApplication.topLevelWidgets(), *(w for w in window.findChildren(QWidget) if w.isWindow())]
    return {shiboken6.getCppPointer(w)[0]: w for w in found if w.isVisible()}


def unnamed_on_every_page(root: QWidget) -> list[str]:
    """`unnamed_controls` of `root` with each page of each of its tab widgets shown in turn, and every group
    that opens on demand open."""
    for toggle in root.findChildren(QToolButton):
        if toggle.property("expandsSection") and not toggle.isChecked():
            toggle.click()
    found = unnamed_controls(root)
    for tabs in root.findChildren(QTabWidget):
        if not tabs.isVisible():
            continue
        shown = tabs.currentIndex()
        for index in range(tabs.count()):
            tabs.setCurrentIndex(index)
            found += unnamed_controls(tabs.widget(index))
        tabs.setCurrentIndex(shown)
    return sorted(set(found))


def test_the_window_its_panels_and_its_dialogs_name_their_controls(gui_factory, tmp_path: Path) -> None:
    gui: Gui = gui_factory()
    profile = fake_profile(gui)
    project, tab = gui.open_new_project(tmp_path)
    pygit2.init_repository(str(project))
    (project / "notes.txt").write_text("one\n")
    runtime, window = tab.runtime, gui.windows[0]
    qa = gui.run(runtime.agents.create("QA", profile.id, "# QA\n")).agent_id
    gui.run(runtime.placement.launch(qa, InBackground()))  # its queue and its work card show
    [cell] = gui.wait_for_shells(tab, 1)
    assert cell.session is not None and cell.view is not None
    assert accessible_name(cell.view.display) == f"Terminal: {cell.session.label}"  # which cell takes the keys
    gui.wait(lambda: any(row.agent_id == qa for row in window.agents_panel.rows()))
    window.agents_panel.select_agent(qa)
    problems: dict[str, list[str]] = {"grid": unnamed_controls(tab)}
    for dock in window.findChildren(QDockWidget):
        dock.show()
        dock.raise_()
        gui.qtbot.waitUntil(dock.isVisible)
        problems[dock.windowTitle()] = unnamed_on_every_page(dock)

    window.agents_panel.agent_actions.conversation_action.trigger()
    assert tab.area.viewer is not None
    gui.qtbot.waitUntil(tab.area.viewer.isVisible)
    problems["conversation"] = unnamed_controls(tab.area.viewer)
    tab.area.viewer.back_button.click()

    for menu, text in DIALOGS:
        before = shown_windows(window)
        menu_action(gui, menu, text).trigger()
        gui.qtbot.waitUntil(lambda: len(shown_windows(window)) > len(before))
        for address, dialog in shown_windows(window).items():
            if address not in before:
                problems[text] = unnamed_on_every_page(dialog)
                dialog.close()
    assert {place: unnamed for place, unnamed in problems.items() if unnamed} == {}
