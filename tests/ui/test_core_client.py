"""`CoreClient`: widgets ask the core and get the answer back on the GUI thread, never blocking on it."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from idea.domain.errors import AppError, ErrorCode
from idea.infrastructure.core_loop import CoreLoop
from idea.ui.core_client import CoreClient
from idea.ui.gui_thread import GuiThread


async def answer(value: int) -> int:
    return value


async def refuse() -> int:
    raise AppError(ErrorCode.INVALID, "no")


def test_the_answer_and_the_error_come_back_on_the_gui_thread(qtbot: QtBot) -> None:
    core = CoreLoop().start()
    gui = GuiThread()
    reported: list[BaseException] = []
    client = CoreClient(core, gui, reported.append)
    results: list[object] = []
    try:
        client.call(answer(7), lambda value: results.append((value, gui.is_current())))
        client.call(refuse())
        qtbot.waitUntil(lambda: len(results) == 1 and len(reported) == 1)
    finally:
        core.stop()

    assert results == [(7, True)]
    assert isinstance(reported[0], AppError)


def test_a_call_made_after_the_core_stopped_is_dropped_not_raised(qtbot: QtBot) -> None:
    """A GUI callback that runs while IdeA quits (a panel refreshing again) must not raise in Qt's loop."""
    core = CoreLoop().start()
    core.stop()
    reported: list[BaseException] = []
    client = CoreClient(core, GuiThread(), reported.append)
    coro = answer(1)

    future = client.call(coro, lambda _value: reported.append(RuntimeError("answered")))

    assert future.cancelled()
    assert coro.cr_frame is None  # closed: no "never awaited" warning
    qtbot.wait(20)
    assert reported == []
