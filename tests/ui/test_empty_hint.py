"""A list with no row says so in words over its empty box; the words go when a row comes and come back when
the last one goes, and they stay inside the list as it is resized."""

from __future__ import annotations

from PySide6.QtWidgets import QListWidget
from pytestqt.qtbot import QtBot

from idea.ui.widgets.empty_hint import EmptyHint


def test_the_words_show_only_while_the_list_is_empty(qtbot: QtBot) -> None:
    listing = QListWidget()
    qtbot.addWidget(listing)
    hint = EmptyHint(listing, "No note yet.")
    listing.resize(300, 200)
    listing.show()
    qtbot.waitExposed(listing)
    assert hint.isVisible() and hint.text() == "No note yet."

    listing.addItem("architecture")
    assert not hint.isVisible()
    listing.takeItem(0)
    assert hint.isVisible()
    listing.addItems(["a", "b"])
    listing.clear()
    assert hint.isVisible()

    listing.resize(500, 120)
    qtbot.waitUntil(lambda: hint.width() > 400)
    assert listing.viewport().rect().contains(hint.geometry())
