"""Asks in the running app: one agent asking another back to back, with IdeA's whole GUI running.

Issue 12's target is one pair ≥ 30 asks/s in the running app, with the target in a visible cell and in the
background, with and without hooks. This runs exactly that: IdeA's real windows (offscreen unless a display
is set), a project tab whose grid shows real terminal cells (the backend IdeA picks: QTermWidget, or the
native cell with IDEA_TERMINAL=native), the app's own timings (nothing shortened), and a requester whose MCP
client is the official SDK client started as its `.mcp.json` says (so through the real bridge). The targets
are the fake agent CLI of the integration tests dressed as Claude, which answers `reply <text>` at once:

- with hooks: the Claude hooks tell IdeA when a turn starts and ends (as with Claude Code, Codex);
- without hooks: readiness from the profile's prompt pattern and the reply alone (custom profiles, Aider).

Each target runs in a visible cell of the grid or in the background (no cell). The baseline, measured in
the same run and process before the GUI starts, is IdeA without a GUI (headless terminals) with the same
targets in the background and the same default timings; ratios are against it.

Claude's hooks go to the project's HTTP hook door, as IdeA declares them; `--hooks relay` declares the
command relay instead (one process per event), as IdeA does when a project has no hook door.

    python bench/ask_in_app.py [--asks 100] [--warmup 10] [--max-seconds 60] [--submit-delay-ms 0]
                               [--hooks http|relay]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import os
import platform
import shlex
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import psutil
import pytest  # its MonkeyPatch sets the environment and restores it

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from ask_roundtrip import STAGES, beacon_times, percentile  # noqa: E402

from idea.application.agents.placement_rules import InBackground, InCell, Place  # noqa: E402
from idea.application.projects import ProjectRuntime  # noqa: E402
from idea.bootstrap import App, bootstrap  # noqa: E402
from idea.domain import layout as lay  # noqa: E402
from idea.domain.profile import Profile  # noqa: E402
from idea.domain.workspace import NewCellContent  # noqa: E402
from idea.infrastructure.hooks.http_door import HookUrls  # noqa: E402
from tests.integration.scenario_support import (  # noqa: E402
    Scenario,
    fake_profile,
    idle_requester_profile,
    processes_with_home,
    requester_client,
    result_text,
)

T = TypeVar("T")
ASKER = "Asker"
SETUP_TIMEOUT_S = 60.0


@dataclass
class Config:
    label: str
    target: str
    hooks: bool
    visible: bool


@dataclass
class Run:
    config: Config
    seconds: list[float] = field(default_factory=list)  # per ask, perf_counter
    tickets: list[tuple[str, float, float]] = field(default_factory=list)  # ticket, start, end (epoch ms)
    wall_s: float = 0.0
    cpu_s: dict[str, float] = field(default_factory=dict)  # IdeA's threads over the measured asks


def thread_cpu() -> dict[str, float]:
    """CPU seconds so far of this process's GUI (main) thread, core loop thread, and all its other threads."""
    names = {thread.native_id: thread.name for thread in threading.enumerate()}
    main = threading.main_thread().native_id
    totals = {"GUI thread": 0.0, "core thread": 0.0, "other threads": 0.0}
    for thread in psutil.Process().threads():
        kind = "GUI thread" if thread.id == main else (
            "core thread" if names.get(thread.id) == "idea-core" else "other threads"
        )
        totals[kind] += thread.user_time + thread.system_time
    return totals


def target_name(hooks: bool, visible: bool) -> str:
    return f"Target{'Cell' if visible else 'Bg'}{'Hooks' if hooks else 'Plain'}"


async def ask_run(scenario: Scenario, run: Run, count: int, warmup: int, max_s: float) -> None:
    """The requester's client opened, `warmup` asks, then up to `count` measured asks (or `max_s` seconds)."""
    async with requester_client(scenario, ASKER) as client:

        async def ask(index: int, record: bool) -> None:
            answer = f"pong-{index}"
            start_ms, started = time.time() * 1000, time.perf_counter()
            result = await client.call_tool("idea_ask_agent", {"target": run.config.target, "task": f"reply {answer}"})
            seconds = time.perf_counter() - started
            if result.is_error or result_text(result) != answer:
                raise RuntimeError(f"{run.config.label}, ask {index}: {result_text(result)!r}")
            if record:
                run.seconds.append(seconds)
                run.tickets.append((str(result.structured_content["ticket"]), start_ms, time.time() * 1000))

        for index in range(warmup):
            await ask(index, False)
        started, cpu_before = time.perf_counter(), thread_cpu()
        for index in range(count):
            await ask(warmup + index, True)
            if time.perf_counter() - started > max_s:
                break
        run.wall_s = time.perf_counter() - started
        run.cpu_s = {kind: spent - cpu_before[kind] for kind, spent in thread_cpu().items()}


