"""Qt's messages as IdeA lets them through: all of them, less the known noise of the pinned terminal widget.

The binding builds each terminal widget before pointing it at the key tables it ships, so the widget first
looks for its "default" table where it was compiled, prints `Unable to load translator "default"` (a debug
line on stderr, once for every terminal started), then uses the shipped tables. Someone who starts IdeA from a
shell would read it as a failure; it is dropped. Every other message goes where it went before.
"""

from __future__ import annotations

import sys

from PySide6.QtCore import QMessageLogContext, QtMsgType, qFormatLogMessage, qInstallMessageHandler

NOISE = frozenset({'Unable to load translator "default"'})

_installed = False


def drop_known_noise() -> None:
    """Install the filter (once per process)."""
    global _installed
    if _installed:
        return
    _installed = True
    previous = None

    def handle(kind: QtMsgType, context: QMessageLogContext, message: str) -> None:
        if kind == QtMsgType.QtDebugMsg and message in NOISE:
            return
        if previous is not None:
            previous(kind, context, message)
        else:
            sys.stderr.write(qFormatLogMessage(kind, context, message) + "\n")

    previous = qInstallMessageHandler(handle)
