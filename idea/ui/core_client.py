"""How widgets ask the core for something: submit a coroutine, get the result back on the GUI thread.

Widgets never block on the core loop (the core may itself be waiting for the GUI thread).
"""

from __future__ import annotations

import concurrent.futures
import logging
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from idea.domain.errors import AppError
from idea.infrastructure.core_loop import CoreLoop
from idea.ui.gui_thread import GuiThread

T = TypeVar("T")
ErrorHandler = Callable[[BaseException], None]

log = logging.getLogger(__name__)


class CoreClient:
    def __init__(self, core: CoreLoop, gui: GuiThread, report_error: ErrorHandler) -> None:
        self._core = core
        self._gui = gui
        self._report_error = report_error

    def call(
        self,
        coro: Coroutine[Any, Any, T],
        on_done: Callable[[T], None] | None = None,
        on_error: ErrorHandler | None = None,
    ) -> concurrent.futures.Future[T]:
        """Run `coro` on the core loop; `on_done` / `on_error` run on the GUI thread afterwards.
        Errors without a handler reach the window's error reporter (never silently dropped). Once the core
        has stopped (IdeA is quitting), a call made by a late GUI callback is dropped: its future is cancelled."""
        if not self._core.running:
            coro.close()
            dropped: concurrent.futures.Future[T] = concurrent.futures.Future()
            dropped.cancel()
            return dropped
        future = self._core.submit(coro)

        def finished(done: concurrent.futures.Future[T]) -> None:
            if done.cancelled():
                return
            error = done.exception()
            if error is None:
                if on_done is not None:
                    self._gui.post(lambda: on_done(done.result()))
                return
            if not isinstance(error, AppError):
                log.error("core call failed", exc_info=error)
            handler = on_error or self._report_error
            self._gui.post(lambda: handler(error))

        future.add_done_callback(finished)
        return future