def profiles(submit_delay_ms: int) -> dict[str, Profile]:
    with_hooks = fake_profile("Fake Claude (bench, hooks)", submit_delay_ms=submit_delay_ms)
    without = fake_profile("Fake CLI (bench, no hooks)", submit_delay_ms=submit_delay_ms, hooks=False)
    return {"hooks": with_hooks, "plain": without, "asker": idle_requester_profile()}


async def set_up(app: App, book: dict[str, Profile]) -> None:
    app.preferences.update_settings(new_cell_content=NewCellContent.EMPTY)
    app.profiles.complete_setup(list(book.values()))


async def prepare(app: App, project: Path, book: dict[str, Profile]) -> ProjectRuntime:
    await set_up(app, book)
    return await app.projects.open(str(project))


async def create_team(scenario: Scenario, book: dict[str, Profile], configs: list[Config]) -> None:
    runtime = scenario.runtime
    scenario.agents[ASKER] = await runtime.agents.create(ASKER, book["asker"].id, f"# {ASKER}\n")
    for config in configs:
        profile = book["hooks" if config.hooks else "plain"]
        scenario.agents[config.target] = await runtime.agents.create(config.target, profile.id, "# Target\n")


def bridges_connected(scenario: Scenario, names: list[str]) -> bool:
    snapshots = {s.agent_id: s for s in scenario.runtime.orchestrator.queue_snapshots()}
    return all(snapshots.get(scenario.id_of(n)) is not None and snapshots[scenario.id_of(n)].bridge_connected
               for n in names)


# -- the headless baseline --


def headless_runs(scratch: Path, book: dict[str, Profile], args: argparse.Namespace) -> tuple[list[Run], dict]:
    configs = [Config("headless, background, hooks (baseline)", target_name(True, False), True, False),
               Config("headless, background, no hooks", target_name(False, False), False, False)]
    project = scratch / "project-headless"
    project.mkdir()
    app = bootstrap(data_dir=scratch / "data-headless")
    try:
        runtime = app.core.submit(prepare(app, project, book)).result(SETUP_TIMEOUT_S)
        scenario = Scenario(app, runtime, project, Path(os.environ["HOME"]), {})
        app.core.submit(create_team(scenario, book, configs)).result(SETUP_TIMEOUT_S)
        for name in (ASKER, *(c.target for c in configs)):
            app.core.submit(runtime.placement.start(scenario.id_of(name), InBackground(), reason="user")).result(
                SETUP_TIMEOUT_S
            )
        wait_plain(lambda: scenario.sync(lambda: bridges_connected(scenario, [c.target for c in configs])))
        runs = []
        for config in configs:
            run = Run(config)
            asyncio.run(ask_run(scenario, run, args.asks, args.warmup, args.max_seconds))
            runs.append(run)
        return runs, beacon_times(app.data_dir / "logs")
    finally:
        app.shutdown()


def wait_plain(condition: Callable[[], bool], timeout: float = SETUP_TIMEOUT_S) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError("set-up did not finish")
        time.sleep(0.05)


# -- the running app --


