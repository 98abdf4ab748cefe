"""Round trip of one delegation, end to end, with targets that answer at once.

A requester's MCP client (the official SDK client, spawned exactly as the requester's `.mcp.json` says, so
through the real bridge) calls `idea_ask_agent`; the orchestrator types the task into the target's live
terminal (a real PTY); the target, the fake agent CLI of the integration tests dressed as Claude (hooks,
`.mcp.json`), acts on `reply <text>` at once with `idea_reply` through its own bridge; the ask returns.

The world is the acceptance scenarios' (`tests/integration/scenario_support.py`): IdeA bootstrapped with
headless PTY terminals and the scenarios' short timings, a project on its real socket, real bridge and
hook-relay subprocesses. Requesters (idle CLIs) and targets run in the background: no cell, no input
portal, so no human-input overlay and no overlay floor.

Three runs, each after a warm-up per pair:
- 1 pair: one requester asks one target, ask after ask;
- 1 pair with a pause (`--gap-ms`, not counted) after each answer, so every ask finds the target's lane
  idle, as a lone delegation does;
- N pairs (8 by default): N requesters each ask their own target, ask after ask, all at once.

The targets' profile submits after `--submit-delay-ms` (0 by default, the minimum a profile allows); the
configured delay is subtracted from every sample. IdeA's core runs on its own thread of this process; the
scenario's live-state observer, which rereads `live-state.json` on each change, runs on the core thread too
and is counted with it.
A breakdown of the median ask into stages comes from the diagnostics log's beacons (epoch milliseconds),
and the CPU time each kind of process spent per ask from their CPU counters over the measured asks.

The requesters' clients run in a process of their own (`ask_clients.py`), as agent CLIs do; `--clients
thread` runs them on this process's main thread instead, sharing the interpreter with IdeA's core.
The targets' Claude hooks go to the project's HTTP hook door, as IdeA declares them; `--hooks relay`
declares the command relay instead (a process per event), as for a project whose door could not open.

    python bench/ask_roundtrip.py [--asks 200] [--pair-asks 50] [--pairs 8] [--warmup 10] [--gap-ms 100]
                                  [--submit-delay-ms 0] [--hooks http|relay] [--clients process|thread]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import json
import os
import platform
import re
import shlex
import statistics
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import psutil
import pytest  # its MonkeyPatch sets the scenario's environment and restores it
from mcp import ClientSession

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from idea.infrastructure.hooks.http_door import HookUrls  # noqa: E402
from tests.integration.scenario_support import (  # noqa: E402
    Scenario,
    ScenarioFactory,
    fake_profile,
    idle_requester_profile,
    processes_with_home,
    requester_client,
    result_text,
)

BEACON = re.compile(r"^(?P<ms>\d+) \[(?P<tag>[a-z-]+)\] (?P<what>\S+).*?\bticket=(?P<ticket>[0-9a-f-]{36})")
# Stages of one ask, each between two instants: the client's own clock, or a beacon of the core.
STAGES = (
    ("client → enqueued", "start", "enqueued", "SDK client, requester's bridge, socket, server, dispatch"),
    ("enqueued → typed", "enqueued", "write", "mailbox, the lane's writer free, the text in 512-character chunks"),
    ("typed → submitted", "write", "submit", "the profile's submit delay"),
    ("submitted → turn started", "submit", "turn", "CLI reads it, `UserPromptSubmit` hook relay reaches IdeA"),
    ("turn started → replied", "turn", "ended", "hook relay exits, `idea_reply` through the target's bridge"),
    ("replied → client", "ended", "end", "server, requester's bridge, SDK client"),
)

CPU_KINDS = (
    "IdeA core and the rest of its process",
    "SDK clients (their own process, or this process's main thread)",
    "bridges (requesters' and targets')",
    "target CLIs (fake agent)",
    "hook relays (`sh` + the relay on `python -I -S`; none with the HTTP hook door)",
)


@dataclass
class Ask:
    ticket: str
    start_ms: float  # epoch, the client's clock
    end_ms: float
    seconds: float  # perf_counter, submit delay not yet subtracted


@dataclass
class Run:
    label: str
    pairs: int
    asks: list[Ask] = field(default_factory=list)
    wall_s: float = 0.0
    cpu_s: dict[str, float] = field(default_factory=dict)  # per kind of process, over the measured asks


async def ask_loop(client: ClientSession, pair: int, count: int, gap_s: float, into: list[Ask] | None) -> None:
    for index in range(count):
        answer = f"pong-{pair}-{index}"
        start_ms, started = time.time() * 1000, time.perf_counter()
        result = await client.call_tool("idea_ask_agent", {"target": f"Target{pair}", "task": f"reply {answer}"})
        seconds, end_ms = time.perf_counter() - started, time.time() * 1000
        if result.is_error or result_text(result) != answer:
            raise RuntimeError(f"pair {pair} ask {index}: {result_text(result)!r}")
        if into is not None:
            into.append(Ask(str(result.structured_content["ticket"]), start_ms, end_ms, seconds))
        if gap_s:
            await asyncio.sleep(gap_s)


async def measure(
    scenario: Scenario, label: str, pairs: int, count: int, warmup: int, gap_s: float = 0, *, clients: str = "process"
) -> Run:
    """Each pair's requester client opened, a warm-up, then `count` measured asks per pair, pairs at once:
    the clients in a process of their own (`ask_clients.py`, as agent CLIs are), or on this process's main
    thread (`clients="thread"`, sharing the interpreter with IdeA's core)."""
    if clients == "process":
        return await measure_in_process(scenario, label, pairs, count, warmup, gap_s)
    run = Run(label, pairs)
    async with contextlib.AsyncExitStack() as stack:
        clients = [await stack.enter_async_context(requester_client(scenario, f"Asker{p}")) for p in range(pairs)]
        await asyncio.gather(*(ask_loop(client, p, warmup, gap_s, None) for p, client in enumerate(clients)))
        cpu_before, started = cpu_seconds(), time.perf_counter()
        await asyncio.gather(*(ask_loop(client, p, count, gap_s, run.asks) for p, client in enumerate(clients)))
        run.wall_s, cpu_after = time.perf_counter() - started, cpu_seconds()
        run.cpu_s = {kind: cpu_after.get(kind, 0.0) - cpu_before.get(kind, 0.0) for kind in CPU_KINDS}
    return run


async def measure_in_process(
    scenario: Scenario, label: str, pairs: int, count: int, warmup: int, gap_s: float
) -> Run:
    run = Run(label, pairs)
    spec = {"count": count, "warmup": warmup, "gapS": gap_s, "pairs": []}
    for pair in range(pairs):
        declared = scenario.mcp_declaration(f"Asker{pair}")
        spec["pairs"].append({
            "command": declared["command"],
            "args": list(declared.get("args", [])),
            "env": {**os.environ, **declared.get("env", {})},
            "cwd": str(scenario.run_dir(f"Asker{pair}")),
            "target": f"Target{pair}",
        })  # fmt: skip
    with (scenario.app.data_dir / "logs" / "sdk-client-bridge.log").open("a", encoding="utf-8") as errlog:
        process = await asyncio.create_subprocess_exec(
            sys.executable, str(REPO / "bench" / "ask_clients.py"),
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=errlog,
        )  # fmt: skip
        assert process.stdin is not None and process.stdout is not None
        try:
            process.stdin.write(json.dumps(spec).encode() + b"\n")
            await process.stdin.drain()
            if (await process.stdout.readline()).strip() != b"ready":
                raise RuntimeError("the requesters' process did not get ready (sdk-client-bridge.log says why)")
            cpu_before, started = cpu_seconds(), time.perf_counter()
            process.stdin.write(b"go\n")
            await process.stdin.drain()
            while (line := (await process.stdout.readline()).strip()) != b"done":
                if not line:
                    raise RuntimeError("the requesters' process ended early (sdk-client-bridge.log says why)")
                ask = json.loads(line)
                run.asks.append(Ask(ask["ticket"], ask["startMs"], ask["endMs"], ask["seconds"]))
            run.wall_s, cpu_after = time.perf_counter() - started, cpu_seconds()
            run.cpu_s = {kind: cpu_after.get(kind, 0.0) - cpu_before.get(kind, 0.0) for kind in CPU_KINDS}
            process.stdin.close()
            await asyncio.wait_for(process.wait(), 30)
        finally:
            if process.returncode is None:
                process.kill()
                await process.wait()
    return run


def cpu_seconds() -> dict[str, float]:
    """CPU time (user + system) so far of each kind of process taking part; the hook relays, short-lived
    children of the target CLIs, as the CLIs' reaped children."""
    own = psutil.Process()
    main_tid = threading.main_thread().native_id
    threads = {t.id: t.user_time + t.system_time for t in own.threads()}
    totals = dict.fromkeys(CPU_KINDS, 0.0)
    totals[CPU_KINDS[1]] = threads.get(main_tid, 0.0)
    totals[CPU_KINDS[0]] = sum(threads.values()) - totals[CPU_KINDS[1]]
    for process in own.children(recursive=True):
        with contextlib.suppress(psutil.Error):
            command = " ".join(process.cmdline())
            times = process.cpu_times()
            if "ask_clients.py" in command:
                totals[CPU_KINDS[1]] += times.user + times.system
            elif "mcp-server" in command:
                totals[CPU_KINDS[2]] += times.user + times.system
            elif "fake_agent_cli.py" in command:
                totals[CPU_KINDS[3]] += times.user + times.system
                totals[CPU_KINDS[4]] += times.children_user + times.children_system
    return totals


def build_team(scenario: Scenario, pairs: int, submit_delay_ms: int) -> None:
    """`pairs` idle requesters and `pairs` fake-agent targets, all launched in the background."""
    target = fake_profile("Fake Claude (bench)", submit_delay_ms=submit_delay_ms)
    asker = idle_requester_profile()
    for profile in (target, asker):
        scenario.sync(lambda p=profile: scenario.app.profiles.save_profile(p))
    for pair in range(pairs):
        for name, profile in ((f"Asker{pair}", asker), (f"Target{pair}", target)):
            entry = scenario.on_core(scenario.runtime.agents.create(name, profile.id, f"# {name}\n"))
            scenario.agents[name] = entry
            scenario.launch(name, visible=False)
    for pair in range(pairs):
        scenario.wait_bridge(f"Target{pair}", timeout=60)


def beacon_times(log_dir: Path) -> dict[str, dict[str, int]]:
    """{ticket: {instant: epoch ms}} from the diagnostics log (rotations included)."""
    names = {
        ("mailbox", "enqueued"): "enqueued",
        ("delivery", "write"): "write",
        ("delivery", "submit"): "submit",
        ("turn", "started"): "turn",
        ("rendezvous", "ended"): "ended",
    }
    found: dict[str, dict[str, int]] = {}
    for path in sorted(log_dir.glob("idea.log*")):
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            match = BEACON.match(line)
            name = names.get((match["tag"], match["what"])) if match else None
            if match and name:
                found.setdefault(match["ticket"], {}).setdefault(name, int(match["ms"]))
    return found


def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def stage_medians(run: Run, beacons: dict[str, dict[str, int]]) -> list[float | None]:
    medians: list[float | None] = []
    for _, start, end, _ in STAGES:
        spans = []
        for ask in run.asks:
            instants = {**beacons.get(ask.ticket, {}), "start": ask.start_ms, "end": ask.end_ms}
            if start in instants and end in instants:
                spans.append(instants[end] - instants[start])
        medians.append(statistics.median(spans) if spans else None)
    return medians


def report(args: argparse.Namespace, runs: list[Run], beacons: dict[str, dict[str, int]]) -> None:
    delay_s = args.submit_delay_ms / 1000
    load = ", ".join(f"{value:.2f}" for value in os.getloadavg())
    labels = " | ".join(run.label for run in runs)
    print(f"Command: `{shlex.join(['python', *sys.argv])}` ({time.strftime('%Y-%m-%d')})  ")
    print(
        f"Machine: {platform.machine()}, {os.cpu_count()} CPUs, {platform.system()} {platform.release()}, "
        f"Python {platform.python_version()}; load average before the runs {args.load_before}, after {load}  "
    )
    print(
        f"Warm-up: {args.warmup} asks per pair before each run. Submit delay: {args.submit_delay_ms} ms configured "
        "on the targets' profile, subtracted from every sample.\n"
    )
    print("| Run | Asks | p50 (ms) | p99 (ms) | mean (ms) | max (ms) | asks/s |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for run in runs:
        samples = [(ask.seconds - delay_s) * 1000 for ask in run.asks]
        print(
            f"| {run.label} | {len(samples)} | {percentile(samples, 0.5):.1f} | {percentile(samples, 0.99):.1f} | "
            f"{statistics.mean(samples):.1f} | {max(samples):.1f} | {len(samples) / run.wall_s:.1f} |"
        )
    print("\nMedian of each stage, ms (diagnostics-log beacons, millisecond resolution; nothing subtracted):\n")
    print(f"| Stage | {labels} | What it covers |")
    print(f"|---|{'---:|' * len(runs)}---|")
    columns = [stage_medians(run, beacons) for run in runs]
    for index, (name, _, _, covers) in enumerate(STAGES):
        cells = " | ".join("–" if column[index] is None else f"{column[index]:.0f}" for column in columns)
        print(f"| {name} | {cells} | {covers} |")
    print(
        "\nWhat IdeA adds beyond the target CLI's own work, per ask: its own stages (client → submitted, "
        "replied → client); the two stages between hold the CLI reading the task, working and calling "
        "`idea_reply` (whose bridge hop and dispatch, about a millisecond, are IdeA's but counted there).\n"
    )
    print("| Run | IdeA's stages p50 (ms) | p99 (ms) | max (ms) | the CLI's stages p50 (ms) | p99 (ms) |")
    print("|---|---:|---:|---:|---:|---:|")
    for run in runs:
        own, cli = [], []
        for ask in run.asks:
            at = {**beacons.get(ask.ticket, {}), "start": ask.start_ms, "end": ask.end_ms}
            if all(name in at for name in ("submit", "ended")):
                own.append((at["submit"] - at["start"]) + (at["end"] - at["ended"]) - args.submit_delay_ms)
                cli.append(at["ended"] - at["submit"])
        if own:
            print(
                f"| {run.label} | {percentile(own, 0.5):.0f} | {percentile(own, 0.99):.0f} | {max(own):.0f} | "
                f"{percentile(cli, 0.5):.0f} | {percentile(cli, 0.99):.0f} |"
            )
    print("\nThe three slowest asks of each run, ms per stage (a tail's stage says where it waited):\n")
    print(f"| Run | total | {' | '.join(name for name, _, _, _ in STAGES)} |")
    print(f"|---|---:|{'---:|' * len(STAGES)}")
    for run in runs:
        for ask in sorted(run.asks, key=lambda ask: ask.seconds, reverse=True)[:3]:
            instants = {**beacons.get(ask.ticket, {}), "start": ask.start_ms, "end": ask.end_ms}
            spans = [
                f"{instants[end] - instants[start]:.0f}" if start in instants and end in instants else "–"
                for _, start, end, _ in STAGES
            ]
            print(f"| {run.label} | {ask.seconds * 1000:.0f} | {' | '.join(spans)} |")
    print("\nCPU time per ask, ms (user + system over the measured asks):\n")
    print(f"| Process | {labels} |")
    print(f"|---|{'---:|' * len(runs)}")
    for kind in (*CPU_KINDS, "total"):
        cells = []
        for run in runs:
            spent = sum(run.cpu_s.values()) if kind == "total" else run.cpu_s[kind]
            cells.append(f"{spent * 1000 / len(run.asks):.1f}")
        print(f"| {kind} | {' | '.join(cells)} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--asks", type=int, default=200, help="measured asks of each single-pair run")
    parser.add_argument("--pair-asks", type=int, default=50, help="measured asks of each parallel pair")
    parser.add_argument("--pairs", type=int, default=8, help="parallel pairs of the last run")
    parser.add_argument("--warmup", type=int, default=10, help="unmeasured asks per pair before each run")
    parser.add_argument("--gap-ms", type=int, default=100, help="pause after each answer in the paced run")
    parser.add_argument("--submit-delay-ms", type=int, default=0, help="the targets' submitDelayMs (>= 0)")
    parser.add_argument("--hooks", choices=("http", "relay"), default="http", help="how Claude's hooks reach IdeA")
    parser.add_argument(
        "--clients", choices=("process", "thread"), default="process",
        help="the requesters' SDK clients in a process of their own (as agent CLIs are) or on this main thread",
    )  # fmt: skip
    args = parser.parse_args()
    args.load_before = ", ".join(f"{value:.2f}" for value in os.getloadavg())

    with tempfile.TemporaryDirectory(prefix="idea-ask-") as scratch, pytest.MonkeyPatch.context() as env:
        if args.hooks == "relay":  # no project has a hook door to declare: the relay command is declared
            env.setattr(HookUrls, "url_for", lambda _self, _project_id: None)
        factory = ScenarioFactory(Path(scratch), env)
        try:
            scenario = factory.open(warm=(), cold=(), launch=False)
            build_team(scenario, max(1, args.pairs), args.submit_delay_ms)
            runs = [
                asyncio.run(measure(scenario, "1 pair, back to back", 1, args.asks, args.warmup, clients=args.clients)),
                asyncio.run(
                    measure(
                        scenario, f"1 pair, {args.gap_ms} ms apart", 1, args.asks, args.warmup, args.gap_ms / 1000,
                        clients=args.clients,
                    )
                ),
            ]
            if args.pairs > 1:
                label = f"{args.pairs} pairs at once, back to back"
                runs.append(
                    asyncio.run(measure(scenario, label, args.pairs, args.pair_asks, args.warmup, clients=args.clients))
                )
            beacons = beacon_times(scenario.app.data_dir / "logs")
        finally:
            with contextlib.redirect_stdout(io.StringIO()):  # the factory prints the log tail for pytest
                factory.close()  # app.shutdown(); raises if a process it started outlived it
        left = processes_with_home(factory.home)
        if left:
            raise RuntimeError(f"processes outlived the benchmark: {[p.pid for p in left]}")
    report(args, runs, beacons)


if __name__ == "__main__":
    main()
