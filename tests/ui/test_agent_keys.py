"""The keys of a person typing to an agent: Shift+Enter types the profile's newline sequence (a new line in
the prompt, not a submit), and "Deliver now (clears your line)" really clears what they had typed."""

from __future__ import annotations

import sys
import uuid
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from idea.application.agents.placement_rules import InCell
from idea.domain.orchestration.commands import Human, Source, SubmitHumanInput
from idea.domain.profile import Profile

ECHO_CLI = Path(__file__).resolve().parents[1] / "fixtures" / "agents" / "fake_agent_cli.py"
NEWLINE_MARK = "<NL>"  # what this profile's CLI takes for a new line in its prompt


@pytest.fixture
def short_delivery_timings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("IDEA_KEYSTROKE_QUIET_MS", "150")
    monkeypatch.setenv("IDEA_OVERLAY_FLOOR_MS", "300")
    monkeypatch.setenv("IDEA_SUBMIT_VERIFY_MS", "200")
    monkeypatch.setenv("IDEA_COLD_START_SETTLE_MS", "50")


def agent_in_a_cell(gui_factory, tmp_path: Path):  # noqa: ANN001, ANN201
    gui = gui_factory()
    _, tab = gui.open_new_project(tmp_path)
    [cell] = gui.wait_for_shells(tab, 1)
    profile = Profile.from_json({
        "id": str(uuid.uuid4()), "name": "Echo CLI", "command": sys.executable, "args": [str(ECHO_CLI)],
        "contextInjection": {"strategy": "conventionFile", "target": "AGENTS.md"},
        "submitDelayMs": 50, "promptReadyPattern": "Fake agent CLI ready", "newlineSequence": NEWLINE_MARK,
    })

    async def prepare() -> str:
        gui.session.app.profiles.save_profile(profile)
        agent = await tab.runtime.agents.create("Scout", profile.id, "# Role\n")
        await tab.runtime.close_cell(cell.leaf_id, stop_session=True)
        return agent.agent_id

    agent_id = gui.run(prepare())
    gui.run(tab.runtime.placement.launch(agent_id, InCell(gui.leaves(tab)[0].id)))
    gui.wait(lambda: gui.cell(tab, 0).view is not None and "Fake agent CLI ready" in gui.screen(gui.cell(tab, 0)))
    agent_cell = gui.cell(tab, 0)
    portal = gui.session.terminals.portal_for(agent_cell.session.id)
    assert portal is not None
    return gui, tab, agent_cell, portal


def test_shift_enter_types_the_profiles_newline_sequence(gui_factory, qtbot, tmp_path: Path) -> None:  # noqa: ANN001
    gui, _tab, cell, portal = agent_in_a_cell(gui_factory, tmp_path)
    proxy = cell.view.terminal.focusProxy()

    qtbot.keyClicks(proxy, "first")
    qtbot.keyClick(proxy, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    qtbot.keyClicks(proxy, "second")
    assert portal.pending_human_chars() == len("first") + 1 + len("second")  # still one draft
    qtbot.keyClick(proxy, Qt.Key.Key_Return)

    gui.wait(lambda: f"received: first{NEWLINE_MARK}second" in gui.screen(cell))
    assert "received: first\n" not in gui.screen(cell) + "\n"


def test_shift_enter_in_a_shell_is_an_enter(gui_factory, tmp_path: Path, qtbot) -> None:  # noqa: ANN001
    gui = gui_factory()
    _, tab = gui.open_new_project(tmp_path)
    [cell] = gui.wait_for_shells(tab, 1)
    proxy = cell.view.terminal.focusProxy()

    qtbot.keyClicks(proxy, "echo shift-$((40+2))")
    qtbot.keyClick(proxy, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)

    gui.wait(lambda: "shift-42" in gui.screen(cell))


def test_deliver_now_clears_the_persons_line_before_typing_the_task(
    gui_factory, qtbot, tmp_path: Path, short_delivery_timings: None  # noqa: ANN001
) -> None:
    gui, tab, cell, portal = agent_in_a_cell(gui_factory, tmp_path)
    proxy = cell.view.terminal.focusProxy()
    qtbot.keyClicks(proxy, "half")
    gui.session.client.call(tab.runtime.orchestrator.dispatch(Human(), SubmitHumanInput("Scout", "task one"), Source.UI))

    def waiting_ticket() -> str | None:
        queues = tab.runtime.orchestrator.queue_snapshots()
        return next((t.ticket_id for q in queues for t in q.tickets), None)

    gui.wait(lambda: waiting_ticket() is not None)
    assert not portal.suspended  # the task waits for the person's line
    gui.run(tab.runtime.requests.deliver_now(waiting_ticket()))

    gui.wait(lambda: "received: task one" in gui.screen(cell))
    assert "half" not in gui.screen(cell).replace("received: task one", "")
    gui.wait(lambda: not portal.suspended)
    assert portal.pending_human_chars() == 0
