"""The Agents panel draws the core's events in gathered redraws: one ask publishes about a dozen events, and
redrawing the whole list for each held the GUI thread (and so the core loop, behind the interpreter) for
milliseconds per ask."""

from __future__ import annotations

from dataclasses import replace

from pytestqt.qtbot import QtBot

from idea.application.agents.agent_rows import AgentState

from idea.domain.events import LayoutChanged, OrchestrationNews
from idea.domain.orchestration.events import BridgeStateChanged
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


def test_the_project_events_are_gathered_too(setup: Setup, qtbot: QtBot) -> None:
    s = setup
    new_agent(s, qtbot, "Scout")
    qtbot.wait(EVENT_REDRAW_MS * 4)
    drawn: list[int] = []
    show_rows = s.panel.team.show_rows
    s.panel.team.show_rows = lambda *args, **kwargs: (drawn.append(1), show_rows(*args, **kwargs))[1]  # type: ignore[method-assign]
    document = s.panel.model.document
    assert document is not None
    for _ in range(10):
        s.panel.on_event(LayoutChanged(s.runtime.id, document))
    assert drawn == []
    qtbot.wait(EVENT_REDRAW_MS * 4)
    assert len(drawn) == 1


def test_a_redraw_that_changes_no_row_sets_no_item_data_and_lays_nothing_out(setup: Setup, qtbot: QtBot) -> None:
    s = setup
    new_agent(s, qtbot, "Scout")
    qtbot.wait(EVENT_REDRAW_MS * 4)
    model = s.panel.team.list.model()
    touched: list[object] = []
    model.dataChanged.connect(lambda *args: touched.append(args))
    layouts: list[int] = []
    do_items_layout = s.panel.team.list.doItemsLayout
    s.panel.team.list.doItemsLayout = lambda: (layouts.append(1), do_items_layout())[1]  # type: ignore[method-assign]

    s.panel._render()

    assert (touched, layouts) == ([], [])
    [row] = s.panel.rows()
    now = s.runtime.clock.now_ms()
    s.panel.team.show_rows([replace(row, name="Scout II")], now, None)
    assert touched and layouts == []  # drawn; its lines are the same, so nothing is laid out again
    assert s.panel.team.list.item(0).text() == "Scout II"
    asked = replace(row, state=AgentState.RUNNING, activity=replace(row.activity, attention="input"))
    s.panel.team.show_rows([asked], now, None)
    assert layouts == [1]  # it grew the line that says why it needs the person
