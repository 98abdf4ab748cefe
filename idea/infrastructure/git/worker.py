"""The worker pool the git use cases run libgit2 on (spec 00 §5.5: blocking work never on the core loop
nor on the GUI thread)."""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

GIT_WORKERS = 2


class ThreadWorker:
    def __init__(self, workers: int = GIT_WORKERS, name: str = "idea-git") -> None:
        self._pool = concurrent.futures.ThreadPoolExecutor(max_workers=workers, thread_name_prefix=name)

    async def run(self, work: Callable[[], T]) -> T:
        return await asyncio.get_running_loop().run_in_executor(self._pool, work)

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)
