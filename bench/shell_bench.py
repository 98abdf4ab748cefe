"""Benchmarks of the desktop shell, run on this machine (offscreen Qt):

- plain-text throughput of one terminal cell (`seq 1 N` in a QTermWidget cell), next to the same output
  read from a raw PTY and thrown away (the physical limit), and their ratio;
- time to the first painted window of a fresh `idea` process;
- resident memory of the app with 1, 8 and 16 idle shell cells.

Usage: python bench/shell_bench.py [--lines 2000000] [--runs 3]
Prints a Markdown report (paste it into bench/RESULTS.md).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
from PySide6.QtCore import QEventLoop  # noqa: E402
REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def seq_bytes(lines: int) -> int:
    return len(subprocess.run(["seq", "1", str(lines)], capture_output=True, check=True).stdout.replace(b"\n", b"\r\n"))


def raw_pty_seconds(lines: int) -> float:
    """`seq` in a PTY, every byte read and discarded as fast as possible."""
    import ptyprocess

    started = time.perf_counter()
    process = ptyprocess.PtyProcess.spawn(["seq", "1", str(lines)], dimensions=(40, 120))
    while True:
        try:
            if not os.read(process.fd, 1 << 16):
                break
        except OSError:
            break
    elapsed = time.perf_counter() - started
    process.close()
    return elapsed


def cell_seconds(lines: int) -> float:
    """`seq` in a visible QTermWidget cell of the real GUI, until the terminal has shown the last line."""
    from PySide6.QtWidgets import QApplication

    from tests.ui.gui_support import complete_first_run

    app = QApplication.instance() or QApplication([])
    from idea.ui.app import GuiSession

    with tempfile.TemporaryDirectory() as scratch:
        data, project, home = Path(scratch, "data"), Path(scratch, "project"), Path(scratch, "home")
        project.mkdir()
        home.mkdir()
        os.environ["HOME"] = str(home)
        complete_first_run(data)
        session = GuiSession(app, data)
        session.windows.restore([str(project)])
        window = session.windows.windows[0]
        window.resize(1200, 800)
        window.show()
        tab = _wait(app, lambda: next(iter(session.windows.tabs.values()), None))
        cell = _wait(app, lambda: next((c for c in tab.grid.cells().values() if c.view and c.session and c.session.pid), None))
        _wait(app, lambda: cell.view.screen_text().strip() or None)
        done = f"seq-done-{lines}"
        cell.view.terminal.sendText(f"clear; seq 1 {lines}; echo {done}\r")
        started = time.perf_counter()
        # Read the screen rarely: reading it takes the GUI thread away from the terminal it measures.
        _wait(app, lambda: done in cell.view.screen_text().replace(f"echo {done}", "") or None, timeout=600,
              poll_s=0.2)
        elapsed = time.perf_counter() - started
        session.windows.quit_without_asking()
        session.shutdown()
        return elapsed


def first_paint_ms() -> float:
    """A fresh process: from its start to the first paint of the main window."""
    probe = f"""
import time, os, sys
started = time.perf_counter()
sys.path.insert(0, {str(REPO)!r})
from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QApplication
from idea.ui.app import GuiSession
from tests.ui.gui_support import complete_first_run
from pathlib import Path
app = QApplication([])
complete_first_run(Path(os.environ["IDEA_DATA_DIR"]))
session = GuiSession(app)
class Paint(QObject):
    def eventFilter(self, obj, event):
        if event.type() == QEvent.Type.Paint:
            print((time.perf_counter() - started) * 1000, flush=True)
            os._exit(0)
        return False
paint = Paint()
session.windows.restore([])
for window in session.windows.windows:
    window.installEventFilter(paint)
