"""Folder watches with `watchdog` (one observer thread for every watch of the application)."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer
from watchdog.observers.api import BaseObserver

from idea.application.ports import Unsubscribe

_CHANGES = {"created", "deleted", "modified", "moved", "closed"}


class _Handler(FileSystemEventHandler):
    def __init__(self, on_change: Callable[[str], None]) -> None:
        self._on_change = on_change

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type not in _CHANGES or (event.is_directory and event.event_type == "modified"):
            return  # a folder "modified" only says that something inside changed, reported on its own
        for path in (event.src_path, getattr(event, "dest_path", "")):
            if path:
                self._on_change(os.fsdecode(path))


class WatchdogFolderWatcher:
    def __init__(self) -> None:
        self._observer: BaseObserver | None = None
        self._lock = threading.Lock()

    def watch(self, folder: str, on_change: Callable[[str], None]) -> Unsubscribe:
        with self._lock:
            if self._observer is None:
                self._observer = Observer()
                self._observer.daemon = True
                self._observer.start()
            observer = self._observer
        try:
            watch = observer.schedule(_Handler(on_change), folder, recursive=True)
        except OSError:
            return lambda: None  # a folder that cannot be watched: refreshes on focus still happen

        def stop() -> None:
            try:
                observer.unschedule(watch)
            except (KeyError, OSError):
                pass

        return stop

    def close(self) -> None:
        with self._lock:
            observer, self._observer = self._observer, None
        if observer is not None:
            observer.stop()
            observer.join(timeout=5)
