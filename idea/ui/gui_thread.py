"""Run callables on the Qt GUI thread from any thread, and get their result as a future. While a `GuiThread`
lives, Python's cyclic garbage is collected on the GUI thread only (`gui_garbage`)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from PySide6.QtCore import QObject, Qt, Signal

from idea.ui.gui_garbage import collect_on_gui_thread

T = TypeVar("T")

log = logging.getLogger(__name__)


class GuiThread(QObject):
    """Created on the GUI thread; `run` and `call` may be used from any thread."""

    _invoke = Signal(object)

    def __init__(self) -> None:
        super().__init__()
        self._gui_thread = threading.current_thread()
        self._invoke.connect(self._execute, Qt.ConnectionType.QueuedConnection)
        collect_on_gui_thread(self)

    def is_current(self) -> bool:
        return threading.current_thread() is self._gui_thread

    def run(self, fn: Callable[[], T]) -> concurrent.futures.Future[T]:
        future: concurrent.futures.Future[T] = concurrent.futures.Future()
        if self.is_current():
            _complete(future, fn)
        else:
            self._invoke.emit((future, fn))
        return future

    async def call(self, fn: Callable[[], T]) -> T:
        """Await fn() run on the GUI thread (from a coroutine on another thread's loop)."""
        return await asyncio.wrap_future(self.run(fn))

    def post(self, fn: Callable[[], Any]) -> None:
        """Fire and forget: run fn() on the GUI thread's next event loop turn."""
        self._invoke.emit((None, fn))

    def _execute(self, item: tuple[concurrent.futures.Future[Any] | None, Callable[[], Any]]) -> None:
        future, fn = item
        if future is None:
            try:
                fn()
            except RuntimeError as exc:
                # An answer that arrives after its widget was destroyed (its window closed meanwhile) has
                # nobody left to tell; anything else is a real error.
                if "already deleted" not in str(exc):
                    raise
                log.debug("a posted call reached a destroyed widget: %s", exc)
        elif future.set_running_or_notify_cancel():
            _complete(future, fn)


def _complete(future: concurrent.futures.Future[T], fn: Callable[[], T]) -> None:
    try:
        future.set_result(fn())
    except BaseException as exc:  # delivered to the awaiting thread, never swallowed
        future.set_exception(exc)
