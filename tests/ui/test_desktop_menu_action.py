"""Help ▸ Add IdeA to the applications menu, as a user clicks it."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtWidgets import QMainWindow, QMessageBox
from pytestqt.qtbot import QtBot

from idea.infrastructure.desktop_menu import DesktopMenu
from idea.infrastructure.installation import Installation, Kind
from idea.infrastructure.resources import resources_dir
from idea.ui.windows import desktop_menu as ui
from tests.ui.gui_support import Gui


@pytest.fixture
def told(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    messages: list[str] = []
    for name in ("information", "warning"):
        monkeypatch.setattr(QMessageBox, name, lambda _parent, _title, text, *_a, **_k: messages.append(text))
    return messages


def use(monkeypatch: pytest.MonkeyPatch, installation: Installation, home: Path) -> None:
    monkeypatch.setattr(ui, "desktop_menu", lambda: DesktopMenu(installation, home, [], resources_dir()))


def test_inside_an_appimage_the_entry_is_added_then_offered_for_removal(
    qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, told: list[str]
) -> None:
    image = str(tmp_path / "IdeA-0.1.0-x86_64.AppImage")
    home = tmp_path / "share"
    use(monkeypatch, Installation(Kind.APPIMAGE, (image,), image), home)
    window = QMainWindow()
    qtbot.addWidget(window)
    menu = window.menuBar().addMenu("&Help")
    action = ui.add_menu_entry_action(window, menu)
    assert action.isEnabled() and action.text() == ui.ADD_TEXT and action.toolTip() == f"Starts {image}"

    action.trigger()

    assert (home / "applications" / "io.github.idea.desktop").is_file()
    assert told[-1].startswith(f"IdeA is in your applications menu; it starts {image}.")
    menu.aboutToShow.emit()
    assert action.text() == ui.REMOVE_TEXT

    action.trigger()

    assert not (home / "applications" / "io.github.idea.desktop").exists()
    assert told[-1] == "IdeA is no longer in your applications menu."
    menu.aboutToShow.emit()
    assert action.text() == ui.ADD_TEXT


def test_from_a_checkout_the_action_is_disabled_and_says_why(
    qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    use(monkeypatch, Installation(Kind.CHECKOUT, ("/usr/bin/python3", "-m", "idea")), tmp_path)
    window = QMainWindow()
    qtbot.addWidget(window)
    menu = window.menuBar().addMenu("&Help")

    action = ui.add_menu_entry_action(window, menu)

    assert not action.isEnabled()
    assert "source checkout" in action.toolTip() and menu.toolTipsVisible()


def test_a_write_failure_is_shown_not_raised(
    qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, told: list[str]
) -> None:
    home = tmp_path / "share"
    home.mkdir()
    (home / "icons").write_text("a file where a folder should be")
    image = str(tmp_path / "IdeA.AppImage")
    use(monkeypatch, Installation(Kind.APPIMAGE, (image,), image), home)
    window = QMainWindow()
    qtbot.addWidget(window)
    action = ui.add_menu_entry_action(window, window.menuBar().addMenu("&Help"))

    action.trigger()

    assert told[-1].startswith("The applications menu entry could not be written:")


def test_the_main_windows_help_menu_has_the_action(gui_factory) -> None:  # noqa: ANN001
    gui: Gui = gui_factory()
    gui.session.windows.restore([])
    window = gui.windows[0]
    help_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Help")
    assert ui.ADD_TEXT in [a.text() for a in help_menu.actions()]
