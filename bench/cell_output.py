"""What IdeA adds on a terminal cell's output path, against the bare terminal widget, side by side.

Both run `cat` of the same coloured text file (24 MB by default) in a real PTY, shown next to each other in
one window (offscreen Qt), with the same font, colour scheme, margin and scrollback:

- bare: a `QTermWidget` and nothing else;
- IdeA: the cell's terminal as IdeA builds it (`QtTerminalFactory` → `QTermWidgetTerminal` in a
  `TerminalView`): its output tap (bracketed-paste tracking, colour-query answers), the hand-over of its
  output to the core loop, and an agent's screen watch subscribed there (blocking prompts and the level-2
  usage-limit scanner of the Claude reference profile) — the most an agent cell does with its output.

Each run times one `cat` from the terminal's creation to the widget's `finished` signal (IdeA's start
creates its view). Both get the same grid (the cell is started at the size the bare widget has at the same
pixel size) and one warm-up run each (page cache, fonts, glyph caches, bindings created on first use). Before
each run, untimed, the previous run's terminal is destroyed and the garbage collected, so no run pays for the
one before it. Runs come in pairs whose order alternates (bare then IdeA, then IdeA then bare, …) so neither
side always runs first and the machine's load falls on both alike; the figure is the ratio of the medians,
and of each pair, with a bootstrap interval of the pairs' median (how far another run could land). The
process's CPU is also split: the GUI thread's alone (from `/proc`, on Linux) is where the widget and IdeA's
output tap run; the rest is the core loop's thread. The machine's load average is printed before and after.

How fine the figure is shows in an A/A run (`--bare-twice`: the bare widget on both sides). On a quiet
machine, 30 pairs of 24 MB (`--runs 30`, about two minutes) gave 0.999 with an interval of 0.992 to 1.003: a
difference of one per cent shows. Under other load single pairs move by ±15 % and more pairs are needed.

    python bench/cell_output.py [--mb 24] [--runs 5] [--no-watch] [--bare-twice]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import math
import os
import platform
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from PySide6.QtCore import QCoreApplication, QEvent, QEventLoop, QTimer  # noqa: E402
from PySide6.QtWidgets import QApplication, QHBoxLayout, QWidget  # noqa: E402
from pyside6_qtermwidget import QTermWidget  # noqa: E402

from idea.domain.profile import Profile  # noqa: E402
from idea.domain.terminal import SpawnSpec  # noqa: E402
from idea.infrastructure.core_loop import CoreLoop  # noqa: E402
from idea.infrastructure.limits.screen_watch import AgentScreenWatch  # noqa: E402
from idea.infrastructure.resources import resources_dir  # noqa: E402
from idea.infrastructure.timer import MonotonicTimer  # noqa: E402
from idea.ui.gui_thread import GuiThread  # noqa: E402
from idea.ui.terminal.appearance import TEXT_MARGIN, TerminalAppearance, register_color_schemes  # noqa: E402
from idea.ui.terminal.qtermwidget_terminal import QtTerminalFactory  # noqa: E402

CELL_WIDTH, CELL_HEIGHT = 700, 600  # both widgets get exactly this size: rendering cost grows with it


def coloured_text(path: Path, megabytes: int) -> int:
    rng = random.Random(11)
    words = ["build", "agent", "token", "render", "cache", "ready", "delta", "queue", "ports", "layout"]
    target = megabytes * 1024 * 1024
    size = 0
    with path.open("wb") as out:
        while size < target:
            parts = [f"\x1b[{30 + rng.randrange(8)}m{rng.choice(words)}\x1b[0m" for _ in range(12)]
            line = (" ".join(parts) + "\r\n").encode()
            out.write(line)
            size += len(line)
    return size


def wait(app: QApplication, done: list[bool], timeout_s: float = 900) -> None:
    loop = QEventLoop()
    timer = QTimer()
    timer.timeout.connect(lambda: loop.quit() if done[0] else None)
    timer.start(5)
    deadline = time.monotonic() + timeout_s
    while not done[0]:
        loop.exec()
        if time.monotonic() > deadline:
            raise TimeoutError("cat never finished")
    timer.stop()


def settle(app: QApplication) -> None:
    """Untimed, before a run: what the last run left to do later (its terminal's destruction, posted calls)
    is done now, and the garbage collected."""
    for _ in range(3):
        app.processEvents()
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    gc.collect()


Timing = tuple[float, float, float]  # wall seconds, CPU seconds of this process, of its GUI thread alone


def gui_thread_cpu() -> float:
    """CPU seconds the GUI (main) thread has used, from the scheduler's nanoseconds; NaN without `/proc`."""
    try:
        with open(f"/proc/self/task/{os.getpid()}/schedstat", encoding="ascii") as stat:
            return int(stat.read().split()[0]) / 1e9
    except (OSError, ValueError, IndexError):
        return math.nan


def stopwatch() -> Callable[[], Timing]:
    """Starts the clocks; the function returned reads what they counted since."""
    wall, cpu, gui = time.perf_counter(), time.process_time(), gui_thread_cpu()
    return lambda: (time.perf_counter() - wall, time.process_time() - cpu, gui_thread_cpu() - gui)


Grid = tuple[int, int]  # columns, lines


def bare_run(app: QApplication, host: QWidget, appearance: TerminalAppearance, data: Path) -> tuple[Timing, Grid]:
    settle(app)
    # Timed from the widget's creation, as IdeA's side is timed from the start that creates its view.
    clock = stopwatch()
    term = QTermWidget(0, host)
    term.setTerminalFont(appearance.font(0))
    term.setColorScheme(appearance.scheme)
    term.setHistorySize(appearance.history_lines)
    term.setAutoClose(True)
    term.setMargin(TEXT_MARGIN)
    term.setFixedSize(CELL_WIDTH, CELL_HEIGHT)
    host.layout().addWidget(term)
    term.show()
    done = [False]
    term.finished.connect(lambda: done.__setitem__(0, True))
    term.setShellProgram("/bin/cat")
    term.setArgs([str(data)])
    term.setEnvironment(["TERM=xterm-256color", f"PATH={os.environ.get('PATH', '')}"])
    term.startShellProgram()
    wait(app, done)
    elapsed = clock()
    grid = (term.screenColumnsCount(), term.screenLinesCount())
    term.hide()
    term.deleteLater()
    return elapsed, grid


def idea_run(
    app: QApplication,
    host: QWidget,
    factory: QtTerminalFactory,
    core: CoreLoop,
    profile: Profile,
    data: Path,
    n: int,
    grid: Grid,
    *,
    watched: bool = True,
) -> Timing:
    settle(app)
    terminal = factory.create(f"bench-{n}", "bench")
    watch: list[AgentScreenWatch] = []

    async def subscribe() -> None:
        screen_watch = AgentScreenWatch(
            terminal=terminal,
            profile=profile,
            timer=MonotonicTimer(),
            now_ms=lambda: time.time_ns() // 1_000_000,
            diagnostics=_Quiet(),
            on_limit=lambda _match: None,
            on_prompt=lambda _prompt: None,
        )
        screen_watch.start()
        watch.append(screen_watch)

    if watched:
        core.submit(subscribe()).result(30)
    spec = SpawnSpec(
        argv=("/bin/cat", str(data)),
        cwd=str(data.parent),
        env={"TERM": "xterm-256color", "PATH": os.environ.get("PATH", "")},
        columns=grid[0],  # the bare widget's grid at the same size: the cell starts as it will be shown
        lines=grid[1],
    )
    done = [False]
    clock = stopwatch()
    future = core.submit(terminal.start(spec))
    started_view = [False]
    future.add_done_callback(lambda _future: started_view.__setitem__(0, True))
    wait(app, started_view)  # the widget's own start runs in the GUI thread's event loop, as in the app
    future.result()
    view = terminal._view  # noqa: SLF001  (the bench shows the cell's own view)
    assert view is not None
    view.terminal.finished.connect(lambda: done.__setitem__(0, True))
    view.setFixedSize(CELL_WIDTH, CELL_HEIGHT)
    host.layout().addWidget(view)
    view.show()
    wait(app, done)
    elapsed = clock()
    if watch:
        core.submit(watch[0].stop()).result(30)
    view.hide()
    factory.release(terminal.session_id)
    return elapsed


class _Quiet:
    def beacon(self, message: str) -> None:
        pass


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mb", type=int, default=24)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--no-watch", action="store_true", help="IdeA's cell without an output subscriber")
    parser.add_argument(
        "--bare-twice", action="store_true",
        help="the bare widget on both sides (an A/A run): how far the machine's noise alone moves the figure",
    )
    args = parser.parse_args()
    load_before = os.getloadavg()
    app = QApplication.instance() or QApplication([])
    register_color_schemes()
    appearance = TerminalAppearance()
    profiles = json.loads((resources_dir() / "profiles" / "reference-profiles.json").read_text(encoding="utf-8"))
    claude = Profile.from_json(next(p for p in profiles if p["name"] == "Claude Code"))
    core = CoreLoop("bench-core").start()
    factory = QtTerminalFactory(GuiThread(), core.loop, appearance)
    host = QWidget()
    host.setLayout(QHBoxLayout())
    host.resize(1420, 640)
    host.show()
    bare: list[Timing] = []
    ours: list[Timing] = []
    with tempfile.TemporaryDirectory() as scratch:
        data = Path(scratch, "coloured.txt")
        size = coloured_text(data, args.mb)
        _, grid = bare_run(app, host, appearance, data)  # warm-up: page cache, fonts, glyph caches
        # and for IdeA's side too: the first cell pays one-time costs of the process (bindings created lazily)
        idea_run(app, host, factory, core, claude, data, -1, grid, watched=not args.no_watch)

        def ours_run(n: int) -> Timing:
            if args.bare_twice:
                return bare_run(app, host, appearance, data)[0]
            return idea_run(app, host, factory, core, claude, data, n, grid, watched=not args.no_watch)

        for n in range(args.runs):
            if n % 2 == 0:
                bare.append(bare_run(app, host, appearance, data)[0])
                ours.append(ours_run(n))
            else:
                ours.append(ours_run(n))
                bare.append(bare_run(app, host, appearance, data)[0])
    core.stop()
    load = os.getloadavg()
    print(
        f"Python {platform.python_version()}, {os.cpu_count()} CPUs, load average before "
        f"{' '.join(f'{x:.1f}' for x in load_before)}, after {' '.join(f'{x:.1f}' for x in load)}"
    )
    print(f"`cat` of {size / 1e6:.1f} MB of coloured text, {args.runs} pairs of runs, each pair's order alternating")
    print(
        "| Terminal | wall, median (s) | wall runs (s) | CPU of IdeA's process, median (s) | CPU runs (s) "
        "| CPU of its GUI thread, median (s) |"
    )
    print("|---|---:|---|---:|---|---:|")
    second = "bare QTermWidget, again" if args.bare_twice else "IdeA cell"
    for name, runs in (("bare QTermWidget", bare), (second, ours)):
        walls, cpus, guis = ([r[index] for r in runs] for index in range(3))
        print(
            f"| {name} | {statistics.median(walls):.3f} | {spread(walls, 3)} "
            f"| {statistics.median(cpus):.3f} | {spread(cpus, 3)} | {statistics.median(guis):.3f} |"
        )
    measures = ((0, "wall"), (1, "CPU"), (2, "CPU of the GUI thread"))
    for index, what in measures if not math.isnan(bare[0][2]) else measures[:2]:
        ratio = statistics.median(o[index] for o in ours) / statistics.median(b[index] for b in bare)
        pairs = [o[index] / b[index] for o, b in zip(ours, bare, strict=True)]
        figure = "bare again / bare" if args.bare_twice else "IdeA / bare"
        print(f"\n{figure}, {what}: {ratio:.3f} (medians); per pair {spread(pairs, 3)}")
        low, high = median_interval(pairs)
        print(f"  median of the pairs {statistics.median(pairs):.3f}, 95 % interval {low:.3f} to {high:.3f}")


def spread(values: list[float], digits: int) -> str:
    """Every value of a short series; the quartiles and the extremes of a long one."""
    if len(values) <= 15:
        return ", ".join(f"{v:.{digits}f}" for v in values)
    low, q1, q2, q3, high = min(values), *statistics.quantiles(values, n=4), max(values)
    return f"quartiles {q1:.{digits}f}, {q2:.{digits}f}, {q3:.{digits}f} (from {low:.{digits}f} to {high:.{digits}f})"


def median_interval(values: list[float], resamples: int = 4000) -> tuple[float, float]:
    """A 95 % percentile-bootstrap interval of the median of `values` (the pairs resampled with replacement):
    how far the figure could move on another run of as many pairs on a machine as noisy as this one."""
    rng = random.Random(0)
    medians = sorted(statistics.median(rng.choices(values, k=len(values))) for _ in range(resamples))
    return medians[int(resamples * 0.025)], medians[int(resamples * 0.975) - 1]


if __name__ == "__main__":
    main()
