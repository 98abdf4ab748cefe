"""SIGTERM, SIGHUP and SIGINT end IdeA like File ▸ Quit does: every project closes, its agents stop, and
its socket is removed from the runtime folder (a killed process left its sockets behind).

Python runs a signal handler only when the interpreter gets control, which Qt's event loop does not give
it; the signal's number is written to a socket pair (`signal.set_wakeup_fd`) that a `QSocketNotifier`
watches, so the quit runs on the GUI thread at once.
"""

from __future__ import annotations

import signal
import socket
from collections.abc import Callable

from PySide6.QtCore import QObject, QSocketNotifier

# Windows has no SIGHUP.
QUIT_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP", "SIGINT") if hasattr(signal, name))


class QuitOnSignals(QObject):
    """Calls `quit` once when one of QUIT_SIGNALS arrives; `close` gives the signals back."""

    def __init__(self, quit: Callable[[], None], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._quit = quit
        self._quitting = False
        self._reader, self._writer = socket.socketpair()
        self._reader.setblocking(False)
        self._writer.setblocking(False)
        self._previous_fd = signal.set_wakeup_fd(self._writer.fileno())
        self._previous = {number: signal.signal(number, lambda *_: None) for number in QUIT_SIGNALS}
        self._notifier = QSocketNotifier(self._reader.fileno(), QSocketNotifier.Type.Read, self)
        self._notifier.activated.connect(self._on_signal)

    def _on_signal(self) -> None:
        try:
            received = self._reader.recv(64)
        except BlockingIOError:
            return
        if not self._quitting and any(number in received for number in QUIT_SIGNALS):
            self._quitting = True
            self._quit()

    def close(self) -> None:
        self._notifier.setEnabled(False)
        signal.set_wakeup_fd(self._previous_fd)
        for number, handler in self._previous.items():
            signal.signal(number, handler if handler is not None else signal.SIG_DFL)
        self._reader.close()
        self._writer.close()
