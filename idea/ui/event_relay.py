"""Domain events, re-emitted on the GUI thread as one Qt signal."""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from idea.infrastructure.event_bus import EventBus


class EventRelay(QObject):
    """Created on the GUI thread. Events published on any thread arrive through a queued connection."""

    published = Signal(object)

    def __init__(self, bus: EventBus) -> None:
        super().__init__()
        self._unsubscribe = bus.subscribe(self.published.emit)

    def close(self) -> None:
        self._unsubscribe()
