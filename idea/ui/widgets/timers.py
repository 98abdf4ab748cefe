"""The one kind of timer the GUI makes again and again."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer


def single_shot_timer(parent: QObject | None, ms: int, slot: Callable[[], object]) -> QTimer:
    """A single-shot timer that runs `slot` `ms` after its last `start()`: a debounce when started on every
    event, a delay otherwise. Not started."""
    timer = QTimer(parent)
    timer.setSingleShot(True)
    timer.setInterval(ms)
    timer.timeout.connect(slot)
    return timer
