"""The knowledge screens in the real window: the work panel docked beside the grid and its gestures, the
conversation viewer in the grid's place (from the Agents panel and the work panel), and the Knowledge menu's
Memory, Skills and Project context windows, all kept current by the project's events."""

from __future__ import annotations

import sys
import uuid
from pathlib import Path

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMessageBox, QToolButton

from idea.application.agents.placement_rules import InBackground
from idea.domain.ids import conversation_for_pair
from idea.domain.knowledge.conversation_log import ConversationTurn, TurnRole
from idea.domain.orchestration.tickets import AgentSource, HumanSource
from idea.domain.profile import Profile
from idea.ui.knowledge.knowledge_screens import KnowledgeWindow
from idea.ui.knowledge.memory_view import MemoryView
from tests.ui.gui_support import Gui

FAKE_CLI = Path(__file__).resolve().parents[1] / "fake_agent" / "fake_agent_cli.py"


def fake_profile(gui: Gui) -> Profile:
    profile = Profile.from_json(
        {
            "id": str(uuid.uuid4()),
            "name": "Fake CLI",
            "command": sys.executable,
            "args": [str(FAKE_CLI)],
            "contextInjection": {"strategy": "conventionFile", "target": "AGENTS.md"},
        }
    )

    async def save() -> None:
        gui.session.app.profiles.save_profile(profile)

    gui.run(save())
    return profile


def click(widget: object, text: str) -> None:
    button = next(b for b in widget.findChildren(QToolButton) if b.text() == text)  # type: ignore[attr-defined]
    button.click()


def menu_action(gui: Gui, menu_title: str, text: str) -> QAction:
    window = gui.windows[0]
    menu = next(a.menu() for a in window.menuBar().actions() if a.text() == menu_title)
    return next(a for a in menu.actions() if a.text() == text)


def test_the_work_dock_follows_the_tab_and_its_gestures_are_the_runtime_use_cases(gui_factory, tmp_path: Path) -> None:
    gui = gui_factory()
    profile = fake_profile(gui)
    _, tab = gui.open_new_project(tmp_path)
    runtime, window = tab.runtime, gui.windows[0]
    qa = gui.run(runtime.agents.create("QA", profile.id, "# QA\n")).agent_id
    dock = window.work_dock
    assert dock.runtime is runtime and dock.isVisible()

    gui.run(runtime.placement.launch(qa, InBackground()))
    gui.wait(lambda: dock.panel is not None and any(  # refreshed by the relayed events, not by polling
        card.agent_id == qa and "in the background" in card.state.text() for card in dock.panel.agent_cards
    ))
    card = next(card for card in dock.panel.agent_cards if card.agent_id == qa)
    click(card, "Attach")
    gui.wait(lambda: (live := runtime.runner.live(qa)) is not None and live.node_id is not None)
    gui.wait(lambda: any(c.agent_id == qa and "in a cell" in c.state.text() for c in dock.panel.agent_cards))
    card = next(card for card in dock.panel.agent_cards if card.agent_id == qa)
    click(card, "Stop")
    gui.wait(lambda: runtime.runner.live(qa) is None)
    gui.wait(lambda: any(c.agent_id == qa and "stopped" in c.state.text() for c in dock.panel.agent_cards))
    assert not window.findChildren(QMessageBox)


def test_a_conversation_replaces_the_grid_until_back(gui_factory, tmp_path: Path) -> None:
    gui = gui_factory()
    profile = fake_profile(gui)
    _, tab = gui.open_new_project(tmp_path)
    runtime, window = tab.runtime, gui.windows[0]
    qa = gui.run(runtime.agents.create("QA", profile.id, "# QA\n")).agent_id
    conversation = conversation_for_pair(qa, None)
    for index, (role, source) in enumerate(((TurnRole.PROMPT, HumanSource()), (TurnRole.RESPONSE, AgentSource(qa)))):
        turn = ConversationTurn(str(uuid.uuid4()), conversation, 1_781_368_615_582 + index, source, role, f"turn {index}")
        gui.run(runtime.knowledge.append(turn))

    gui.wait(lambda: any(row.agent_id == qa for row in window.agents_panel.rows()))
    window.agents_panel.select_agent(qa)
    window.agents_panel.agent_actions.conversation_action.trigger()  # "Open conversation" on the agent
    viewer = tab.area.viewer
    assert viewer is not None and tab.area.showing_conversation and viewer.title.text() == "You ↔ QA"
    gui.wait(lambda: [turn.text for turn in viewer.model.turns] == ["turn 0", "turn 1"])
    assert not tab.layout_bar.isVisible()
    viewer.back_button.click()
    assert not tab.area.showing_conversation and tab.layout_bar.isVisible()

    gui.wait(lambda: window.work_dock.panel is not None and bool(window.work_dock.panel.conversation_cards))
    card = window.work_dock.panel.conversation_cards[0]  # a recent conversation, from its log
    assert card.conversation_id == conversation
    click(card, "View conversation")
    assert tab.area.showing_conversation and viewer.title.text() == "You ↔ QA"

    viewer.back_button.click()
    late = ConversationTurn(str(uuid.uuid4()), conversation, 1_781_368_615_590, AgentSource(qa), TurnRole.RESPONSE,
                            "late result", ticket="30000000-0000-4000-8000-000000000001", late=True)
    gui.run(runtime.knowledge.append(late))
    window.work_dock.panel.lateReplyRequested.emit(conversation, late.ticket, "You ↔ QA")  # its "Show"
    assert tab.area.showing_conversation
    gui.wait(lambda: [index.row() for index in viewer.view.selectionModel().selectedRows()] == [2])


def test_the_knowledge_menu_opens_one_window_per_project_kept_current_by_events(gui_factory, tmp_path: Path) -> None:
    gui = gui_factory()
    _, tab = gui.open_new_project(tmp_path)
    runtime = tab.runtime

    for text in ("Memory…", "Skills…", "Project context…"):
        menu_action(gui, "&Knowledge", text).trigger()
    screens = gui.session.windows.knowledge
    assert sorted(w.kind for w in screens.windows()) == ["Memory", "Project context", "Skills"]
    memory = next(w for w in screens.windows() if w.kind == "Memory")
    menu_action(gui, "&Knowledge", "Memory…").trigger()  # raised again, not opened twice
    assert len(screens.windows()) == 3 and memory.windowTitle() == f"Memory — {runtime.name}"
    view = memory.view
    assert isinstance(view, MemoryView)

    gui.run(runtime.knowledge.memory.write("release-checklist", "Run the tests, tag, push."))  # an agent's write
    gui.wait(lambda: view.notes.count() == 1 and view.notes.item(0).text() == "release-checklist")

    gui.session.windows.close_project(runtime.id, confirm=False)
    gui.wait(lambda: not gui.session.windows.knowledge.windows())
    assert not gui.windows[0].findChildren(KnowledgeWindow)
