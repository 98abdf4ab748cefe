"""The Timer port on the real monotonic clock."""

from __future__ import annotations

import asyncio
import time


class MonotonicTimer:
    def monotonic_ms(self) -> int:
        return time.monotonic_ns() // 1_000_000

    async def sleep(self, ms: int) -> None:
        await asyncio.sleep(max(ms, 0) / 1000)
