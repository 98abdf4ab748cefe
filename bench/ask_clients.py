"""The requesters of `ask_roundtrip.py`, in a process of their own, as agent CLIs are.

Reads a JSON spec on stdin: `{"pairs": [{"command", "args", "env", "cwd", "target"}, …], "count", "warmup",
"gapS"}`; opens one official SDK client per pair, started exactly as the requester's `.mcp.json` says (so
through its real bridge); runs `warmup` unmeasured asks per pair, prints `ready`, waits for a line on stdin,
then runs `count` measured asks per pair, all pairs at once, and prints one JSON line per measured ask
(`ticket`, `startMs`, `endMs`, `seconds`) and `done`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import time
from typing import Any

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


async def ask_loop(client: ClientSession, pair: int, target: str, count: int, gap_s: float, report: bool) -> None:
    for index in range(count):
        answer = f"pong-{pair}-{index}"
        start_ms, started = time.time() * 1000, time.perf_counter()
        result = await client.call_tool("idea_ask_agent", {"target": target, "task": f"reply {answer}"})
        seconds, end_ms = time.perf_counter() - started, time.time() * 1000
        text = "".join(getattr(block, "text", "") for block in result.content)
        if result.is_error or text != answer:
            raise RuntimeError(f"pair {pair} ask {index}: {text!r}")
        if report:
            ticket = str((result.structured_content or {})["ticket"])
            print(json.dumps({"ticket": ticket, "startMs": start_ms, "endMs": end_ms, "seconds": seconds}), flush=True)
        if gap_s:
            await asyncio.sleep(gap_s)


async def main(spec: dict[str, Any]) -> None:
    pairs = spec["pairs"]
    async with contextlib.AsyncExitStack() as stack:
        clients = []
        for pair in pairs:
            params = StdioServerParameters(
                command=pair["command"], args=pair["args"], env=pair["env"], cwd=pair["cwd"]
            )
            read, write = await stack.enter_async_context(stdio_client(params, errlog=sys.stderr))
            session = await stack.enter_async_context(ClientSession(read, write))
            await session.initialize()
            clients.append(session)
        loops = [(client, index, pairs[index]["target"]) for index, client in enumerate(clients)]
        await asyncio.gather(*(ask_loop(c, i, t, spec["warmup"], spec["gapS"], False) for c, i, t in loops))
        print("ready", flush=True)
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
        await asyncio.gather(*(ask_loop(c, i, t, spec["count"], spec["gapS"], True) for c, i, t in loops))
        print("done", flush=True)


if __name__ == "__main__":
    asyncio.run(main(json.loads(sys.stdin.readline())))
