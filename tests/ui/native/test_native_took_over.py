"""The person takes over in a native cell (spec 05 §9.4): Enter pressed in the cell of an agent whose resume is
armed cancels it (`agentResumeCancelled{reason: "userTookOver"}`), through the same use case as the QTermWidget
cell; what IdeA types itself never counts as the person's Enter."""

from __future__ import annotations

import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import shiboken6
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QVBoxLayout, QWidget
from pytestqt.qtbot import QtBot

from tests.ui.native.conftest import needs_evp  # noqa: I001 - first: the view needs evp

needs_evp(module_level=True)

from idea.application.agents.placement_rules import InBackground
from idea.bootstrap import App, bootstrap
from idea.domain.agent_states.events import AgentResumeCancelled, ResumeCancelReason
from idea.domain.agent_states.session_limit import HOUR_MS
from idea.domain.events import OrchestrationNews
from idea.domain.profile import Profile
from idea.infrastructure.core_loop import CoreLoop
from idea.ui.gui_thread import GuiThread
from idea.ui.terminal.appearance import TerminalAppearance
from idea.ui.terminal.native.session import NativeTerminalFactory
from tests.contract.terminal_contract import shell, wait_for_screen
from tests.ui.agent_support import FIXTURES
from tests.ui.native.conftest import make_terminal, on_core

SILENT_CLI = FIXTURES / "silent_agent_cli.py"
READY = "Silent agent CLI ready"
WAIT_MS = 15_000


def shown(view: QWidget, qtbot: QtBot) -> QWidget:
    window = QWidget()
    QVBoxLayout(window).setContentsMargins(0, 0, 0, 0)
    window.layout().addWidget(view)
    window.resize(800, 400)
    window.show()
    qtbot.waitExposed(window)
    return window


def test_enter_pressed_in_the_cell_is_reported_and_idea_typing_is_not(
    factory: Any, core: CoreLoop, qtbot: QtBot, tmp_path: Path
) -> None:
    terminal = make_terminal(factory)
    on_core(qtbot, core, terminal.start(shell("stty -echo; printf 'ready\\n'; exec cat", tmp_path)))
    view = factory.view_for(terminal.session_id)
    window = shown(view, qtbot)
    on_core(qtbot, core, wait_for_screen(terminal, "ready"))
    pressed: list[None] = []
    terminal.on_line_submitted(pressed.append)

    on_core(qtbot, core, terminal.write_text("typed by IdeA\r"))
    qtbot.keyClicks(view.display, "mine")
    qtbot.wait(100)
    assert pressed == []
    qtbot.keyClick(view.display, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: pressed == [None], timeout=WAIT_MS)

    on_core(qtbot, core, terminal.terminate(grace_ms=500))
    factory.park(view)
    shiboken6.delete(window)


@pytest.fixture
def native_app(qtbot: QtBot, tmp_path: Path) -> Iterator[tuple[App, list[NativeTerminalFactory]]]:
    """IdeA with native cells, as with IDEA_TERMINAL=native."""
    gui = GuiThread()
    made: list[NativeTerminalFactory] = []

    def native(loop: Any) -> NativeTerminalFactory:
        made.append(NativeTerminalFactory(gui, loop, TerminalAppearance()))
        return made[-1]

    app = bootstrap(data_dir=tmp_path / "data", terminals=native)
    try:
        yield app, made
    finally:
        app.shutdown(wait=lambda closing: qtbot.waitUntil(closing.done, timeout=WAIT_MS))
        for terminals in made:
            terminals.close()
            shiboken6.delete(terminals.parking_lot)


def test_enter_in_a_native_agent_cell_cancels_its_armed_resume(
    native_app: tuple[App, list[NativeTerminalFactory]], qtbot: QtBot, tmp_path: Path
) -> None:
    app, (terminals,) = native_app
    core = app.core
    profile = Profile.from_json({
        "id": str(uuid.uuid4()), "name": "Silent CLI", "command": sys.executable, "args": [str(SILENT_CLI)],
        "contextInjection": {"strategy": "conventionFile", "target": "AGENTS.md"}, "promptReadyPattern": READY,
    })

    async def prepare() -> Any:
        app.profiles.save_profile(profile)
        project = tmp_path / "project"
        project.mkdir()
        return await app.projects.open(str(project))

    runtime = on_core(qtbot, core, prepare())
    scout = on_core(qtbot, core, runtime.agents.create("Scout", profile.id, "# Scout\n")).agent_id
    live = on_core(qtbot, core, runtime.placement.launch(scout, InBackground()))
    view = terminals.view_for(live.session_id)
    window = shown(view, qtbot)
    on_core(qtbot, core, wait_for_screen(live.terminal, READY))
    cancelled: list[AgentResumeCancelled] = []
    app.events.subscribe(
        lambda news: cancelled.append(news.event)
        if isinstance(news, OrchestrationNews) and isinstance(news.event, AgentResumeCancelled) else None
    )
    states = runtime.orchestrator.states

    async def limited() -> int | None:
        states.limit_seen(scout, runtime.clock.now_ms() + HOUR_MS, "usage limit reached")
        return states.limits.armed_fire_at(scout)

    async def armed() -> int | None:
        return states.limits.armed_fire_at(scout)

    assert on_core(qtbot, core, limited()) is not None
    on_core(qtbot, core, live.terminal.write_text("typed by IdeA\r"))  # never the person's Enter
    qtbot.wait(100)
    assert on_core(qtbot, core, armed()) is not None and cancelled == []

    view.focus_terminal()
    qtbot.keyClicks(view.display, "I'll handle it")
    qtbot.keyClick(view.display, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: bool(cancelled), timeout=WAIT_MS)
    assert cancelled == [AgentResumeCancelled(scout, ResumeCancelReason.USER_TOOK_OVER)]
    assert on_core(qtbot, core, armed()) is None

    terminals.park(view)
    shiboken6.delete(window)
