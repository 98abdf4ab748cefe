"""The human net of a project in another tab of the window (spec 05 §10): the toasts follow the current tab,
so a line under them names the agent of the other tab and takes the person there, where its toast waits."""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtWidgets import QPushButton

from idea.application.agents.placement_rules import InBackground
from tests.ui.gui_support import Gui
from tests.ui.test_knowledge_window import fake_profile


def test_a_net_in_another_tab_is_named_under_the_toasts_and_leads_to_its_tab(gui_factory, tmp_path: Path) -> None:
    gui: Gui = gui_factory()
    profile = fake_profile(gui)
    _, first = gui.open_new_project(tmp_path, "shop")
    _, second = gui.open_new_project(tmp_path, "billing")
    window = gui.windows[0]
    assert {first.project_id, second.project_id} <= set(window.project_ids())
    window.focus_tab(first.project_id)
    runtime = second.runtime
    qa = gui.run(runtime.agents.create("QA", profile.id, "# QA\n")).agent_id
    gui.run(runtime.placement.launch(qa, InBackground()))
    toasts = window.agents_panel.toasts
    assert toasts is not None

    async def limited() -> None:
        runtime.orchestrator.states.limit_seen(qa, None, "You've hit your usage limit")  # type: ignore[union-attr]

    gui.run(limited())
    gui.wait(lambda: toasts.elsewhere_texts() == [f"QA in {second.title} needs you"])
    assert toasts.isVisible() and not toasts.cards()  # the current tab's project has no net
    if shots := os.environ.get("IDEA_TEST_SHOTS"):
        window.resize(1280, 800)
        window.show()
        gui.qtbot.wait(200)
        window.grab().save(str(Path(shots) / "elsewhere-net.png"))

    go = next(b for b in toasts.findChildren(QPushButton) if b.text() == "Go to its tab")
    go.click()
    gui.wait(lambda: window.current_tab() is second)
    gui.wait(lambda: [card.toast.agent_id for card in toasts.cards()] == [qa])  # read back from the core
    assert toasts.elsewhere_texts() == []

    window.focus_tab(first.project_id)
    gui.wait(lambda: toasts.elsewhere_texts() == [f"QA in {second.title} needs you"])
    window.focus_tab(second.project_id)
    gui.wait(lambda: bool(toasts.cards()))
    card = toasts.cards()[0]
    next(b for b in card.findChildren(QPushButton) if b.text() == "Not a limit — dismiss").click()
    gui.wait(lambda: not toasts.cards())
    window.focus_tab(first.project_id)
    gui.wait(lambda: not toasts.isVisible())  # answered: named nowhere
