"""The terminal views side by side, measured in one run (offscreen Qt, this machine):

- throughput: `cat` of a large coloured file (bench/coloured_text.py) in one visible cell of 120 × 40, timed
  until the view shows the line written after it, for the QTermWidget cell, the native cell (libghostty-vt
  through evp, IdeA's painter) and the xterm.js prototype (bench/xterm_prototype.py, QtWebEngine);
- memory: the resident set of a process showing 1, 8 and 16 idle `sh` cells in one window, its web engine
  processes included (the shells are not counted), next to the same process with no cell.

    IDEA_XTERM_DIR=DIR QTWEBENGINE_CHROMIUM_FLAGS=--no-sandbox python bench/terminal_views.py [--mb 20]

The xterm.js rows need PySide6-Addons and `npm install --prefix DIR @xterm/xterm @xterm/addon-unicode11`;
without them they are reported as not measured. Prints a Markdown table for bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

BACKENDS = ("qtermwidget", "native", "xtermjs")
CELL_COUNTS = (0, 1, 8, 16)
COLUMNS, LINES = 120, 40
DONE = "views-bench-done"


def _spin(app, predicate: Callable[[], object], timeout: float, poll_s: float = 0.0):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        app.processEvents()
        value = predicate()
        if value:
            return value
        if poll_s:
            end = time.monotonic() + poll_s
            while time.monotonic() < end:
                app.processEvents()
    raise TimeoutError("the view did not get there in time")


class Cells:
    """N terminal cells of one backend in one window, each running `argv`."""

    def __init__(self, backend: str, count: int, argv: list[str]) -> None:
        from PySide6.QtWidgets import QApplication, QGridLayout, QWidget

        self.app = QApplication.instance() or QApplication([])
        self.backend = backend
        self.window = QWidget()
        self.window.resize(1600, 1000)
        grid = QGridLayout(self.window)
        grid.setContentsMargins(0, 0, 0, 0)
        self.views: list = []
        self.seen = ""  # the end of the output read so far (to notice the end marker without reading screens)
        self._stops: list[Callable[[], None]] = []
        self.core = None
        if backend == "xtermjs":
            self._start_xterm(count, argv, grid)
        else:
            self._start_widgets(count, argv, grid)
        self.window.show()

    def _start_widgets(self, count: int, argv: list[str], grid) -> None:  # type: ignore[no-untyped-def]
        from idea.domain.spawn_env import build_spawn_env
        from idea.domain.terminal import SpawnSpec
        from idea.infrastructure.core_loop import CoreLoop
        from idea.ui.gui_thread import GuiThread
        from idea.ui.terminal.appearance import TerminalAppearance
        from idea.ui.terminal.backend import make_terminal_factory

        self.core = CoreLoop("bench").start()
        self.factory = make_terminal_factory(self.backend, GuiThread(), self.core.loop, TerminalAppearance())
        env = build_spawn_env(os.environ, idea_version="bench")
        for number in range(count):
            terminal = self.factory.create(f"bench-{number}", "bench")
            self._wait(self.core.submit(terminal.start(SpawnSpec(tuple(argv), str(REPO), env, COLUMNS, LINES))))
            terminal.on_output(self._saw)
            view = self.factory.view_for(terminal.session_id)
            grid.addWidget(view, number // 4, number % 4)
            self.views.append(view)
            self._stops.append(lambda t=terminal: self._wait(self.core.submit(t.terminate(grace_ms=500))))

    def _start_xterm(self, count: int, argv: list[str], grid) -> None:  # type: ignore[no-untyped-def]
        import ptyprocess
        from xterm_prototype import XtermView

        for number in range(count):
            view = XtermView(COLUMNS, LINES)
            process = ptyprocess.PtyProcess.spawn(argv, dimensions=(LINES, COLUMNS), cwd=str(REPO))
            os.set_blocking(process.fd, False)
            from PySide6.QtCore import QSocketNotifier

            notifier = QSocketNotifier(process.fd, QSocketNotifier.Type.Read, view)

            def readable(*_signal_args: object, process=process, view=view, notifier=notifier) -> None:  # type: ignore[no-untyped-def]
                try:
                    data = os.read(process.fd, 1 << 16)
                except OSError:
                    notifier.setEnabled(False)
                    return
                self._saw(data)
                view.feed(data)

            notifier.activated.connect(readable)
            view.on_input = lambda data, process=process: os.write(process.fd, data)
            grid.addWidget(view, number // 4, number % 4)
            self.views.append(view)
            self._stops.append(lambda process=process: process.terminate(force=True))
        _spin(self.app, lambda: all(view.ready for view in self.views), 60)

    def _saw(self, chunk: bytes) -> None:
        self.seen = (self.seen + chunk.decode("latin-1"))[-64:]

    def _wait(self, future):  # type: ignore[no-untyped-def]
        while not future.done():
            self.app.processEvents()
        return future.result()

    def screen(self, index: int = 0) -> str:
        view = self.views[index]
        if self.backend != "xtermjs":
            return view.screen_text()
        result: list[str] = []
        view.evaluate("screenText()", result.append)
        _spin(self.app, lambda: result, 10)
        return result[0]

    def close(self) -> None:
        for stop in self._stops:
            stop()
        if self.core is not None:
            self.factory.close()
            self.core.stop()


def throughput(backend: str, path: Path, size: int) -> float:
    """MB/s of `cat` of the coloured file in one visible cell."""
    marker = f"{DONE}-{backend}"
    script = f"read line; cat {path}; printf '{marker[:8]}''{marker[8:]}\\n'; exec sleep 600"
    cells = Cells(backend, 1, ["sh", "-c", script])
    try:
        cells.window.resize(COLUMNS * 9 + 20, LINES * 18 + 20)
        _spin(cells.app, lambda: True, 1.5)  # the page or widget settles before the clock starts
        started = time.perf_counter()
        _send_return(cells)
        # The output stream says when the end was read; only then is the screen read (a readback takes the GUI
        # thread from the terminal it measures, more for QTermWidget's selection-based one).
        _spin(cells.app, lambda: marker in cells.seen, 900)
        _spin(cells.app, lambda: marker in cells.screen(), 60, poll_s=0.02)
        return size / (time.perf_counter() - started) / 1e6
    finally:
        cells.close()


def _send_return(cells: Cells) -> None:
    view = cells.views[0]
    if cells.backend == "xtermjs":
        view.on_input(b"\r")
    elif cells.backend == "native":
        view._send(b"\r")
    else:
        view.terminal.sendText("\r")


def rss_child(backend: str, count: int) -> None:
    """Run in a fresh process: show `count` idle shells, print the resident memory in MB as JSON."""
    import psutil

    cells = Cells(backend, count, ["sh"])
    try:
        _spin(cells.app, lambda: True, 3.0)
        me = psutil.Process()
        web = [child for child in me.children(recursive=True) if "QtWebEngine" in child.name()]
        total = me.memory_info().rss + sum(child.memory_info().rss for child in web)
        print(json.dumps({"rss_mb": total / 2**20, "renderers": len(web)}))
    finally:
        cells.close()


def rss(backend: str, count: int) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, __file__, "--rss-child", backend, str(count)], capture_output=True, text=True, timeout=300
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if not lines:
        raise RuntimeError(f"{backend} × {count}: {done.stderr[-2000:]}")
    return json.loads(lines[-1])


def available(backend: str) -> str | None:
    """None when the backend can be measured here, else why not."""
    try:
        if backend == "native":
            import evp  # noqa: F401
        elif backend == "xtermjs":
            import PySide6.QtWebEngineWidgets  # noqa: F401

            if not (Path(os.environ.get("IDEA_XTERM_DIR", "/nonexistent")) / "node_modules/@xterm/xterm").exists():
                return "IDEA_XTERM_DIR has no @xterm/xterm"
        else:
            import pyside6_qtermwidget  # noqa: F401
    except ImportError as error:
        return str(error)
    return None


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=float, default=20.0)
    parser.add_argument("--rss-child", nargs=2, metavar=("BACKEND", "COUNT"))
    parser.add_argument("--only", choices=BACKENDS, help="measure one view's throughput only")
    parser.add_argument("--runs", type=int, default=3, help="throughput runs per view, interleaved")
    args = parser.parse_args()
    if args.rss_child:
        rss_child(args.rss_child[0], int(args.rss_child[1]))
        return 0
    from coloured_text import coloured_text

    data = coloured_text(int(args.mb * 1e6))
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "coloured.txt"
        path.write_bytes(data)
        print(f"{len(data) / 1e6:.1f} MB coloured file; Python {sys.version.split()[0]}; {os.cpu_count()} cores\n")
        backends = [backend for backend in ([args.only] if args.only else BACKENDS) if not available(backend)]
        for backend in BACKENDS:
            if available(backend):
                print(f"{backend}: not measured ({available(backend)})")
        # Interleaved rounds: the machine's load changes over minutes and hits every view alike.
        speeds: dict[str, list[float]] = {backend: [] for backend in backends}
        for _ in range(args.runs):
            for backend in backends:
                speeds[backend].append(throughput(backend, path, len(data)))
        print("| view | MB/s (median) | runs | RSS, no cell | 1 cell | 8 cells | 16 cells | web engine processes (16 cells) |")
        print("|---|---|---|---|---|---|---|---|")
        for backend in backends:
            runs = ", ".join(f"{speed:.1f}" for speed in speeds[backend])
            median = statistics.median(speeds[backend])
            if args.only:
                print(f"| {backend} | {median:.1f} | {runs} |")
                continue
            memory = {count: rss(backend, count) for count in CELL_COUNTS}
            cells = " | ".join(f"{memory[count]['rss_mb']:.0f} MB" for count in CELL_COUNTS)
            print(f"| {backend} | {median:.1f} | {runs} | {cells} | {memory[16]['renderers']:.0f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
