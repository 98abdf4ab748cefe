"""How a cell tells that its program ended or never started: each sentence once, with the actions that fit."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel
from pytestqt.qtbot import QtBot

from idea.domain.ids import SessionId
from idea.domain.layout.tree import Leaf
from idea.domain.session import SessionInfo, SessionKind, SessionState, start_refusal
from idea.ui.layout.cell import CellWidget


class Controller:
    """What the hosting tab is asked; every gesture is recorded."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str]] = []

    def __getattr__(self, name: str):  # noqa: ANN204 - any gesture of CellController
        return lambda leaf_id, *_args: self.calls.append((name, leaf_id))


def shell(state: SessionState = SessionState.STARTING) -> SessionInfo:
    return SessionInfo(
        id=SessionId("s1"), kind=SessionKind.SHELL, state=state, label="powershell", cwd="C:\\p", started_at_ms=0
    )


def cell_showing(qtbot: QtBot, session: SessionInfo) -> tuple[CellWidget, Controller]:
    controller = Controller()
    cell = CellWidget("leaf-1", controller)  # type: ignore[arg-type]
    qtbot.addWidget(cell)
    cell.resize(700, 400)
    cell.show()
    cell.show_content(Leaf("leaf-1", session=session.id), session, None)
    return cell, controller


def visible_texts(cell: CellWidget) -> list[str]:
    return [label.text() for label in cell.findChildren(QLabel) if label.isVisibleTo(cell) and label.text()]


def test_a_refused_start_is_said_once_in_the_cell_with_a_way_to_try_again(qtbot: QtBot) -> None:
    refusal = start_refusal("C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe", "Invalid handle.")
    cell, controller = cell_showing(qtbot, shell().failed(refusal))

    texts = visible_texts(cell)
    assert texts.count(refusal) == 1 and sum(refusal in text for text in texts) == 1, texts
    assert cell.header.state_dot.toolTip() == refusal
    assert not cell._banner.isVisibleTo(cell)  # noqa: SLF001
    placeholder = cell._placeholder  # noqa: SLF001
    assert placeholder.try_again.isVisibleTo(cell)

    placeholder.try_again.click()

    assert controller.calls == [("restart", "leaf-1")]


def test_a_program_that_exited_says_how_under_its_screen_once(qtbot: QtBot) -> None:
    cell, _ = cell_showing(qtbot, shell(SessionState.RUNNING).running(42).exited(3))

    texts = visible_texts(cell)
    assert sum("exited with code 3" in text for text in texts) == 1, texts
    assert cell._banner.isVisibleTo(cell)  # noqa: SLF001
    assert not cell._placeholder.try_again.isVisibleTo(cell)  # noqa: SLF001


def test_an_empty_cell_offers_no_retry(qtbot: QtBot) -> None:
    controller = Controller()
    cell = CellWidget("leaf-1", controller)  # type: ignore[arg-type]
    qtbot.addWidget(cell)
    cell.show()
    cell.show_content(Leaf("leaf-1"), None, None)
    assert "This cell is empty" in visible_texts(cell)
    assert not cell._placeholder.try_again.isVisibleTo(cell)  # noqa: SLF001
