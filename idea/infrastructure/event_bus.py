"""Domain events fanned out to subscribers; publish may be called from any thread."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from idea.application.ports import Unsubscribe

Subscriber = Callable[[object], None]

log = logging.getLogger(__name__)


class EventBus:
    def __init__(self) -> None:
        self._subscribers: list[Subscriber] = []
        self._lock = threading.Lock()

    def subscribe(self, subscriber: Subscriber) -> Unsubscribe:
        with self._lock:
            self._subscribers.append(subscriber)

        def unsubscribe() -> None:
            with self._lock:
                if subscriber in self._subscribers:
                    self._subscribers.remove(subscriber)

        return unsubscribe

    def publish(self, event: object) -> None:
        with self._lock:
            subscribers = list(self._subscribers)
        for subscriber in subscribers:
            try:
                subscriber(event)
            except Exception:  # one broken subscriber must not starve the others
                log.exception("event subscriber failed on %s", type(event).__name__)
