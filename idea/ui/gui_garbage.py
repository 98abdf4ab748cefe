"""Python's cyclic garbage collected on the GUI thread only, while other threads run Python beside Qt.

Python collects cyclic garbage on whichever thread allocates past its threshold. When that is the core loop's
thread and the garbage holds a PySide wrapper (a widget, a bound signal, a slot connected to a signal), its
finalisation calls into Qt there: PySide's `QObject::disconnect` takes Qt's connection lock, then waits for
the interpreter lock, which the GUI thread holds while it emits a signal that needs that connection lock —
both threads wait for ever (a hung test run, native stacks read with py-spy). Qt objects belong to the
thread that made them, and so does their end.

So while a `GuiThread` lives, automatic collection is off, and a timer on the GUI thread collects with
Python's own thresholds every `COLLECT_EVERY_MS`: cyclic garbage lives at most that much longer, and
everything it holds ends on the GUI thread. When the last `GuiThread` goes, automatic collection is back.
"""

from __future__ import annotations

import gc
import threading
import weakref

from PySide6.QtCore import QObject, QTimer

COLLECT_EVERY_MS = 250

_lock = threading.Lock()
_holders = 0


def collect_on_gui_thread(owner: QObject) -> None:
    """GUI thread: collect garbage here (and nowhere else) as long as `owner` lives."""
    global _holders
    with _lock:
        _holders += 1
        gc.disable()
    timer = QTimer(owner)
    timer.setInterval(COLLECT_EVERY_MS)
    timer.timeout.connect(collect_due)
    timer.start()
    weakref.finalize(owner, _release)


def collect_due() -> None:
    """What Python's automatic collection would have done since the last call: a young generation's
    collection when enough objects were made, the older ones when enough young collections came before."""
    if gc.isenabled():
        return
    young, middle, old = gc.get_threshold()
    made, young_runs, middle_runs = gc.get_count()
    if made < young:
        return
    if young_runs >= middle and middle_runs >= old:
        gc.collect(2)
    elif young_runs >= middle:
        gc.collect(1)
    else:
        gc.collect(0)


def _release() -> None:
    global _holders
    with _lock:
        _holders -= 1
        if _holders == 0:
            gc.enable()
