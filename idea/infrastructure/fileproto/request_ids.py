"""The request ids a project's request folders have answered, remembered across restarts (spec 03 §6:
each request is processed once, by its id).

One line per answered request in `.ideai/requests/.answered-ids`: `<agent id> <request id> <digest>`,
the digest being the first 16 hex digits of the request's SHA-256. The digest tells a request id used
again for another request (refused) from the same request met again (a crash between its answer and
the deletion of its file: already answered). The file is appended to, fsynced, and rewritten atomically
with the newest ids when it grows past its bound, so it stays small however long the project lives.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from pathlib import Path

from idea.infrastructure.fs import atomic_write_text

ANSWERED_IDS_FILE = ".answered-ids"
REMEMBERED_MAX = 50_000  # ids kept; beyond, the oldest are forgotten (a line is about 90 bytes)
_SLACK = REMEMBERED_MAX // 5  # lines appended past the bound before the file is rewritten

Key = tuple[str, str]  # (agent id, request id)


class AnsweredRequests:
    """Thread-safe: the door's loop asks, the threads that write answers record."""

    def __init__(self, requests_dir: Path, limit: int = REMEMBERED_MAX) -> None:
        self._path = requests_dir / ANSWERED_IDS_FILE
        self._limit = limit
        self._digests: OrderedDict[Key, str] = OrderedDict()
        self._lines_on_disk = 0
        self._lock = threading.Lock()

    @property
    def path(self) -> Path:
        return self._path

    def load(self) -> int:
        """Read what earlier runs answered; unreadable lines are skipped. Returns how many ids are known."""
        try:
            text = self._path.read_text(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            text = ""
        with self._lock:
            self._digests.clear()
            self._lines_on_disk = 0
            for line in text.splitlines():
                parts = line.split(" ")
                self._lines_on_disk += 1
                if len(parts) == 3 and all(parts):
                    self._put((parts[0], parts[1]), parts[2])
            return len(self._digests)

    def digest_of(self, key: Key) -> str | None:
        """The digest of the request answered under this id, None when the id was never answered."""
        with self._lock:
            return self._digests.get(key)

    def remember(self, key: Key, digest: str) -> None:
        """Record an answered request, on disk before this returns."""
        with self._lock:
            self._put(key, digest)
            self._path.parent.mkdir(parents=True, exist_ok=True)
            if self._lines_on_disk + 1 > self._limit + _SLACK:
                self._rewrite()
                return
            with self._path.open("a", encoding="utf-8") as handle:
                handle.write(f"{key[0]} {key[1]} {digest}\n")
                handle.flush()
                os.fsync(handle.fileno())
            self._lines_on_disk += 1

    def __len__(self) -> int:
        with self._lock:
            return len(self._digests)

    def _put(self, key: Key, digest: str) -> None:
        self._digests[key] = digest
        self._digests.move_to_end(key)
        while len(self._digests) > self._limit:
            self._digests.popitem(last=False)

    def _rewrite(self) -> None:
        text = "".join(f"{agent} {request} {digest}\n" for (agent, request), digest in self._digests.items())
        atomic_write_text(self._path, text)
        self._lines_on_disk = len(self._digests)
