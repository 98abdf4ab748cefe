"""The context menu of a cell that shows an agent, in the real window (spec 01 §8, spec 05 §10): interrupt,
stop, restart, send to the background, change its profile, open its conversation or run dir, copy its id,
and for a limited agent cancel or hasten its resume, each doing what the Agents panel's gesture does; and in
an empty cell's "Launch agent" menu, an agent another cell shows is moved here."""

from __future__ import annotations

import os
import sys
import uuid
from pathlib import Path

import pytest
from PySide6.QtCore import QUrl
from PySide6.QtGui import QAction, QGuiApplication
from PySide6.QtWidgets import QMenu, QMessageBox

from idea.application.agents.placement_rules import InCell
from idea.domain import layout as lay
from idea.domain.ids import AgentId
from idea.domain.profile import Profile
from idea.ui.windows.project_tab import ProjectTab
from tests.ui.agent_support import FIXTURES
from tests.ui.gui_support import Gui

SILENT_CLI = FIXTURES / "silent_agent_cli.py"  # reports each line and each Esc it is sent


def silent_profile(gui: Gui, name: str) -> Profile:
    profile = Profile.from_json(
        {
            "id": str(uuid.uuid4()),
            "name": name,
            "command": sys.executable,
            "args": [str(SILENT_CLI)],
            "contextInjection": {"strategy": "conventionFile", "target": "AGENTS.md"},
            "promptReadyPattern": "Silent agent CLI ready",
        }
    )

    async def save() -> None:
        gui.session.app.profiles.save_profile(profile)

    gui.run(save())
    return profile


def agent_in_first_cell(gui: Gui, tmp_path: Path, profile: Profile) -> tuple[ProjectTab, AgentId, str]:
    """A project whose only cell runs the agent Scout: its tab, Scout's id and the cell's id."""
    _, tab = gui.open_new_project(tmp_path)
    runtime = tab.runtime
    [cell] = gui.wait_for_shells(tab, 1)
    scout = gui.run(runtime.agents.create("Scout", profile.id, "# Scout\n")).agent_id
    gui.run(runtime.placement.launch(scout, InCell(cell.leaf_id)))
    gui.wait(lambda: (c := tab.grid.cell(cell.leaf_id)) is not None and c.session is not None
             and c.session.agent_id == scout and "Silent agent CLI ready" in gui.screen(c))
    gui.wait(lambda: (row := gui.windows[0].agents_panel.row(scout)) is not None and row.in_cell)
    return tab, scout, cell.leaf_id


def context_menu(tab: ProjectTab, leaf_id: str) -> QMenu:
    menu = QMenu(tab)
    tab.menus.fill_context_menu(leaf_id, menu)
    return menu


def item(menu: QMenu, text: str) -> QAction:
    found = [a for a in menu.actions() if a.text() == text]
    assert found, f"no {text!r} in {[a.text() for a in menu.actions()]}"
    return found[0]


def texts(menu: QMenu) -> list[str]:
    return [a.text() for a in menu.actions() if not a.isSeparator()]


def status(gui: Gui) -> str:
    return gui.windows[0].statusBar().currentMessage()