class RunningApp:
    """IdeA's GUI as the `idea` command starts it, driven from this thread; asks run on a worker thread
    while Qt's event loop runs here."""

    def __init__(self, data_dir: Path) -> None:
        from PySide6.QtWidgets import QApplication

        from idea.ui.app import GuiSession
        from tests.ui.gui_support import complete_first_run

        complete_first_run(data_dir)
        self.qt = QApplication.instance() or QApplication(sys.argv[:1])
        self.session = GuiSession(self.qt, data_dir)  # type: ignore[arg-type]

    def run_until(self, condition: Callable[[], bool], timeout: float = SETUP_TIMEOUT_S) -> None:
        """Set-up only: Qt's events processed until `condition` holds."""
        from PySide6.QtCore import QEventLoop, QTimer

        loop, timer = QEventLoop(), QTimer()
        timer.timeout.connect(lambda: loop.quit() if condition() else None)
        timer.start(20)
        deadline = time.monotonic() + timeout
        while not condition():
            if time.monotonic() > deadline:
                raise TimeoutError("set-up did not finish")
            loop.exec()
        timer.stop()

    def on_core(self, work: Coroutine[Any, Any, T]) -> T:
        future = self.session.app.core.submit(work)
        self.run_until(future.done)
        return future.result()

    def in_worker(self, work: Callable[[], None]) -> None:
        """`work` on its own thread; Qt's event loop runs here (no polling) until it ends."""
        from PySide6.QtCore import QEventLoop

        loop, errors = QEventLoop(), []

        def body() -> None:
            try:
                work()
            except BaseException as exc:  # noqa: BLE001 - reported on this thread
                errors.append(exc)
            finally:
                self.session.gui.post(loop.quit)

        worker = threading.Thread(target=body, name="bench-asks")
        worker.start()
        loop.exec()
        worker.join()
        if errors:
            raise errors[0]


def app_runs(scratch: Path, book: dict[str, Profile], args: argparse.Namespace) -> tuple[list[Run], dict]:
    configs = [
        Config(f"running app, {'visible cell' if visible else 'background'}, {'hooks' if hooks else 'no hooks'}",
               target_name(hooks, visible), hooks, visible)
        for hooks in (True, False) for visible in (True, False)
    ]
    project = scratch / "project-app"
    project.mkdir()
    gui = RunningApp(scratch / "data-app")
    try:
        app = gui.session.app
        gui.on_core(set_up(app, book))
        gui.session.windows.restore([str(project)])  # the project in a window's tab, as the person opens it
        tabs = gui.session.windows.tabs
        gui.run_until(lambda: any(t.runtime.root == str(project) for t in tabs.values()))
        tab = next(t for t in tabs.values() if t.runtime.root == str(project))
        for window in gui.session.windows.windows:
            window.resize(1600, 1000)
            window.show()
        runtime = tab.runtime
        scenario = Scenario(app, runtime, project, Path(os.environ["HOME"]), {})
        gui.on_core(create_team(scenario, book, configs))
        [first] = lay.leaves(runtime.active.root)
        second = gui.on_core(runtime.split(first.id, lay.Direction.ROW))
        cells = iter((first.id, second))
        for config in configs:
            where: Place = InCell(next(cells)) if config.visible else InBackground()
            gui.on_core(runtime.placement.launch(scenario.id_of(config.target), where))
        gui.on_core(runtime.placement.launch(scenario.id_of(ASKER), InBackground()))
        gui.run_until(lambda: bridges_connected(scenario, [c.target for c in configs]))
        gui.run_until(lambda: all(tab.grid.cell(leaf) is not None for leaf in (first.id, second)))
        runs = []
        for config in configs:
            run = Run(config)
            gui.in_worker(lambda run=run: asyncio.run(ask_run(scenario, run, args.asks, args.warmup, args.max_seconds)))
            runs.append(run)
        return runs, beacon_times(app.data_dir / "logs")
    finally:
        app = gui.session.app
        app.shutdown(wait=lambda closing: gui.run_until(closing.done))


# -- the report --


