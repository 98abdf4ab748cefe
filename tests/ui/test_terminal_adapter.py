"""QTermWidgetTerminal: the terminal contract, plus what the widget backend adds (parking lot, exit codes,
exact environment, readback of full-screen programs).

Cases run on a real core loop thread while the test thread runs the Qt event loop, as in the application:
the coroutine is submitted to the core loop and the test waits with qtbot.waitUntil so Qt keeps working.
"""

from __future__ import annotations

import dataclasses
import itertools
import re
import shutil
from collections.abc import Coroutine, Iterator
from pathlib import Path
from typing import Any, TypeVar

import psutil
import pytest
import shiboken6
from PySide6.QtWidgets import QVBoxLayout, QWidget
from pytestqt.qtbot import QtBot

from idea.domain.errors import AppError, ErrorCode
from idea.infrastructure.core_loop import CoreLoop
from idea.ui.gui_thread import GuiThread
from idea.ui.terminal.appearance import LIGHT_SCHEME, TerminalAppearance
from idea.ui.terminal.qtermwidget_terminal import QTermWidgetTerminal, QtTerminalFactory
from tests.contract.terminal_contract import (
    CONTRACT_CASES,
    ContractCase,
    case_name,
    query_program,
    query_reply,
    running,
    shell,
    spawn_spec,
    wait_for_screen,
    wait_until,
)

T = TypeVar("T")

CASE_TIMEOUT_MS = 120_000  # a safety net around condition waits
_session_numbers = itertools.count(1)


@pytest.fixture
def core() -> Iterator[CoreLoop]:
    loop = CoreLoop("test-core").start()
    yield loop
    loop.stop()


@pytest.fixture
def factory(qtbot: QtBot, core: CoreLoop) -> Iterator[QtTerminalFactory]:
    terminals = QtTerminalFactory(GuiThread(), core.loop, TerminalAppearance())
    yield terminals
    shiboken6.delete(terminals.parking_lot)


def make_terminal(factory: QtTerminalFactory) -> QTermWidgetTerminal:
    return factory.create(f"session-{next(_session_numbers)}", "project")


def on_core(qtbot: QtBot, core: CoreLoop, coroutine: Coroutine[Any, Any, T], timeout_ms: int = CASE_TIMEOUT_MS) -> T:
    """Run `coroutine` on the core loop; the Qt event loop keeps running here meanwhile."""
    future = core.submit(coroutine)
    qtbot.waitUntil(future.done, timeout=timeout_ms)
    return future.result()


@pytest.mark.parametrize("case", CONTRACT_CASES, ids=case_name)
def test_contract(case: ContractCase, factory: QtTerminalFactory, core: CoreLoop, qtbot: QtBot, tmp_path: Path) -> None:
    on_core(qtbot, core, case(lambda: make_terminal(factory), tmp_path))


def test_a_parked_view_that_was_never_shown_keeps_running_and_reads_back(
    factory: QtTerminalFactory, core: CoreLoop, qtbot: QtBot, tmp_path: Path
) -> None:
    # UI-6
    terminal = make_terminal(factory)

    async def scenario() -> str:
        async with running(terminal, shell("sleep 0.5; echo parked-ok; exec sleep 60", tmp_path)):
            return await wait_for_screen(terminal, "parked-ok")

    screen = on_core(qtbot, core, scenario())
    view = factory.view_for(terminal.session_id)
    assert view is not None and view.parentWidget() is factory.parking_lot and not view.isVisible()
    assert screen.split("\n")[0] == "parked-ok"


def test_a_parked_view_gives_its_program_120_columns_by_40_lines(
    factory: QtTerminalFactory, core: CoreLoop, qtbot: QtBot, tmp_path: Path
) -> None:
    async def scenario() -> str:
        terminal = make_terminal(factory)
        async with running(terminal, shell("stty size; exec sleep 60", tmp_path)):
            return await wait_for_screen(terminal, "40 120")

    assert on_core(qtbot, core, scenario()).split("\n")[0] == "40 120"


def test_the_view_moves_between_parents_without_touching_its_program(
    factory: QtTerminalFactory, core: CoreLoop, qtbot: QtBot, tmp_path: Path
) -> None:
    terminal = make_terminal(factory)
    spec = spawn_spec(["sh", "-i"], tmp_path, env={"PS1": "$ "})
    pid = on_core(qtbot, core, terminal.start(spec))
    try:
        on_core(qtbot, core, wait_for_screen(terminal, "$"))
        on_core(qtbot, core, terminal.write_text("echo before-move\r"))
        on_core(qtbot, core, wait_for_screen(terminal, "\nbefore-move"))
        view = factory.view_for(terminal.session_id)
        assert view is not None
        windows = [QWidget(), QWidget()]
        for window in windows:
            QVBoxLayout(window)
            qtbot.addWidget(window)
            window.resize(700, 400)
            window.show()
        for window in windows:
            window.layout().addWidget(view)
            view.show()
            qtbot.waitUntil(lambda w=window: view.terminal.geometry().size() == w.layout().contentsRect().size())
            assert "before-move" in on_core(qtbot, core, terminal.screen_text())
        factory.park(view)
        assert view.parentWidget() is factory.parking_lot and not view.isVisible()

        on_core(qtbot, core, terminal.write_text("echo after-move\r"))
        on_core(qtbot, core, wait_for_screen(terminal, "\nafter-move"))
        assert terminal.pid() == pid and psutil.pid_exists(pid) and not terminal.has_exited()
        assert factory.view_for(terminal.session_id) is view
    finally:
        on_core(qtbot, core, terminal.terminate(grace_ms=1000))


