"""A cell's "new output" mark: activity at the first output after a quiet moment, silence once it is quiet
again. Both terminal views keep one; each tells it when output starts and stops in its own way."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject

from idea.ui.widgets.timers import single_shot_timer


class ActivityMark:
    def __init__(
        self, parent: QObject, silence_ms: int, on_activity: Callable[[], None], on_silence: Callable[[], None]
    ) -> None:
        """GUI thread: `on_activity()` for the first output after `silence_ms` of quiet (or the first of all),
        `on_silence()` once output has stopped for `silence_ms`."""
        self._on_activity = on_activity
        self._on_silence = on_silence
        self._silent = True
        self._timer = single_shot_timer(parent, silence_ms, self._quiet)

    def set_silence_ms(self, ms: int) -> None:
        self._timer.setInterval(ms)

    def output_started(self) -> None:
        self._timer.stop()
        if self._silent:
            self._silent = False
            self._on_activity()

    def output_stopped(self) -> None:
        self._timer.start()

    def output(self) -> None:
        """Output that came all at once: it started and stopped."""
        self.output_started()
        self.output_stopped()

    def _quiet(self) -> None:
        self._silent = True
        self._on_silence()
