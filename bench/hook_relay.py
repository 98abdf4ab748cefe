"""Cost of one hook event: what an agent CLI waits for on every `UserPromptSubmit` and `Stop`.

Each sample starts a process exactly as Claude Code does for a hook (`/bin/sh -c "<command>"`, the event's
JSON on stdin) and waits for it to exit; IdeA's MCP server listens on its real socket (its own thread and
loop, a fake orchestration core that takes the event), so every relayed sample is a complete relay: connect,
handshake, event, payload, IdeA's close. Measured, alternating so the machine's load falls on all alike:

- bare: `python -I -S -c pass`, the baseline (an interpreter that does nothing);
- relay: the command the run dir declares today (`python -I -S -c "import relay…" …/hooks …`);
- subcommand: `python -m idea hook …`, the form every hook used before (and what frozen builds still use).

The relay's target is at most 1.2× the baseline (median wall time), measured in the same run, over either
transport: `--transport loopback` serves Windows' endpoint file and loopback TCP (the relay then reads the
file and checks IdeA's greeting before it sends).

    python bench/hook_relay.py [--runs 40] [--transport unix|loopback]
"""

from __future__ import annotations

import argparse
import asyncio
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
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from idea.domain.mcp_wiring import hook_relay_args  # noqa: E402
from idea.infrastructure.agents.executable import idea_command  # noqa: E402
from idea.infrastructure.agents.hook_command import hook_relay_command  # noqa: E402
from tests.fakes_gateway import MAIN, TOKENS  # noqa: E402
from tests.integration.mcp_support import PROJECT_HEX, bridge_env, project_endpoint, serving  # noqa: E402

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


def serve_in_background(endpoint: str) -> tuple[threading.Event, list[int], threading.Thread]:
    stop = threading.Event()
    counter: list[int] = [0]
    ready = threading.Event()

    def run() -> None:
        async def main() -> None:
            async with serving(endpoint) as served:
                ready.set()
                while not stop.is_set():
                    await asyncio.sleep(0.05)
                counter[0] = len(served.gateway.hook_events)

        asyncio.run(main())

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    ready.wait(30)
    return stop, counter, thread


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
        stop, counter, thread = serve_in_background(endpoint)
        walls: dict[str, list[float]] = {name: [] for name in commands}
        cpus: dict[str, list[float]] = {name: [] for name in commands}
        for name, command in commands.items():  # warm-up: page cache, bytecode
            for _ in range(3):
                sample(command, env)
        for _ in range(args.runs):
            for name, command in commands.items():
                wall, cpu = sample(command, env)
                walls[name].append(wall)
                cpus[name].append(cpu)
        stop.set()
        thread.join(10)
    relayed = counter[0]
    expected = (args.runs + 3) * 2
    load = os.getloadavg()
    print(f"transport: {args.transport}")
    print(f"Python {platform.python_version()}, {os.cpu_count()} CPUs, load {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")
    print(f"events taken by IdeA: {relayed} of {expected}")
    base = statistics.median(walls["bare python -I -S -c pass"])
    print("| Process (through `sh -c`, as Claude runs hooks) | median wall (ms) | p90 (ms) | CPU (ms) | / bare |")
    print("|---|---:|---:|---:|---:|")
    for name in commands:
        ordered = sorted(walls[name])
        p90 = ordered[int(0.9 * (len(ordered) - 1))]
        median = statistics.median(ordered)
        print(
            f"| {name} | {median:.1f} | {p90:.1f} | {statistics.median(cpus[name]):.1f} | {median / base:.2f} |"
        )


if __name__ == "__main__":
    main()