def report(args: argparse.Namespace, runs: list[Run], beacons: dict[str, dict[str, int]]) -> None:
    delay_s = args.submit_delay_ms / 1000
    base = runs[0]

    def samples(run: Run) -> list[float]:
        return [(s - delay_s) * 1000 for s in run.seconds]

    def rate(run: Run) -> float:
        return len(run.seconds) / run.wall_s

    load = ", ".join(f"{value:.2f}" for value in os.getloadavg())
    print(f"Command: `{shlex.join(['python', *sys.argv])}` ({time.strftime('%Y-%m-%d')})  ")
    print(
        f"Machine: {platform.machine()}, {os.cpu_count()} CPUs, {platform.system()} {platform.release()}, Python "
        f"{platform.python_version()}, Qt platform {os.environ.get('QT_QPA_PLATFORM', 'default')}, terminal cell "
        f"{os.environ.get('IDEA_TERMINAL', 'default')}; load average before {args.load_before}, after {load}  "
    )
    print(f"Warm-up: {args.warmup} asks per run; at most {args.asks} measured asks or {args.max_seconds:.0f} s. "
          f"Claude hooks: {'HTTP hook door' if args.hooks == 'http' else 'relay command'}.\n")
    print("| Run | Asks | p50 (ms) | p99 (ms) | asks/s | p50 / baseline | asks/s / baseline |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    base_p50 = percentile(samples(base), 0.5)
    for run in runs:
        p50, p99 = percentile(samples(run), 0.5), percentile(samples(run), 0.99)
        print(
            f"| {run.config.label} | {len(run.seconds)} | {p50:.1f} | {p99:.1f} | {rate(run):.1f} | "
            f"{p50 / base_p50:.2f} | {rate(run) / rate(base):.2f} |"
        )
    print("\nMedian of each stage, ms (diagnostics-log beacons):\n")
    print("| Stage | " + " | ".join(run.config.label for run in runs) + " |")
    print("|---|" + "---:|" * len(runs))
    for name, start, end, _ in STAGES:
        cells = []
        for run in runs:
            spans = []
            for ticket, start_ms, end_ms in run.tickets:
                instants = {**beacons.get(ticket, {}), "start": start_ms, "end": end_ms}
                if start in instants and end in instants:
                    spans.append(instants[end] - instants[start])
            cells.append(f"{statistics.median(spans):.0f}" if spans else "–")
        print(f"| {name} | " + " | ".join(cells) + " |")
    print("\nCPU of this process per measured ask, ms, by thread (the requester's SDK client runs on the main thread "
          "in the headless runs, on a thread of its own, counted with the other threads, in the app's):\n")
    print("| Thread | " + " | ".join(run.config.label for run in runs) + " |")
    print("|---|" + "---:|" * len(runs))
    for kind in ("GUI thread", "core thread", "other threads"):
        cells = [f"{run.cpu_s.get(kind, 0.0) * 1000 / max(1, len(run.seconds)):.1f}" for run in runs]
        print(f"| {kind} | " + " | ".join(cells) + " |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--asks", type=int, default=100, help="measured asks per run at most")
    parser.add_argument("--warmup", type=int, default=10, help="unmeasured asks before each run")
    parser.add_argument("--max-seconds", type=float, default=60.0, help="a run stops after this many seconds")
    parser.add_argument("--submit-delay-ms", type=int, default=0, help="the targets' submitDelayMs (>= 0)")
    parser.add_argument("--hooks", choices=("http", "relay"), default="http", help="how Claude's hooks reach IdeA")
    args = parser.parse_args()
    args.load_before = ", ".join(f"{value:.2f}" for value in os.getloadavg())
    book = profiles(args.submit_delay_ms)
    with tempfile.TemporaryDirectory(prefix="idea-ask-app-") as scratch, pytest.MonkeyPatch.context() as env:
        root = Path(scratch)
        home = root / "home"
        home.mkdir()
        runtime_dir = Path(tempfile.mkdtemp(prefix="idea-b-", dir="/tmp"))  # a socket path fits in 108 bytes
        env.setenv("HOME", str(home))
        env.setenv("XDG_RUNTIME_DIR", str(runtime_dir))
        env.setenv("QT_QPA_PLATFORM", os.environ.get("QT_QPA_PLATFORM", "offscreen"))
        if args.hooks == "relay":  # no project has a hook door to declare: the relay command is declared
            env.setattr(HookUrls, "url_for", lambda _self, _project_id: None)
        try:
            with contextlib.redirect_stderr(io.StringIO()):
                headless, headless_beacons = headless_runs(root, book, args)
            in_app, app_beacons = app_runs(root, book, args)
        finally:
            left = processes_with_home(home)
            for process in left:
                with contextlib.suppress(Exception):
                    process.kill()
            with contextlib.suppress(OSError):
                for path in runtime_dir.iterdir():
                    path.unlink()
                runtime_dir.rmdir()
        if left:
            raise RuntimeError(f"processes outlived the benchmark: {[p.pid for p in left]}")
    report(args, [*headless, *in_app], {**headless_beacons, **app_beacons})


if __name__ == "__main__":
    main()