def test_an_agent_cell_offers_the_agents_panel_gestures_on_its_agent(
    gui_factory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gui: Gui = gui_factory()
    profile = silent_profile(gui, "Silent CLI")
    other = silent_profile(gui, "Other CLI")
    tab, scout, leaf_id = agent_in_first_cell(gui, tmp_path, profile)
    runtime, window = tab.runtime, gui.windows[0]
    cell = tab.grid.cell(leaf_id)
    assert cell is not None

    menu = context_menu(tab, leaf_id)
    offered = texts(menu)
    start = offered.index("Interrupt Scout (sends Esc)")
    assert offered[start:start + 9] == [
        "Interrupt Scout (sends Esc)", "Stop Scout", "Restart Scout", "Send to background", "Change profile",
        "Open conversation", "Open run dir", "Copy agent id", "Copy\tCtrl+Shift+C",
    ]
    assert "Cancel resume" not in offered and "Resume now" not in offered  # Scout is not limited
    assert all(a.isEnabled() for a in menu.actions() if a.text() in offered[start:start + 8])

    item(menu, "Interrupt Scout (sends Esc)").trigger()  # as the panel's Interrupt: Esc in the agent's terminal
    gui.wait(lambda: "received: <Esc>" in gui.screen(cell))
    gui.wait(lambda: status(gui) == "Esc sent to Scout")

    item(menu, "Copy agent id").trigger()
    assert QGuiApplication.clipboard().text() == scout

    opened: list[QUrl] = []
    monkeypatch.setattr("idea.ui.agents.team_gestures.QDesktopServices.openUrl", opened.append)
    item(menu, "Open run dir").trigger()
    assert [url.toLocalFile() for url in opened] == [os.path.join(runtime.root, ".ideai", "run", scout)]

    item(menu, "Open conversation").trigger()
    assert tab.area.showing_conversation and tab.area.viewer is not None
    assert tab.area.viewer.title.text() == "You ↔ Scout"
    tab.area.viewer.back_button.click()

    profiles = item(menu, "Change profile").menu()
    assert [(a.text(), a.isChecked()) for a in profiles.actions()] == [("Silent CLI", True), ("Other CLI", False)]
    before = runtime.runner.live(scout).session_id  # type: ignore[union-attr]
    profiles.actions()[1].trigger()  # Scout runs: the panel's question first
    question = next(box for box in window.findChildren(QMessageBox) if box.isVisible())
    next(b for b in question.buttons() if b.text() == "Restart with Other CLI").click()
    gui.wait(lambda: gui.windows[0].agents_panel.row(scout).profile_id == other.id)  # type: ignore[union-attr]
    gui.wait(lambda: (live := runtime.runner.live(scout)) is not None and live.session_id != before
             and live.node_id == leaf_id)
    gui.wait(lambda: status(gui) == "Scout now uses Other CLI")

    gui.wait(lambda: (row := window.agents_panel.row(scout)) is not None and row.in_cell)
    item(context_menu(tab, leaf_id), "Send to background").trigger()
    gui.wait(lambda: (live := runtime.runner.live(scout)) is not None and live.node_id is None)
    gui.wait(lambda: status(gui) == "Scout keeps running in the background")


def test_the_stop_of_an_agent_cell_is_the_panels(gui_factory, tmp_path: Path) -> None:
    gui: Gui = gui_factory()
    tab, scout, leaf_id = agent_in_first_cell(gui, tmp_path, silent_profile(gui, "Silent CLI"))
    item(context_menu(tab, leaf_id), "Stop Scout").trigger()
    gui.wait(lambda: tab.runtime.runner.live(scout) is None)
    gui.wait(lambda: status(gui) == "Scout stopped")


def test_a_limited_agent_cell_offers_cancel_resume_and_resume_now(gui_factory, tmp_path: Path) -> None:
    gui: Gui = gui_factory()
    tab, scout, leaf_id = agent_in_first_cell(gui, tmp_path, silent_profile(gui, "Silent CLI"))
    runtime, panel = tab.runtime, gui.windows[0].agents_panel
    resets = runtime.clock.now_ms() + 2 * 3_600_000

    async def limited() -> None:
        runtime.orchestrator.states.limit_seen(scout, resets, "usage limit reached")  # type: ignore[union-attr]

    gui.run(limited())
    gui.wait(lambda: (row := panel.row(scout)) is not None and row.activity.limit is not None
             and row.activity.limit.fire_at_ms is not None)
    menu = context_menu(tab, leaf_id)
    offered = texts(menu)
    assert offered[offered.index("Interrupt Scout (sends Esc)"):][:4] == [
        "Interrupt Scout (sends Esc)", "Cancel resume", "Resume now", "Stop Scout",
    ]
    shot = Path(os.environ.get("IDEA_TEST_SHOTS", tmp_path)) / "agent-cell-menu.png"
    menu.popup(tab.mapToGlobal(tab.rect().center()))
    gui.wait(menu.isVisible)
    menu.grab().save(str(shot))
    menu.hide()

    item(menu, "Cancel resume").trigger()  # the limit use case: no automatic resume any more
    gui.wait(lambda: panel.row(scout).activity.limit.fire_at_ms is None)  # type: ignore[union-attr]
    gui.wait(lambda: status(gui) == "Automatic resume of Scout cancelled")
    menu = context_menu(tab, leaf_id)
    assert not item(menu, "Cancel resume").isEnabled() and item(menu, "Resume now").isEnabled()

    item(menu, "Resume now").trigger()  # resumed at once: the limit is over
    gui.wait(lambda: panel.row(scout).activity.limit is None)  # type: ignore[union-attr]
    gui.wait(lambda: status(gui) == "Resuming Scout")
    assert "Cancel resume" not in texts(context_menu(tab, leaf_id))


def test_an_agent_another_cell_shows_is_moved_into_an_empty_cell(gui_factory, tmp_path: Path) -> None:
    gui: Gui = gui_factory()
    tab, scout, leaf_id = agent_in_first_cell(gui, tmp_path, silent_profile(gui, "Silent CLI"))
    runtime = tab.runtime
    live = runtime.runner.live(scout)
    assert live is not None
    gui.run(runtime.mutate(lay.MakeGrid(leaf_id, 1, 2)))  # Scout in the first cell, the second one empty
    gui.wait(lambda: len(gui.leaves(tab)) == 2)
    first, empty = gui.leaves(tab)
    assert first.session == live.session_id and empty.session is None

    launch = QMenu(tab)
    tab.menus.fill_launch_menu(empty.id, launch)
    move = item(launch, "Move Scout here (from cell 1)")
    assert move.isEnabled()
    launch.popup(tab.mapToGlobal(tab.rect().center()))
    gui.wait(launch.isVisible)
    launch.grab().save(str(Path(os.environ.get("IDEA_TEST_SHOTS", tmp_path)) / "move-here-menu.png"))
    launch.hide()
    move.trigger()
    gui.wait(lambda: [leaf.session for leaf in gui.leaves(tab)] == [None, live.session_id])
    moved = runtime.runner.live(scout)
    assert moved is not None and moved.session_id == live.session_id and moved.node_id == empty.id  # not restarted
    gui.wait(lambda: tab.active_leaf == empty.id)
