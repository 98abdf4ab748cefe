"""The Agents panel at a narrow width: rows take the panel's width, the state beside each name stays whole,
nothing scrolls sideways; an agent on a reference profile the person never stored shows that profile."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from idea.domain.profile import reference_profile_id
from idea.ui.agents.agents_panel import AgentsPanel
from tests.ui.agent_support import WAIT_MS, BootstrappedApp, RecordingHost, bootstrapped_app


@pytest.fixture
def world(qtbot: QtBot, tmp_path: Path) -> Iterator[BootstrappedApp]:
    yield from bootstrapped_app(qtbot, tmp_path)


def test_a_narrow_panel_shows_each_state_whole_and_never_scrolls_sideways(world: BootstrappedApp, qtbot: QtBot) -> None:
    runtime = world.open_project()
    for name in ("Main", "A reviewer with a rather long name"):
        world.on_core(runtime.agents.create(name, reference_profile_id("codex"), "# Role\n"))
    panel = AgentsPanel(world.client, world.app.profiles, world.app.templates, RecordingHost())
    qtbot.addWidget(panel)
    world.relay.published.connect(panel.on_event)
    panel.set_project(runtime)
    panel.resize(160, 500)
    panel.show()
    qtbot.waitUntil(lambda: len(panel.rows()) == 2, timeout=WAIT_MS)

    listing = panel.team.list
    viewport = listing.viewport().width()
    qtbot.waitUntil(lambda: listing.visualRect(listing.model().index(1, 0)).width() > 0, timeout=WAIT_MS)
    for row in range(listing.count()):
        rect = listing.visualRect(listing.model().index(row, 0))
        assert rect.left() >= 0 and rect.right() < viewport, (rect, viewport)  # the right-aligned state is inside
    assert not listing.horizontalScrollBar().isVisible()
    assert [r.profile_name for r in panel.rows()] == ["Codex", "Codex"]  # shipped with IdeA, never "missing"
    assert not any(r.profile_missing for r in panel.rows())