def test_exit_codes_are_exact_even_for_programs_that_end_at_once(
    factory: QtTerminalFactory, core: CoreLoop, qtbot: QtBot, tmp_path: Path
) -> None:
    # Qt reaps the child in a signal handler; a waitid() of our own lost about one such exit in five.
    async def exit_codes() -> list[int | None]:
        codes = []
        for _ in range(20):
            terminal = make_terminal(factory)
            exits: list[int | None] = []
            terminal.on_exit(exits.append)
            await terminal.start(shell("exit 7", tmp_path))
            await wait_until(lambda exits=exits: bool(exits), what="the exit")
            codes.append(terminal.exit_code())
        return codes

    assert on_core(qtbot, core, exit_codes()) == [7] * 20


def test_the_view_reports_the_exit_and_keeps_showing_the_last_screen(
    factory: QtTerminalFactory, core: CoreLoop, qtbot: QtBot, tmp_path: Path
) -> None:
    terminal = make_terminal(factory)
    on_core(qtbot, core, terminal.start(shell("sleep 0.3; echo goodbye; exit 7", tmp_path)))
    view = factory.view_for(terminal.session_id)
    assert view is not None
    with qtbot.waitSignal(view.exited, timeout=30_000) as exited:
        pass
    assert exited.args == [7]
    assert not view.terminal.focusProxy().isHidden()
    assert "goodbye" in view.screen_text()


