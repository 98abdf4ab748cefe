"""Quitting IdeA while the resume offer is open: nothing is resumed or declined behind the person's back and
no callback reaches the deleted dialog."""

from __future__ import annotations

import sys
import uuid
from pathlib import Path

from PySide6.QtWidgets import QApplication

from idea.application.agents.placement_rules import InCell
from idea.domain.profile import Profile
from idea.ui.agents.resume_dialog import ResumeDialog
from tests.ui.agent_support import FAKE_CLI
from tests.ui.gui_support import new_project


def open_dialogs() -> list[ResumeDialog]:
    return [w for w in QApplication.topLevelWidgets() if isinstance(w, ResumeDialog) and w.isVisible()]


def test_quitting_with_the_resume_offer_open_keeps_the_offer_for_next_time(
    gui_factory, qtbot, tmp_path: Path  # noqa: ANN001
) -> None:
    project = new_project(tmp_path)
    first = gui_factory()
    first.restore([project])
    tab = first.tab(project)
    profile = Profile.from_json({
        "id": str(uuid.uuid4()), "name": "Fake CLI", "command": sys.executable, "args": [str(FAKE_CLI)],
        "contextInjection": {"strategy": "conventionFile", "target": "AGENTS.md"},
    })

    async def launch() -> None:
        first.session.app.profiles.save_profile(profile)
        agent = await tab.runtime.agents.create("Scout", profile.id, "# Role\n")
        await tab.runtime.placement.launch(agent.agent_id, InCell(first.leaves(tab)[0].id))

    first.run(launch())
    first.close()

    second = gui_factory()
    second.restore([])
    second.wait(lambda: len(open_dialogs()) == 1)
    second.close()  # quits with the offer open
    qtbot.wait(300)  # answers of the core to a declined offer would reach the deleted dialog now

    third = gui_factory()
    third.restore([])
    third.tab(project)
    third.wait(lambda: len(open_dialogs()) == 1)  # not answered: offered again
    assert [c.name for c in open_dialogs()[0].candidates] == ["Scout"]
