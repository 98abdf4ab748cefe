"""The real agent CLIs (npm packages) started in the native cell, offline and without credentials: each draws its
start screen (UI-7), Gemini's trust dialog follows the Down key, Codex draws on the alternate screen. A
screenshot of each is saved under the test's folder. Every process a CLI started ends with the test."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from tests.ui.native.conftest import needs_evp  # noqa: I001 - first: the view needs evp

needs_evp(module_level=True)

from idea.infrastructure.core_loop import CoreLoop
from tests.contract.terminal_contract import spawn_spec, wait_for_screen
from tests.realcli.conftest import cli_home, require_cli  # noqa: F401 - fixtures reused as they are
from tests.ui.conftest import quiet_home  # noqa: F401
from tests.ui.native.conftest import make_terminal, on_core
from tests.ui.native.test_cli_start_screens import save_screenshot

pytestmark = pytest.mark.realcli

START_TIMEOUT_S = 60.0


def start_cli(factory: Any, core: CoreLoop, qtbot: QtBot, argv: list[str], project: Path, marker: str) -> Any:
    terminal = make_terminal(factory)
    on_core(qtbot, core, terminal.start(spawn_spec(argv, project)))
    on_core(qtbot, core, wait_for_screen(terminal, marker, START_TIMEOUT_S), timeout_ms=int(START_TIMEOUT_S * 1000) + 5000)
    return terminal


@pytest.fixture
def project(cli_home: Path, tmp_path: Path) -> Path:  # noqa: F811
    folder = tmp_path / "project"
    folder.mkdir()
    return folder


def gemini_follows_the_down_key(view: Any, qtbot: QtBot) -> None:
    assert "● 1. Trust folder" in view.screen_text()
    qtbot.keyClick(view.display, Qt.Key.Key_Down)
    qtbot.waitUntil(lambda: "● 2. Trust parent folder" in view.screen_text(), timeout=10_000)


def codex_is_on_the_alternate_screen(view: Any, qtbot: QtBot) -> None:
    assert view.screen.mode(1049)


# The CLI, what its start screen shows, and what else to check on it.
CLIS: dict[str, tuple[str, Callable[[Any, QtBot], None] | None]] = {
    "gemini": ("Do you trust the files in this folder?", gemini_follows_the_down_key),
    "codex": ("Sign in with ChatGPT", codex_is_on_the_alternate_screen),
    "claude": ("Claude Code", None),
}


@pytest.mark.parametrize("cli", list(CLIS))
def test_start_screen(
    cli: str,
    require_cli: Callable[[str], str],  # noqa: F811
    project: Path,
    factory: Any,
    core: CoreLoop,
    qtbot: QtBot,
    tmp_path: Path,
) -> None:
    marker, check = CLIS[cli]
    terminal = start_cli(factory, core, qtbot, [require_cli(cli)], project, marker)
    try:
        view = factory.view_for(terminal.session_id)
        if check is not None:
            check(view, qtbot)
        save_screenshot(view, factory, qtbot, tmp_path / "screenshots" / f"{cli}.png")
    finally:
        on_core(qtbot, core, terminal.terminate(grace_ms=1000))
