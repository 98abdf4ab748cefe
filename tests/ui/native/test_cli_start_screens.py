"""The recorded start screens of claude, codex and gemini (tests/fixtures/cli_screens), replayed through the native
cell and through the QTermWidget cell in the same test: the screen text must be the same, the colours and
modes what the CLIs asked for. Each replay also saves a screenshot of the native cell (screenshots/ under the
test's folder) to look at.

The recording is `cat` to a raw, non-echoing terminal, so the bytes reach each emulator exactly as the CLI
wrote them; the terminals' answers to the recorded queries go to `cat`'s input and are dropped.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import shiboken6
from PySide6.QtWidgets import QVBoxLayout, QWidget
from pytestqt.qtbot import QtBot

from tests.ui.native.conftest import needs_evp  # noqa: I001 - first: the view needs evp

needs_evp(module_level=True)

from idea.infrastructure.core_loop import CoreLoop
from idea.ui.gui_thread import GuiThread
from idea.ui.terminal.appearance import TerminalAppearance
from idea.ui.terminal.native.view import MARGIN
from tests.conftest import FIXTURES
from tests.contract.terminal_contract import shell, wait_for_screen, wait_until
from tests.fixtures.cli_screens.replay import COLUMNS, LINES, REPLAYED_TITLE, replay_script
from tests.ui.native.conftest import make_terminal, on_core

SCREENS = FIXTURES / "cli_screens"
# What each start screen shows, and a cell whose colour the CLI set in truecolor.
EXPECTED = {
    "claude": ("Welcome to Claude Code", ("Welcome", (215, 119, 87))),
    "codex": ("Sign in with ChatGPT", None),
    "gemini": ("Do you trust the files in this folder?", ("Do you trust", (255, 255, 255))),
}


def replayed_screen(factory: Any, core: CoreLoop, qtbot: QtBot, cli: str, marker: str) -> tuple[Any, str]:
    """Start the replay in a new terminal of `factory`; (the terminal, its screen once `marker` shows)."""
    terminal = make_terminal(factory)
    titles: list[str] = []
    terminal.on_title(titles.append)
    on_core(qtbot, core, terminal.start(shell(replay_script(cli), SCREENS, columns=COLUMNS, lines=LINES)))

    async def replayed() -> str:
        await wait_until(lambda: REPLAYED_TITLE in titles, what="the whole recording")
        return await wait_for_screen(terminal, marker)

    return terminal, on_core(qtbot, core, replayed())


@pytest.fixture
def qtermwidget_factory(qtbot: QtBot, core: CoreLoop) -> Any:
    from idea.ui.terminal.qtermwidget_terminal import QtTerminalFactory

    terminals = QtTerminalFactory(GuiThread(), core.loop, TerminalAppearance())
    yield terminals
    terminals.close()
    shiboken6.delete(terminals.parking_lot)


@pytest.mark.parametrize("cli", list(EXPECTED))
def test_start_screen_reads_back_as_in_qtermwidget_with_the_clis_colours(
    cli: str, factory: Any, qtermwidget_factory: Any, core: CoreLoop, qtbot: QtBot, tmp_path: Path
) -> None:
    marker, coloured = EXPECTED[cli]
    native, native_screen = replayed_screen(factory, core, qtbot, cli, marker)
    reference, reference_screen = replayed_screen(qtermwidget_factory, core, qtbot, cli, marker)
    try:
        assert native_screen.split("\n") == reference_screen.split("\n")
        view = factory.view_for(native.session_id)
        if coloured is not None:
            text, colour = coloured
            assert cell_foreground(view, text) == colour
        if cli == "codex":
            assert view.screen.mode(1049), "Codex draws on the alternate screen"
            assert view.screen.mode(2004), "Codex asked for bracketed paste"
        save_screenshot(view, factory, qtbot, tmp_path / "screenshots" / f"{cli}.png")
    finally:
        on_core(qtbot, core, native.terminate(grace_ms=500))
        on_core(qtbot, core, reference.terminate(grace_ms=500))


def cell_foreground(view: Any, text: str) -> tuple[int, int, int]:
    """The foreground colour of the first cell of the first occurrence of `text` on the screen."""
    frame = view.screen.frame()
    for y, row in enumerate(view.screen.text_rows()):
        column = row.find(text)
        if column >= 0:
            style = frame.rows[y].styles[_cell_index(frame.rows[y], column)]
            return view.screen.style(style).foreground
    raise AssertionError(f"{text!r} is not on the screen")


def _cell_index(row: Any, text_index: int) -> int:
    """The column of the `text_index`-th character of the row's text (wide characters take two columns)."""
    seen = 0
    for column, width in enumerate(row.widths):
        if width == 0:
            continue
        if seen == text_index:
            return column
        seen += 1
    raise IndexError(text_index)


def save_screenshot(view: Any, factory: Any, qtbot: QtBot, path: Path) -> Path:
    """The view shown in a window of its grid size, painted and saved as PNG; then parked again."""
    window = QWidget()
    QVBoxLayout(window).setContentsMargins(0, 0, 0, 0)
    window.layout().addWidget(view)
    metrics = view.metrics
    window.resize(COLUMNS * metrics.width + 2 * MARGIN, LINES * metrics.height + 2 * MARGIN)
    window.show()
    qtbot.waitExposed(window)
    qtbot.waitUntil(lambda: view.grid_size() == (COLUMNS, LINES))
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        assert window.grab().save(str(path), "PNG")
    finally:
        factory.park(view)
        shiboken6.delete(window)
    return path
