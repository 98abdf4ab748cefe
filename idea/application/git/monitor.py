"""Refresh on file-system events (spec 07 §1): changes under the working tree and the git directory,
made by IdeA, a terminal or an agent, announce `GitChanged` once things settle — 500 ms after the last
event, and at least every 3 s while events keep coming. IdeA's runtime files and git's object store are
left out, so agents at work do not keep the panel busy."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable

from idea.application.git.ports import FolderWatcher
from idea.application.orchestrator.ports import Timer
from idea.application.ports import Unsubscribe
from idea.domain.git.watch import is_relevant_change

DEBOUNCE_MS = 500
MAX_DELAY_MS = 3000


class GitMonitor:
    def __init__(self, watcher: FolderWatcher, timer: Timer, announce: Callable[[], None]) -> None:
        self._watcher = watcher
        self._timer = timer
        self._announce = announce
        self._stops: list[Unsubscribe] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._first_ms: int | None = None
        self._last_ms = 0
        self._task: asyncio.Task[None] | None = None
        self._workdir: str | None = None
        self._git_dir = ""

    def start(self, workdir: str | None, git_dir: str) -> None:
        """Watch the working tree (when there is one) and the git directory. Called on the core loop."""
        self.stop()
        self._loop = asyncio.get_running_loop()
        self._workdir = _folder(workdir) if workdir else None
        self._git_dir = _folder(git_dir)
        if self._workdir is not None:
            self._stops.append(self._watcher.watch(self._workdir, self._from_thread))
        if self._workdir is None or not _inside(self._git_dir, self._workdir):
            self._stops.append(self._watcher.watch(self._git_dir, self._from_thread))

    def stop(self) -> None:
        for stop in self._stops:
            stop()
        self._stops.clear()
        if self._task is not None:
            self._task.cancel()
            self._task = None

    def _from_thread(self, path: str) -> None:
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self.notice, path)

    def notice(self, path: str) -> None:
        """One changed path (absolute), on the core loop."""
        if not self._relevant(path):
            return
        now = self._timer.monotonic_ms()
        self._last_ms = now
        if self._first_ms is None:
            self._first_ms = now
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._settle())

    async def _settle(self) -> None:
        while True:
            assert self._first_ms is not None
            now = self._timer.monotonic_ms()
            due = min(self._last_ms + DEBOUNCE_MS, self._first_ms + MAX_DELAY_MS)
            if now >= due:
                break
            await self._timer.sleep(due - now)
        self._first_ms = None
        self._announce()

    def _relevant(self, path: str) -> bool:
        normal = path.replace(os.sep, "/")
        if _inside(normal, self._git_dir):
            return is_relevant_change(normal[len(self._git_dir) :], in_git_dir=True)
        if self._workdir is not None and _inside(normal, self._workdir):
            return is_relevant_change(normal[len(self._workdir) :], in_git_dir=False)
        return False


def _folder(path: str) -> str:
    return os.path.normpath(path).replace(os.sep, "/").rstrip("/")


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder + "/")
