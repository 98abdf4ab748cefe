"""A folder dropped on a window opens as a project in it; a file, or a drop a terminal cell takes, does not."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.qtbot import QtBot

from idea.ui.windows.folder_drops import FolderDrops, dropped_folders
from tests.ui.gui_support import Gui


def mime_of(*paths: Path | str) -> QMimeData:
    mime = QMimeData()
    mime.setUrls([QUrl(str(path)) if str(path).startswith("https:") else QUrl.fromLocalFile(str(path)) for path in paths])
    return mime


def enter(widget: QWidget, mime: QMimeData) -> bool:
    event = QDragEnterEvent(QPoint(10, 10), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                            Qt.KeyboardModifier.NoModifier)
    event.ignore()
    QApplication.sendEvent(widget, event)
    return event.isAccepted()


def drop(widget: QWidget, mime: QMimeData) -> None:
    event = QDropEvent(QPointF(10, 10), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                       Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(widget, event)


def test_only_local_folders_are_taken_from_a_drop(tmp_path: Path) -> None:
    folder, file = tmp_path / "project", tmp_path / "notes.txt"
    folder.mkdir()
    file.write_text("x")
    assert dropped_folders(mime_of(file, folder, "https://example.org/repo", tmp_path / "gone")) == [str(folder)]


def test_a_window_opens_each_dropped_folder_and_refuses_a_drop_without_one(qtbot: QtBot, tmp_path: Path) -> None:
    window = QWidget()
    qtbot.addWidget(window)
    opened: list[str] = []
    FolderDrops(window, opened.append)
    first, second, file = tmp_path / "a", tmp_path / "b", tmp_path / "f.txt"
    first.mkdir()
    second.mkdir()
    file.write_text("x")
    assert window.acceptDrops()
    assert not enter(window, mime_of(file))
    drop(window, mime_of(file))
    assert opened == []
    assert enter(window, mime_of(first, file, second))
    drop(window, mime_of(first, file, second))
    assert opened == [str(first), str(second)]


def test_a_folder_dropped_on_the_main_window_opens_as_a_project_tab(gui_factory, tmp_path: Path) -> None:
    gui: Gui = gui_factory()
    gui.restore([])
    window = gui.windows[0]
    project = tmp_path / "dropped"
    project.mkdir()
    assert enter(window.welcome, mime_of(project))  # the page does not take drops: the window does
    drop(window.welcome, mime_of(project))
    tab = gui.tab(project)
    gui.wait(lambda: window.current_tab() is tab)

    other = tmp_path / "second"
    other.mkdir()
    assert enter(window.tab_bar, mime_of(other))  # the tab bar takes only tabs: a folder goes on to the window
    drop(window.tab_bar, mime_of(other))
    second = gui.tab(other)
    gui.wait(lambda: window.current_tab() is second)