app.exec()
"""
    with tempfile.TemporaryDirectory() as scratch:
        env = {**os.environ, "IDEA_DATA_DIR": str(Path(scratch, "data")), "HOME": scratch}
        done = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=120)
        return float(done.stdout.strip().splitlines()[-1])


def rss_with_cells(counts: list[int]) -> dict[int, float]:
    """Resident memory (MiB) of the app process with N idle shell cells (the shells themselves excluded)."""
    import psutil
    from PySide6.QtWidgets import QApplication

    from idea.domain import layout as lay
    from tests.ui.gui_support import complete_first_run

    app = QApplication.instance() or QApplication([])
    from idea.ui.app import GuiSession

    results = {}
    with tempfile.TemporaryDirectory() as scratch:
        home = Path(scratch, "home")
        home.mkdir()
        os.environ["HOME"] = str(home)
        data = Path(scratch, "data")
        complete_first_run(data)
        session = GuiSession(app, data)
        session.windows.restore([])
        window = session.windows.windows[0]
        for count in counts:
            project = Path(scratch, f"project-{count}")
            project.mkdir()
            session.windows.open_project(str(project), window)
            tab = _wait(app, lambda p=project: next((t for t in session.windows.tabs.values() if t.runtime.root == str(p)), None))
            if count > 1:
                rows, cols = {8: (2, 4), 16: (4, 4)}.get(count, (1, count))
                first = lay.leaves(tab.runtime.active.root)[0].id
                session.client.call(tab.runtime.mutate(lay.MakeGrid(first, rows, cols)))
                _wait(app, lambda t=tab: len(lay.leaves(t.runtime.active.root)) == count or None)
                for leaf in lay.leaves(tab.runtime.active.root)[1:]:
                    session.client.call(tab.runtime.start_shell(leaf.id))
            _wait(app, lambda t=tab: all(
                c.view and c.view.screen_text().strip() for c in t.grid.cells().values()) and len(t.grid.cells()) == count or None,
                timeout=120)
            for _ in range(20):
                app.processEvents()
            results[count] = psutil.Process().memory_info().rss / (1 << 20)
            session.windows.close_project(tab.project_id, confirm=False)
            _wait(app, lambda t=tab: not session.app.projects.open_runtimes() or None, timeout=60)
        session.windows.quit_without_asking()
        session.shutdown()
    return results


def _wait(app, produce, timeout: float = 60, poll_s: float = 0.002):  # noqa: ANN001, ANN202
    deadline = time.monotonic() + timeout
    next_poll = 0.0
    while time.monotonic() < deadline:
        app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 5)
        if time.monotonic() < next_poll:
            continue
        next_poll = time.monotonic() + poll_s
        value = produce()
        if value:
            return value
    raise TimeoutError("benchmark step did not finish")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lines", type=int, default=2_000_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    size_mb = seq_bytes(args.lines) / 1e6
    raw = [raw_pty_seconds(args.lines) for _ in range(args.runs)]
    cell = [cell_seconds(args.lines) for _ in range(args.runs)]
    paint = [first_paint_ms() for _ in range(args.runs)]
    rss = rss_with_cells([1, 8, 16])
    raw_mbs, cell_mbs = size_mb / statistics.median(raw), size_mb / statistics.median(cell)
    print(f"Command: `python bench/shell_bench.py --lines {args.lines} --runs {args.runs}`  ")
    print(f"Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
          f"QT_QPA_PLATFORM={os.environ['QT_QPA_PLATFORM']}, {time.strftime('%Y-%m-%d')}\n")
    print("| Measure | Median | Runs |")
    print("|---|---:|---|")
    print(f"| Raw PTY to /dev/null, `seq 1 {args.lines}` ({size_mb:.1f} MB) | {raw_mbs:.1f} MB/s | "
          f"{', '.join(f'{size_mb / s:.1f}' for s in raw)} |")
    print(f"| One terminal cell, same output | {cell_mbs:.1f} MB/s | {', '.join(f'{size_mb / s:.1f}' for s in cell)} |")
    print(f"| Cell / raw PTY | {cell_mbs / raw_mbs:.2f} | |")
    print(f"| Time to first painted window | {statistics.median(paint):.0f} ms | {', '.join(f'{p:.0f}' for p in paint)} |")
    for count, mib in rss.items():
        print(f"| App RSS with {count} idle shell cell{'s' if count > 1 else ''} | {mib:.0f} MiB | |")
    print(json.dumps({"raw_mbs": raw_mbs, "cell_mbs": cell_mbs, "first_paint_ms": statistics.median(paint), "rss_mib": rss}),
          file=sys.stderr)


if __name__ == "__main__":
    main()
