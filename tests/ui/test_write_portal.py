"""Delivering a task into a terminal a person is typing in: the write portal waits for the line, holds the
person's keys while the task is typed, says so, and lets go after its floor."""

from __future__ import annotations

import sys
import time
import uuid
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from idea.application.agents.placement_rules import InCell
from idea.domain.orchestration.commands import Human, Source, SubmitHumanInput
from idea.domain.profile import Profile

ECHO_CLI = Path(__file__).resolve().parents[1] / "fixtures" / "agents" / "fake_agent_cli.py"
OVERLAY_FLOOR_MS = 800


@pytest.fixture
def short_delivery_timings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("IDEA_KEYSTROKE_QUIET_MS", "150")
    monkeypatch.setenv("IDEA_OVERLAY_FLOOR_MS", str(OVERLAY_FLOOR_MS))
    monkeypatch.setenv("IDEA_SUBMIT_VERIFY_MS", "200")
    monkeypatch.setenv("IDEA_COLD_START_SETTLE_MS", "50")


def test_a_task_waits_for_the_persons_line_then_holds_their_keys(
    gui_factory, qtbot, tmp_path: Path, short_delivery_timings: None
) -> None:
    gui = gui_factory()
    _, tab = gui.open_new_project(tmp_path)
    [cell] = gui.wait_for_shells(tab, 1)
    app = gui.session.app
    profile = Profile.from_json(
        {
            "id": str(uuid.uuid4()),
            "name": "Echo CLI",
            "command": sys.executable,
            "args": [str(ECHO_CLI)],
            "contextInjection": {"strategy": "conventionFile", "target": "AGENTS.md"},
            "submitDelayMs": 50,
            "promptReadyPattern": "Fake agent CLI ready",
        }
    )

    async def prepare() -> str:
        app.profiles.save_profile(profile)
        agent = await tab.runtime.agents.create("Scout", profile.id, "# Role\n")
        await tab.runtime.close_cell(cell.leaf_id, stop_session=True)
        return agent.agent_id

    agent_id = gui.run(prepare())
    leaf = gui.leaves(tab)[0].id
    gui.run(tab.runtime.placement.launch(agent_id, InCell(leaf)))
    gui.wait(lambda: gui.cell(tab, 0).view is not None and "Fake agent CLI ready" in gui.screen(gui.cell(tab, 0)))
    agent_cell = gui.cell(tab, 0)
    proxy = agent_cell.view.terminal.focusProxy()
    portal = gui.session.terminals.portal_for(agent_cell.session.id)
    assert portal is not None

    # The person has half a command on the line: the task waits.
    qtbot.keyClicks(proxy, "half")
    assert portal.pending_human_chars() == 4
    gui.session.client.call(
        tab.runtime.orchestrator.dispatch(Human(), SubmitHumanInput("Scout", "task one"), Source.UI)
    )
    qtbot.wait(600)  # longer than the keystroke quiet time: only the pending line holds the task back
    assert not portal.suspended
    assert "task one" not in gui.screen(agent_cell)

    # The person clears the line: the task goes, their keys are held meanwhile, the overlay says why.
    qtbot.keyClick(proxy, Qt.Key.Key_U, Qt.KeyboardModifier.ControlModifier)
    gui.wait(lambda: portal.suspended)
    held_since = time.monotonic()
    assert agent_cell.view.findChild(type(portal._overlay), "AgentTypingOverlay").isVisible()
    qtbot.keyClicks(proxy, "zzz")
    gui.wait(lambda: not portal.suspended)
    assert (time.monotonic() - held_since) * 1000 >= OVERLAY_FLOOR_MS - 100
    gui.wait(lambda: "received: task one" in gui.screen(agent_cell))
    assert "zzz" not in gui.screen(agent_cell)

    # Keys reach the program again once the portal let go.
    qtbot.keyClicks(proxy, "after")
    qtbot.keyClick(proxy, Qt.Key.Key_Return)
    gui.wait(lambda: "received: after" in gui.screen(agent_cell))
