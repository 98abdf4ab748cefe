"""The persistent diagnostics log: `<user-data>/logs/idea.log`, one `<epoch_ms> <message>` line each."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

MAX_BYTES = 5 * 1024 * 1024
KEPT_ROTATIONS = 5


class FileDiagnostics:
    def __init__(self, directory: Path) -> None:
        self._path = directory / "idea.log"
        self._lock = threading.Lock()
        directory.mkdir(parents=True, exist_ok=True)

    @property
    def path(self) -> Path:
        return self._path

    def beacon(self, message: str) -> None:
        line = f"{time.time_ns() // 1_000_000} {' '.join(message.splitlines())}\n".encode()
        with self._lock:
            try:
                self._rotate_if_full()
                fd = os.open(self._path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
                try:
                    os.write(fd, line)
                finally:
                    os.close(fd)
            except OSError:
                pass  # diagnostics must never break the feature they observe

    def _rotate_if_full(self) -> None:
        try:
            if self._path.stat().st_size < MAX_BYTES:
                return
        except FileNotFoundError:
            return
        for index in range(KEPT_ROTATIONS - 1, 0, -1):
            older = self._path.with_name(f"idea.log.{index}")
            if older.exists():
                os.replace(older, self._path.with_name(f"idea.log.{index + 1}"))
        os.replace(self._path, self._path.with_name("idea.log.1"))
