"""Cost of one hook event: what an agent CLI waits for on every `UserPromptSubmit` and `Stop`.

Each sample starts a process exactly as Claude Code does for a hook (`/bin/sh -c "<command>"`, the event's
JSON on stdin) and waits for it to exit; IdeA's MCP server listens on its real socket (its own thread and
loop, a fake orchestration core that takes the event), so every relayed sample is a complete relay: connect,
handshake, event, payload, IdeA's close. Measured, alternating so the machine's load falls on all alike:

- bare: `python -I -S -c pass`, the baseline (an interpreter that does nothing);
- relay: the command the run dir declares today (`python -I -S -c "import relay…" …/hooks …`);
- subcommand: `python -m idea hook …`, the form every hook used before (and what frozen builds still use);
- HTTP hook door: what Claude Code's `http` hooks cost instead of a process, a POST of the same payload to
  the project's hook door (its own loop beside the MCP server's) on a kept-alive connection, as Claude's
  HTTP client keeps one, and on a fresh connection per event (the worst case).

The relay's target is at most 1.2× the baseline (median wall time), measured in the same run, over either
transport: `--transport loopback` serves Windows' endpoint file and loopback TCP (the relay then reads the
file and checks IdeA's greeting before it sends).

    python bench/hook_relay.py [--runs 40] [--transport unix|loopback]
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import os
import platform
import resource
import shlex
import statistics
import subprocess
import sys
import threading
import time
import urllib.parse
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from idea.domain.mcp_wiring import hook_relay_args  # noqa: E402
from idea.infrastructure.agents.executable import idea_command  # noqa: E402
from idea.infrastructure.agents.hook_command import hook_relay_command  # noqa: E402
from idea.infrastructure.hooks.http_door import HookHttpDoor, HookUrls, hook_url  # noqa: E402
from tests.fakes_gateway import MAIN, TOKENS  # noqa: E402
from tests.integration.mcp_support import (  # noqa: E402
    PROJECT_HEX,
    PROJECT_ID,
    bridge_env,
    project_endpoint,
    serving,
)

POSTS = ("HTTP hook door, kept-alive connection", "HTTP hook door, a connection per event")

PAYLOAD = json.dumps(
    {
        "session_id": "9b2f7c1e-0d3a-4e5b-8c6d-7e8f9a0b1c2d",
        "transcript_path": "/home/ada/.claude/projects/-home-ada-shop/9b2f.jsonl",
        "cwd": "/home/ada/shop/.ideai/run/x",
        "hook_event_name": "Stop",
        "stop_hook_active": False,
    }
).encode()


def shell_line(argv: list[str]) -> str:
    return shlex.join(argv)


def sample(command: str, env: dict[str, str]) -> tuple[float, float]:
    """Wall ms and CPU ms (the child and its children) of one hook process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(["/bin/sh", "-c", command], input=PAYLOAD, env=env, stdout=subprocess.DEVNULL, check=True)
    wall = (time.perf_counter() - started) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
    return wall, cpu


def post_sample(door_url: str, connection: http.client.HTTPConnection | None) -> float:
    """Wall ms of one event posted to the hook door, on `connection` or on a connection of its own."""
    url = urllib.parse.urlsplit(hook_url(door_url, MAIN, "Stop"))
    started = time.perf_counter()
    own = connection is None
    connection = connection or http.client.HTTPConnection(url.hostname or "", url.port, timeout=5)
    headers = {"Content-Type": "application/json", "Authorization": f"Bearer {TOKENS[MAIN]}"}
    connection.request("POST", url.path, body=PAYLOAD, headers=headers)
    answer = connection.getresponse()
    answer.read()
    if own:
        connection.close()
    if answer.status != 200:
        raise RuntimeError(f"the hook door answered {answer.status}")
    return (time.perf_counter() - started) * 1000


def serve_in_background(endpoint: str) -> tuple[threading.Event, list[int], threading.Thread, str]:
    stop = threading.Event()
    counter: list[int] = [0]
    ready = threading.Event()
    urls = HookUrls()

    def run() -> None:
        async def main() -> None:
            async with serving(endpoint) as served:
                door = HookHttpDoor(PROJECT_ID, served.gateway, served.diagnostics, urls)
                await door.start()
                ready.set()
                while not stop.is_set():
                    await asyncio.sleep(0.05)
                counter[0] = len(served.gateway.hook_events)
                await door.close()

        asyncio.run(main())

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    ready.wait(30)
    door_url = urls.url_for(PROJECT_ID)
    assert door_url is not None
    return stop, counter, thread, door_url


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument(
        "--transport", choices=("unix", "loopback"), default="unix", help="loopback: Windows' endpoint file + TCP"
    )
    args = parser.parse_args()
    env = bridge_env(TOKENS[MAIN])
    with project_endpoint(args.transport) as endpoint:
        relay_args = hook_relay_args("claude", endpoint, PROJECT_HEX, MAIN)
        commands = {
            "bare python -I -S -c pass": shell_line([sys.executable, "-I", "-S", "-c", "pass"]),
            "relay (run dir's command)": shell_line([*hook_relay_command(), *relay_args[1:], "--event", "Stop"]),
            "python -m idea hook (before)": shell_line([*idea_command(), *relay_args, "--event", "Stop"]),
        }
        stop, counter, thread, door_url = serve_in_background(endpoint)
        walls: dict[str, list[float]] = {name: [] for name in (*commands, *POSTS)}
        cpus: dict[str, list[float]] = {name: [] for name in commands}
        kept = http.client.HTTPConnection(urllib.parse.urlsplit(door_url).hostname or "", urllib.parse.urlsplit(door_url).port)
        for name, command in commands.items():  # warm-up: page cache, bytecode
            for _ in range(3):
                sample(command, env)
        for _ in range(3):
            post_sample(door_url, kept)
        for _ in range(args.runs):
            for name, command in commands.items():
                wall, cpu = sample(command, env)
                walls[name].append(wall)
                cpus[name].append(cpu)
            walls[POSTS[0]].append(post_sample(door_url, kept))
            walls[POSTS[1]].append(post_sample(door_url, None))
        kept.close()
        stop.set()
        thread.join(10)
    relayed = counter[0]
    expected = (args.runs + 3) * 2 + args.runs * 2 + 3
    load = os.getloadavg()
    print(f"transport: {args.transport}")
    print(f"Python {platform.python_version()}, {os.cpu_count()} CPUs, load {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")
    print(f"events taken by IdeA: {relayed} of {expected}")
    base = statistics.median(walls["bare python -I -S -c pass"])
    print("| Hook event (a process through `sh -c`, as Claude runs command hooks; or a POST) | median wall (ms) | p90 (ms) | CPU (ms) | / bare |")
    print("|---|---:|---:|---:|---:|")
    for name in (*commands, *POSTS):
        ordered = sorted(walls[name])
        p90 = ordered[int(0.9 * (len(ordered) - 1))]
        median = statistics.median(ordered)
        cpu = f"{statistics.median(cpus[name]):.1f}" if name in cpus else "(no process)"
        print(f"| {name} | {median:.2f} | {p90:.2f} | {cpu} | {median / base:.3f} |")


if __name__ == "__main__":
    main()
