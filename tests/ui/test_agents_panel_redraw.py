"""The Agents panel draws the core's events in gathered redraws: one ask publishes about a dozen events, and
redrawing the whole list for each held the GUI thread (and so the core loop, behind the interpreter) for
milliseconds per ask."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from idea.domain.events import OrchestrationNews
from idea.domain.orchestration_events import BridgeStateChanged
from idea.ui.agents.agents_panel import EVENT_REDRAW_MS
from tests.ui.test_agent_queue import (  # noqa: F401 - fixtures reused as they are
    Setup,
    new_agent,
    quick_delivery,
    setup,
    wait,
    world,
)


def test_a_burst_of_core_events_is_drawn_once_and_its_last_state_shows(setup: Setup, qtbot: QtBot) -> None:
    s = setup
    scout = new_agent(s, qtbot, "Scout")
    drawn: list[int] = []
    show_rows = s.panel.team.show_rows
    s.panel.team.show_rows = lambda *args, **kwargs: (drawn.append(1), show_rows(*args, **kwargs))[1]  # type: ignore[method-assign]
    for index in range(20):
        s.panel.on_event(OrchestrationNews(s.runtime.id, BridgeStateChanged(scout, connected=index % 2 == 1)))
    assert drawn == []  # nothing drawn while the burst lasts
    qtbot.wait(EVENT_REDRAW_MS * 4)
    assert len(drawn) == 1
    assert s.panel.model.activity.of(scout).bridge_connected  # the last event's state
