"""Where a conversation log's fsynced append runs: on the core loop while this disk's appends are quick, on a
worker thread as soon as one is slow.

Sending an append to a worker thread and back costs about 0.2 ms (two thread wake-ups, more on a loaded
machine): on an SSD or a quiet disk that is as much as the append itself, write and fsync included, and the
recorded turn waits for both. On a slow or busy disk (a spinning disk, a network folder, Windows' flush of
a file, a disk shared with a build) one fsync takes milliseconds to tens of milliseconds, and the core loop —
every agent's requests, the terminals' output — must not wait for it. So an append runs inline only after
`streak` appends in a row each took at most `inline_at_most_s`; one slower append sends the following ones
back to the worker thread until a new streak of quick ones (measured there) proves the disk quick again. The
loop is thus held at most by the one slow append that revealed the change.
"""

from __future__ import annotations

import time
from collections.abc import Callable

INLINE_AT_MOST_S = 0.001
STREAK = 16


class AppendPlacement:
    def __init__(
        self,
        *,
        inline_at_most_s: float = INLINE_AT_MOST_S,
        streak: int = STREAK,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        """`inline_at_most_s=0`: every append on a worker thread."""
        self._limit = inline_at_most_s
        self._streak = streak
        self._quick = 0  # quick appends in a row
        self.clock = clock

    def inline(self) -> bool:
        """True: run the next append on the calling thread."""
        return self._limit > 0 and self._quick >= self._streak

    def took(self, seconds: float) -> None:
        """How long one append took (its own work, wherever it ran)."""
        self._quick = self._quick + 1 if seconds <= self._limit else 0
