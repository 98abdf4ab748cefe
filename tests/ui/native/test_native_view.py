"""The native cell as a person uses it: keys, paste, mouse and focus reports reach the program (read back with
`cat -v`), scrollback, selection and find, the parking lot, moving between cells, and the end of the program."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import psutil
import pytest
import shiboken6
from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QFocusEvent, QGuiApplication, QWheelEvent
from PySide6.QtWidgets import QVBoxLayout, QWidget
from pytestqt.qtbot import QtBot

from tests.ui.native.conftest import needs_evp  # noqa: I001 - first: the view needs evp

needs_evp(module_level=True)

from idea.infrastructure.core_loop import CoreLoop
from idea.ui.terminal.native.view import MARGIN
from tests.contract.terminal_contract import shell, spawn_spec, wait_for_screen
from tests.ui.accessibility import accessible_name
from tests.ui.native.conftest import make_terminal, on_core

CAT_V = "stty -echo; printf 'ready\\n'; exec cat -v"


class Cell:
    """A started native terminal shown in a window, as in a grid cell."""

    def __init__(self, factory: Any, core: CoreLoop, qtbot: QtBot, spec: Any, *, show: bool = True) -> None:
        self.factory, self.core, self.qtbot = factory, core, qtbot
        self.terminal = make_terminal(factory)
        self.pid = on_core(qtbot, core, self.terminal.start(spec))
        self.view = factory.view_for(self.terminal.session_id)
        self.window: QWidget | None = None
        if show:
            self.window = QWidget()
            QVBoxLayout(self.window).setContentsMargins(0, 0, 0, 0)
            self.window.layout().addWidget(self.view)
            self.window.resize(900, 500)
            self.window.show()
            qtbot.waitExposed(self.window)
            self.view.focus_terminal()

    def wait_for(self, text: str) -> str:
        return on_core(self.qtbot, self.core, wait_for_screen(self.terminal, text))

    def point(self, column: int, line: int) -> QPoint:
        metrics, margin = self.view.metrics, MARGIN
        return QPoint(margin + column * metrics.width + metrics.width // 2, margin + line * metrics.height + metrics.height // 2)

    def close(self) -> None:
        on_core(self.qtbot, self.core, self.terminal.terminate(grace_ms=500))
        if self.window is not None and shiboken6.isValid(self.view):
            self.factory.park(self.view)
            shiboken6.delete(self.window)


@pytest.fixture
def cells(factory: Any, core: CoreLoop, qtbot: QtBot) -> Any:
    made: list[Cell] = []

    def make(spec: Any, *, show: bool = True) -> Cell:
        made.append(Cell(factory, core, qtbot, spec, show=show))
        return made[-1]

    yield make
    for cell in made:
        cell.close()


def test_keys_the_clis_need_reach_the_program(cells: Any, qtbot: QtBot, tmp_path: Path) -> None:
    cell = cells(shell(CAT_V + "T", tmp_path))  # -T: a tab shows as ^I
    cell.wait_for("ready")
    for key in (Qt.Key.Key_Tab, Qt.Key.Key_Backtab, Qt.Key.Key_Up, Qt.Key.Key_Escape):
        qtbot.keyClick(cell.view.display, key)
    qtbot.keyClicks(cell.view.display, "typed")
    qtbot.keyClick(cell.view.display, Qt.Key.Key_Return)
    assert "^I^[[Z^[[A^[typed" in cell.wait_for("typed")


def test_shift_enter_types_the_newline_sequence_of_an_agent_and_is_an_enter_elsewhere(
    cells: Any, qtbot: QtBot, tmp_path: Path
) -> None:
    from dataclasses import replace

    agent = cells(replace(shell(CAT_V, tmp_path), shift_enter="\x1b\r"))
    agent.wait_for("ready")
    qtbot.keyClicks(agent.view.display, "one")
    qtbot.keyClick(agent.view.display, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    qtbot.keyClicks(agent.view.display, "two")
    qtbot.keyClick(agent.view.display, Qt.Key.Key_Return)
    assert "one^[" in agent.wait_for("two")  # ESC then CR: cat -v shows the escape, the CR ends the line
    plain = cells(shell(CAT_V, tmp_path))
    plain.wait_for("ready")
    qtbot.keyClicks(plain.view.display, "three")
    qtbot.keyClick(plain.view.display, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    assert "^[" not in plain.wait_for("three\n")


def test_a_paste_is_bracketed_when_the_program_asks(cells: Any, qtbot: QtBot, tmp_path: Path) -> None:
    # UI-8
    cell = cells(shell("stty -echo; printf '\\033[?2004hready\\n'; exec cat -v", tmp_path))
    cell.wait_for("ready")
    pasted: list[str] = []
    cell.view.pasting.connect(pasted.append)
    QGuiApplication.clipboard().setText("PASTED")
    cell.view.paste()
    qtbot.keyClick(cell.view.display, Qt.Key.Key_Return)
    cell.wait_for("^[[200~PASTED^[[201~")
    assert pasted == ["PASTED"]
    cell.view.set_paste_blocked(True)
    cell.view.paste()
    assert pasted == ["PASTED"]


def test_mouse_clicks_are_reported_when_the_program_asks(cells: Any, qtbot: QtBot, tmp_path: Path) -> None:
    # UI-8: SGR mouse reporting, a click on column 5 of line 2.
    cell = cells(shell("stty -echo; printf '\\033[?1000h\\033[?1006hready\\n'; exec cat -v", tmp_path))
    cell.wait_for("ready")
    qtbot.mouseClick(cell.view.display, Qt.MouseButton.LeftButton, pos=cell.point(4, 1))
    qtbot.keyClick(cell.view.display, Qt.Key.Key_Return)
    cell.wait_for("^[[<0;5;2M^[[<0;5;2m")


def test_focus_changes_are_reported_when_the_program_asks(cells: Any, qtbot: QtBot, tmp_path: Path) -> None:
    cell = cells(shell("stty -echo; printf '\\033[?1004hready\\n'; exec cat -v", tmp_path))
    cell.wait_for("ready")
    for change in (QEvent.Type.FocusOut, QEvent.Type.FocusIn):  # the offscreen platform has no window focus
        QGuiApplication.sendEvent(cell.view.display, QFocusEvent(change))
    qtbot.keyClick(cell.view.display, Qt.Key.Key_Return)
    assert "^[[O^[[I" in cell.wait_for("^[[I")


def test_the_view_takes_the_size_of_its_cell(cells: Any, qtbot: QtBot, tmp_path: Path) -> None:
    cell = cells(shell("read line; stty size; exec sleep 60", tmp_path))
    metrics = cell.view.metrics
    cell.window.resize(80 * metrics.width + 2 * MARGIN, 20 * metrics.height + 2 * MARGIN)
    qtbot.waitUntil(lambda: cell.view.grid_size() == (80, 20))
    qtbot.keyClick(cell.view.display, Qt.Key.Key_Return)
    assert "20 80" in cell.wait_for("20 80").split("\n")


def test_scrollback_selection_copy_and_find(cells: Any, qtbot: QtBot, tmp_path: Path) -> None:
    cell = cells(shell("seq 1 300; printf 'the-end'; exec sleep 60", tmp_path))
    cell.wait_for("the-end")
    view = cell.view
    wheel = QWheelEvent(
        QPointF(cell.point(1, 1)), QPointF(), QPoint(), QPoint(0, 120 * 5),
        Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase, False,
    )  # fmt: skip
    QGuiApplication.sendEvent(view.display, wheel)
    assert "the-end" not in view.screen_text()  # fifteen lines up into the scrollback

    qtbot.mousePress(view.display, Qt.MouseButton.LeftButton, pos=cell.point(0, 0))
    qtbot.mouseMove(view.display, cell.point(2, 1))
    qtbot.mouseRelease(view.display, Qt.MouseButton.LeftButton, pos=cell.point(2, 1))
    first, second = view.screen_text().split("\n")[:2]
    assert view.selected_text() == f"{first}\n{second[:3]}"
    view.copy()
    assert QGuiApplication.clipboard().text() == view.selected_text()

    view.toggle_find()
    find_field = view.findChild(QWidget, "searchTextEdit")
    assert find_field is not None and find_field.hasFocus()
    assert find_field.accessibleName() == "" and accessible_name(find_field) == "Find:"  # named by its label
    qtbot.keyClicks(find_field, "137")
    qtbot.keyClick(find_field, Qt.Key.Key_Return)
    assert view.screen_text().split("\n")[0] == "137"
    assert view.selected_text() == "137"

    view.focus_terminal()
    qtbot.keyClick(view.display, Qt.Key.Key_A)  # typing goes back to the program's screen
    assert "the-end" in view.screen_text()


def test_a_parked_view_that_was_never_shown_keeps_running_and_reads_back(
    cells: Any, factory: Any, tmp_path: Path
) -> None:
    # UI-6
    cell = cells(shell("sleep 0.5; echo parked-ok; stty size; exec sleep 60", tmp_path), show=False)
    screen = cell.wait_for("40 120")
    assert screen.split("\n")[:2] == ["parked-ok", "40 120"]
    assert cell.view.parentWidget() is factory.parking_lot and not cell.view.isVisible()


def test_the_view_moves_between_parents_without_touching_its_program(
    cells: Any, factory: Any, qtbot: QtBot, tmp_path: Path
) -> None:
    cell = cells(spawn_spec(["sh", "-i"], tmp_path, env={"PS1": "$ "}))
    cell.wait_for("$")
    qtbot.keyClicks(cell.view.display, "echo before-move\r")
    cell.wait_for("\nbefore-move")
    other = QWidget()
    QVBoxLayout(other)
    qtbot.addWidget(other)
    other.show()
    other.layout().addWidget(cell.view)
    factory.park(cell.view)
    on_core(qtbot, cell.core, cell.terminal.write_text("echo after-move\r"))
    cell.wait_for("\nafter-move")
    assert cell.terminal.pid() == cell.pid and psutil.pid_exists(cell.pid) and not cell.terminal.has_exited()
    assert factory.view_for(cell.terminal.session_id) is cell.view


def test_the_end_of_the_program_keeps_its_last_screen_and_a_released_view_goes_after_it(
    factory: Any, core: CoreLoop, qtbot: QtBot, tmp_path: Path
) -> None:
    terminal = make_terminal(factory)
    on_core(qtbot, core, terminal.start(shell("read line; echo goodbye; exit 7", tmp_path)))
    view = factory.view_for(terminal.session_id)
    factory.release(terminal.session_id)
    qtbot.wait(100)  # time for a wrong deletion to happen: nothing to wait for when it is right
    assert shiboken6.isValid(view)
    with qtbot.waitSignal(view.exited, timeout=5000) as exited:
        on_core(qtbot, core, terminal.write_text("\r"))
    assert exited.args == [7]
    qtbot.waitUntil(terminal.has_exited)  # the core loop hears of it just after the view
    assert terminal.exit_code() == 7
    qtbot.waitUntil(lambda: not shiboken6.isValid(view), timeout=5000)


def test_title_and_bell_reach_the_view_signals(cells: Any, qtbot: QtBot, tmp_path: Path) -> None:
    cell = cells(shell("read line; printf '\\033]0;view title\\007\\007'; exec sleep 60", tmp_path))
    titles: list[str] = []
    bells: list[bool] = []
    cell.view.titleChanged.connect(titles.append)
    cell.view.bell.connect(lambda: bells.append(True))
    on_core(qtbot, cell.core, cell.terminal.write_text("\r"))
    qtbot.waitUntil(lambda: titles == ["view title"] and bells == [True])


@pytest.mark.skipif(shutil.which("vim") is None, reason="needs vim")
def test_a_full_screen_program_reads_back_exactly_and_leaving_restores_the_shell(
    cells: Any, tmp_path: Path
) -> None:
    (tmp_path / "file.txt").write_text("".join(f"file line {number}\n" for number in range(1, 60)))
    cell = cells(spawn_spec(["sh", "-i"], tmp_path, env={"PS1": "$ "}, columns=60, lines=12), show=False)
    cell.wait_for("$")
    on_core(cell.qtbot, cell.core, cell.terminal.write_text("echo main-screen\r"))
    cell.wait_for("\nmain-screen")
    on_core(cell.qtbot, cell.core, cell.terminal.write_text("vim -u NONE -N file.txt\r"))
    cell.wait_for('"file.txt" 59L')  # vim may say it before it draws the text
    rows = cell.wait_for("file line 11\n").split("\n")
    assert rows[:11] == [f"file line {number}" for number in range(1, 12)]
    on_core(cell.qtbot, cell.core, cell.terminal.write_text("\x1b:q!\r"))
    after = cell.wait_for("file.txt\n$")
    assert "main-screen" in after and "file line" not in after


def test_colour_queries_get_the_active_scheme_colours(
    factory: Any, core: CoreLoop, qtbot: QtBot, tmp_path: Path
) -> None:
    from idea.ui.terminal.appearance import LIGHT_SCHEME, TerminalAppearance
    from tests.contract.terminal_contract import query_program, query_reply, running

    async def background_reply() -> bytes:
        spec = spawn_spec(query_program(b"\x1b]11;?\x07", b"\x07", b"\x1b\\"), tmp_path)
        async with running(make_terminal(factory), spec) as terminal:
            return await query_reply(terminal)

    assert on_core(qtbot, core, background_reply()) == b"\x1b]11;rgb:1616/1818/1d1d\x07"
    factory.set_appearance(TerminalAppearance(scheme=LIGHT_SCHEME))
    assert on_core(qtbot, core, background_reply()) == b"\x1b]11;rgb:ffff/ffff/ffff\x07"


def test_ctrl_shift_plus_and_minus_zoom_the_font_and_the_grid_follows(cells: Any, qtbot: QtBot, tmp_path: Path) -> None:
    cell = cells(shell("exec sleep 60", tmp_path))
    qtbot.waitUntil(lambda: cell.view.grid_size() != (120, 40))  # the window's size, not the spawn size
    before_height, before_grid = cell.view.metrics.height, cell.view.grid_size()
    ctrl_shift = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
    for _ in range(3):
        qtbot.keyClick(cell.view.display, Qt.Key.Key_Plus, ctrl_shift)
    assert cell.view.metrics.height > before_height
    qtbot.waitUntil(lambda: cell.view.grid_size()[1] < before_grid[1])
    qtbot.keyClick(cell.view.display, Qt.Key.Key_0, ctrl_shift)
    assert cell.view.metrics.height == before_height
    qtbot.waitUntil(lambda: cell.view.grid_size() == before_grid)
