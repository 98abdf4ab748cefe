"""The line under a project's grid: its folder, its terminals (agents among them, those in the background) and
whether its agents can reach IdeA, with where in the tooltip (spec 01 §3)."""

from __future__ import annotations

from pathlib import Path

from idea.application.agents.placement_rules import InBackground
from tests.ui.gui_support import Gui
from tests.ui.test_knowledge_window import fake_profile


def test_the_status_line_says_what_runs_and_where_agents_reach_idea(gui_factory, tmp_path: Path) -> None:
    gui: Gui = gui_factory()
    profile = fake_profile(gui)
    project, tab = gui.open_new_project(tmp_path)
    gui.wait_for_shells(tab, 1)
    runtime = tab.runtime
    doors = runtime.doors.state()
    assert doors.endpoint is not None and doors.hook_url is not None
    gui.wait(lambda: tab.status_line.text() == f"{project}  ·  1 terminal running  ·  MCP ● listening")
    assert tab.status_line.toolTip() == f"Agents reach IdeA at {doors.endpoint}; hooks at {doors.hook_url}"

    qa = gui.run(runtime.agents.create("QA", profile.id, "# QA\n")).agent_id
    gui.run(runtime.placement.launch(qa, InBackground()))
    gui.wait(lambda: tab.status_line.text() == (
        f"{project}  ·  2 terminals running (1 agent)  ·  1 in the background  ·  MCP ● listening"
    ))
