"""Domain events, re-emitted on the GUI thread as one Qt signal."""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from idea.infrastructure.event_bus import EventBus


class EventRelay(QObject):
    """Created on the GUI thread. Events published on any thread arrive through a queued connection; once
    closed, none is delivered any more, not even one already queued (the core may be stopping)."""

    published = Signal(object)
    _arrived = Signal(object)

    def __init__(self, bus: EventBus) -> None:
        super().__init__()
        self._closed = False
        self._arrived.connect(self._deliver)
        self._unsubscribe = bus.subscribe(self._arrived.emit)

    def close(self) -> None:
        self._closed = True
        self._unsubscribe()

    def _deliver(self, event: object) -> None:
        if not self._closed:
            self.published.emit(event)
