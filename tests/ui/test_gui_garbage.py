"""Cyclic garbage is collected on the GUI thread only while a `GuiThread` lives: what another thread drops
ends on the GUI thread, however much that thread allocates."""

from __future__ import annotations

import gc
import threading

from pytestqt.qtbot import QtBot

from idea.ui.gui_garbage import COLLECT_EVERY_MS
from idea.ui.gui_thread import GuiThread


class Node:
    ended_on: list[threading.Thread] = []

    def __init__(self) -> None:
        self.cycle = self

    def __del__(self) -> None:
        Node.ended_on.append(threading.current_thread())


def test_garbage_dropped_on_another_thread_ends_on_the_gui_thread(qtbot: QtBot) -> None:
    gui = GuiThread()
    Node.ended_on = []
    kept: list[list[object]] = []

    def core() -> None:
        Node()  # unreachable at once, in a cycle: only the collector can end it
        # Far past the young generation's threshold, as the core loop allocates: with automatic collection
        # on, this thread would collect the node.
        kept.append([[] for _ in range(20 * gc.get_threshold()[0])])

    worker = threading.Thread(target=core)
    worker.start()
    worker.join()
    assert Node.ended_on == []
    qtbot.waitUntil(lambda: bool(Node.ended_on), timeout=20 * COLLECT_EVERY_MS)
    assert Node.ended_on == [threading.main_thread()]
    kept.clear()
    del gui


def test_automatic_collection_is_back_when_the_gui_thread_object_goes(qtbot: QtBot) -> None:
    before = gc.isenabled()
    gui = GuiThread()
    assert not gc.isenabled()
    del gui
    assert gc.isenabled() == before
