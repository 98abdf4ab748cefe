"""A window's first size stays within the screen it opens on."""

from __future__ import annotations

from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QDialog, QWidget
from pytestqt.qtbot import QtBot

from idea.ui.widgets.window_size import SCREEN_SHARE, size_within_screen


def test_a_window_larger_than_the_screen_is_sized_within_it(qtbot: QtBot) -> None:
    parent = QWidget()
    qtbot.addWidget(parent)
    available = QGuiApplication.primaryScreen().availableGeometry()
    dialog = QDialog(parent)
    size_within_screen(dialog, available.width() * 2, available.height() + 100)
    assert dialog.width() == int(available.width() * SCREEN_SHARE)
    assert dialog.height() == int(available.height() * SCREEN_SHARE)


def test_a_window_that_fits_gets_the_size_it_asks(qtbot: QtBot) -> None:
    dialog = QDialog()
    qtbot.addWidget(dialog)
    size_within_screen(dialog, 300, 200)
    assert (dialog.width(), dialog.height()) == (300, 200)