def test_the_program_gets_exactly_the_spawn_environment(
    factory: QtTerminalFactory, core: CoreLoop, qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("IDEA_ONLY_IN_IDEA", "must-not-leak")
    spec = spawn_spec(["sh", "-c", "env > env.txt; echo done; exec sleep 60"], tmp_path)
    spec = dataclasses.replace(spec, env={k: v for k, v in spec.env.items() if k != "IDEA_ONLY_IN_IDEA"})

    async def scenario() -> None:
        async with running(make_terminal(factory), spec) as terminal:
            await wait_for_screen(terminal, "done")

    on_core(qtbot, core, scenario())
    child_env = dict(line.split("=", 1) for line in (tmp_path / "env.txt").read_text().splitlines() if "=" in line)
    # Only what sh sets for itself may differ; the terminal describes its background as light on dark.
    shell_sets = {"PWD", "SHLVL", "_", "OLDPWD"}
    assert {name: value for name, value in child_env.items() if name not in shell_sets} == {
        **{name: value for name, value in spec.env.items() if name not in shell_sets},
        "COLORFGBG": "15;0",
    }


def test_a_script_without_an_interpreter_line_runs_with_sh_as_in_a_shell(
    factory: QtTerminalFactory, core: CoreLoop, qtbot: QtBot, tmp_path: Path
) -> None:
    script = tmp_path / "no-interpreter-line"
    script.write_text("echo script-ran-$((6*7))\nexec sleep 60\n")
    script.chmod(0o755)

    async def scenario() -> str:
        async with running(make_terminal(factory), spawn_spec(["./no-interpreter-line"], tmp_path)) as terminal:
            return await wait_for_screen(terminal, "script-ran-")

    assert on_core(qtbot, core, scenario()).split("\n")[0] == "script-ran-42"


def test_colour_queries_get_the_active_scheme_colours(
    factory: QtTerminalFactory, core: CoreLoop, qtbot: QtBot, tmp_path: Path
) -> None:
    async def background_reply() -> bytes:
        spec = spawn_spec(query_program(b"\x1b]11;?\x07", b"\x07", b"\x1b\\"), tmp_path)
        async with running(make_terminal(factory), spec) as terminal:
            return await query_reply(terminal)

    assert on_core(qtbot, core, background_reply()) == b"\x1b]11;rgb:1616/1818/1d1d\x1b\\"
    factory.set_appearance(TerminalAppearance(scheme=LIGHT_SCHEME))
    assert on_core(qtbot, core, background_reply()) == b"\x1b]11;rgb:ffff/ffff/ffff\x1b\\"


def test_a_released_view_is_deleted_only_after_its_program_exited(
    factory: QtTerminalFactory, core: CoreLoop, qtbot: QtBot, tmp_path: Path
) -> None:
    terminal = make_terminal(factory)
    on_core(qtbot, core, terminal.start(shell("read line; exit 0", tmp_path)))
    view = factory.view_for(terminal.session_id)
    assert view is not None
    factory.release(terminal.session_id)
    qtbot.wait(200)  # time for a wrong deletion to happen: nothing to wait for when it is right
    assert shiboken6.isValid(view) and psutil.pid_exists(terminal.pid())
    on_core(qtbot, core, terminal.write_text("\r"))
    # The view goes on the GUI thread; the exit is recorded on the core loop: either may come first.
    qtbot.waitUntil(lambda: not shiboken6.isValid(view) and terminal.has_exited(), timeout=30_000)
    assert terminal.exit_code() == 0


@pytest.mark.skipif(shutil.which("vim") is None, reason="needs vim")
def test_a_full_screen_program_reads_back_exactly_and_leaving_restores_the_shell(
    factory: QtTerminalFactory, core: CoreLoop, qtbot: QtBot, tmp_path: Path
) -> None:
    (tmp_path / "file.txt").write_text("".join(f"file line {number}\n" for number in range(1, 60)))
    terminal = make_terminal(factory)
    spec = spawn_spec(["sh", "-i"], tmp_path, env={"PS1": "$ "}, columns=60, lines=12)

    async def scenario() -> tuple[str, str]:
        async with running(terminal, spec):
            await wait_for_screen(terminal, "$")
            await terminal.write_text("echo main-screen\r")
            await wait_for_screen(terminal, "\nmain-screen")
            await terminal.write_text("vim -u NONE -N file.txt\r")
            in_vim = await wait_for_screen(terminal, '"file.txt" 59L')
            await terminal.write_text("\x1b:q!\r")
            return in_vim, await wait_for_screen(terminal, "file.txt\n$")

    in_vim, after = on_core(qtbot, core, scenario())
    rows = in_vim.split("\n")
    assert len(rows) == 12
    assert rows[:11] == [f"file line {number}" for number in range(1, 12)]
    assert rows[11].startswith('"file.txt" 59L')
    assert "main-screen" in after and "file line" not in after


def test_wrapped_output_reads_back_as_the_rows_on_screen(
    factory: QtTerminalFactory, core: CoreLoop, qtbot: QtBot, tmp_path: Path
) -> None:
    script = "printf '%s' 0123456789abcdefghij0123456789; printf '|中文中文中文|\\n'; echo end; exec sleep 60"
    spec = shell(script, tmp_path, columns=20, lines=6)

    async def scenario() -> str:
        async with running(make_terminal(factory), spec) as terminal:
            return await wait_for_screen(terminal, "end")

    rows = on_core(qtbot, core, scenario()).split("\n")
    # The wide character that no longer fits on the second row starts the third.
    assert rows == ["0123456789abcdefghij", "0123456789|中文中文", "中文|", "end", "", ""]


def test_title_reaches_the_view_signal(factory: QtTerminalFactory, core: CoreLoop, qtbot: QtBot, tmp_path: Path) -> None:
    terminal = make_terminal(factory)
    on_core(qtbot, core, terminal.start(shell("read line; printf '\\033]0;view title\\007'; exec sleep 60", tmp_path)))
    view = factory.view_for(terminal.session_id)
    assert view is not None
    try:
        with qtbot.waitSignal(view.titleChanged, timeout=30_000) as titled:
            on_core(qtbot, core, terminal.write_text("\r"))
        assert titled.args == ["view title"]
    finally:
        on_core(qtbot, core, terminal.terminate(grace_ms=1000))


def test_output_marks_activity_once_per_burst_and_silence_rearms_it(
    factory: QtTerminalFactory, core: CoreLoop, qtbot: QtBot, tmp_path: Path
) -> None:
    """The "new output" mark of an unfocused cell: one activity() per burst of output however many flows and
    chunks it comes in, silence() once output stops, and output after the quiet marks the cell again."""
    terminal = make_terminal(factory)
    script = "read a; printf 'one'; sleep 0.1; printf ' two'; read b; printf ' three'; exec sleep 60"
    on_core(qtbot, core, terminal.start(shell(script, tmp_path)))
    view = factory.view_for(terminal.session_id)
    assert view is not None
    view.set_silence_ms(600)
    activity: list[bool] = []
    view.activity.connect(lambda: activity.append(True))
    try:
        with qtbot.waitSignal(view.activity, timeout=30_000):
            on_core(qtbot, core, terminal.write_text("\r"))
        with qtbot.waitSignal(view.silence, timeout=30_000):
            pass
        assert activity == [True]  # two flows 100 ms apart, one burst: one mark
        assert "one two" in view.screen_text()
        with qtbot.waitSignal(view.activity, timeout=30_000):
            on_core(qtbot, core, terminal.write_text("\r"))  # output after the quiet marks the cell again
        assert activity == [True, True]
    finally:
        on_core(qtbot, core, terminal.terminate(grace_ms=1000))


def test_writing_to_an_ended_program_is_a_process_error(
    factory: QtTerminalFactory, core: CoreLoop, qtbot: QtBot, tmp_path: Path
) -> None:
    terminal = make_terminal(factory)

    async def scenario() -> None:
        exits: list[int | None] = []
        terminal.on_exit(exits.append)
        await terminal.start(shell("exit 0", tmp_path))
        await wait_until(lambda: bool(exits), what="the exit")
        await terminal.write_text("too late\r")

    with pytest.raises(AppError, match=re.escape(terminal.session_id)) as raised:
        on_core(qtbot, core, scenario())
    assert raised.value.code is ErrorCode.PROCESS
