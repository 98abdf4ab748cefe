"""The human net in the real window (spec 05 §10): an agent in the background that IdeA cannot resume by
itself raises a non-modal toast over the grid and an entry in the work panel, never a modal dialog."""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtWidgets import QApplication, QDialog, QMessageBox

from idea.application.agents.placement_rules import InBackground
from idea.application.knowledge.agent_state_entries import SUSPECTED
from tests.ui.gui_support import Gui
from tests.ui.test_knowledge_window import fake_profile


def test_a_limit_without_a_reset_is_a_toast_over_the_grid_and_a_work_panel_entry(gui_factory, tmp_path: Path) -> None:
    gui: Gui = gui_factory()
    profile = fake_profile(gui)
    _, tab = gui.open_new_project(tmp_path)
    runtime, window = tab.runtime, gui.windows[0]
    window.resize(1280, 800)
    window.show()
    qa = gui.run(runtime.agents.create("QA", profile.id, "# QA\n")).agent_id
    gui.run(runtime.placement.launch(qa, InBackground()))
    toasts = window.agents_panel.toasts
    assert toasts is not None and not toasts.isVisible()

    async def limit_without_reset() -> None:
        runtime.orchestrator.states.limit_seen(qa, None, "You've hit your usage limit")  # type: ignore[union-attr]

    gui.run(limit_without_reset())
    gui.wait(lambda: len(toasts.cards()) == 1)
    (card,) = toasts.cards()
    assert "QA seems blocked by a usage limit" in card.label.text() and toasts.isVisible()
    over = toasts.parentWidget()  # the grid's place in the window, under the notice area
    assert window.centralWidget().isAncestorOf(over) and over.rect().contains(toasts.geometry())
    assert QApplication.activeModalWidget() is None
    assert not window.findChildren(QDialog) and not window.findChildren(QMessageBox)
    dock = window.work_dock
    gui.wait(lambda: dock.panel is not None and any(
        label.text() == SUSPECTED for c in dock.panel.agent_cards if c.agent_id == qa for label in c.findChildren(type(card.label))
    ))
    shot = Path(os.environ.get("IDEA_TEST_SHOTS", tmp_path)) / "human-net-toast.png"
    window.grab().save(str(shot))

    card.close_button.click()  # hidden here, still listed under Needs you and in the work panel
    gui.wait(lambda: not toasts.isVisible())
    assert window.agents_panel.needs_you.entry_texts()
