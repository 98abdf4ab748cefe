"""The callbacks a terminal adapter calls for its output, exit and title changes."""

from __future__ import annotations

import itertools
import logging
from collections.abc import Callable
from typing import Generic, TypeVar

from idea.application.ports import Unsubscribe

_log = logging.getLogger(__name__)

T = TypeVar("T")


class Subscribers(Generic[T]):
    def __init__(self) -> None:
        # Keyed per subscription, so unsubscribing removes that one even if a callback is added twice.
        self._callbacks: dict[int, Callable[[T], None]] = {}
        self._keys = itertools.count()

    def __bool__(self) -> bool:
        return bool(self._callbacks)

    def add(self, callback: Callable[[T], None]) -> Unsubscribe:
        key = next(self._keys)
        self._callbacks[key] = callback

        def unsubscribe() -> None:
            self._callbacks.pop(key, None)

        return unsubscribe

    def notify(self, value: T) -> None:
        # One failing subscriber must not keep the others from hearing about it.
        for callback in list(self._callbacks.values()):
            try:
                callback(value)
            except Exception:
                _log.exception("a terminal subscriber failed")

    def clear(self) -> None:
        self._callbacks.clear()
