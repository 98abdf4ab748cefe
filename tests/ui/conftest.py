"""Fixtures for tests that run the real GUI offscreen."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from tests.ui.gui_support import Gui, complete_first_run


@pytest.fixture
def themed(qapp: QApplication) -> Iterator[QApplication]:
    """The application, its palette and style sheet put back after the test changes its theme."""
    palette, sheet = qapp.palette(), qapp.styleSheet()
    yield qapp
    qapp.setPalette(palette)
    qapp.setStyleSheet(sheet)


@pytest.fixture
def quiet_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Shells started by the GUI read no start-up files of the machine's user."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("PS1", "$ ")
    return home


@pytest.fixture
def gui_factory(qtbot: QtBot, qapp, isolated_data_dir: Path, quiet_home: Path) -> Iterator:  # noqa: ANN001
    """Start the GUI (again, for restart tests) on the test's data dir; every start is shut down at the end."""
    complete_first_run(isolated_data_dir)
    started: list[Gui] = []

    def start() -> Gui:
        gui = Gui(qtbot, qapp, isolated_data_dir)
        started.append(gui)
        return gui

    yield start
    for gui in started:
        gui.close()
