"""Terminal emulator libraries side by side: what they get right for agent CLIs, and how fast they parse.

    .venv/bin/python bench/terminal_emulators.py [--mb 8]

Each candidate that is importable in the running interpreter is fed the same bytes:
- feature probes (alternate screen, truecolor, wide characters, bracketed paste and mouse modes, DSR /
  device-attribute / OSC 11 replies, the keyboard-protocol sequences Gemini and Codex send);
- the recorded start screens of claude, codex and gemini (tests/fixtures/cli_screens), compared with the
  screen text QTermWidget shows for the same bytes (tests/fixtures/cli_screens/<cli>.qtermwidget.txt);
- a large coloured file (the same generator as bench/terminal_views.py) for the parse speed in MB/s.

Candidates not installed are listed as such. The emulator only: painting is measured by terminal_views.py.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from coloured_text import coloured_text  # noqa: E402  (beside this file)

SCREENS = ROOT / "tests" / "fixtures" / "cli_screens"
CLIS = ("claude", "codex", "gemini")
COLUMNS, LINES = 120, 40


@dataclass
class Probe:
    """One emulator under test, reduced to what the comparison needs."""

    feed: Callable[[bytes], None]
    screen: Callable[[], list[str]]
    replies: list[bytes] = field(default_factory=list)
    mode: Callable[[int], bool] | None = None
    fg: Callable[[int, int], tuple[int, int, int] | None] | None = None


def make_evp() -> Probe:
    import evp

    replies: list[bytes] = []
    term = evp.Terminal(COLUMNS, LINES, max_scrollback_bytes=1_000_000, on_write_pty=replies.append)
    term.set_default_colors((0xB2, 0xB2, 0xB2), (0, 0, 0))
    state = evp.RenderState(term)
    styles: list[evp.Style] = []

    def screen() -> list[str]:
        frame = state.frame()
        styles.extend(frame.new_styles)
        return [_row_text(row.graphemes, row.widths) for row in frame.rows]

    def fg(x: int, y: int) -> tuple[int, int, int] | None:
        frame = state.frame()
        styles.extend(frame.new_styles)
        color = styles[frame.rows[y].styles[x]].foreground
        return color if isinstance(color, tuple) else None

    return Probe(term.feed, screen, replies, term.mode, fg)


def make_pyghostty() -> Probe:
    import pyghostty

    term = pyghostty.Terminal(COLUMNS, LINES)
    replies: list[bytes] = []
    term.on_reply(replies.append)

    def screen() -> list[str]:
        rows = [line.rstrip(" ") for line in term.text().split("\n")]
        return (rows + [""] * LINES)[:LINES]

    def fg(x: int, y: int) -> tuple[int, int, int] | None:
        color = term.style(x, y)["fg"]
        return color[1] if color and color[0] == "rgb" else None

    return Probe(term.feed, screen, replies, term.mode, fg)


def make_pyte() -> Probe:
    import pyte

    from idea.infrastructure.terminal.stream import Utf8Decoder

    replies: list[bytes] = []
    screen = pyte.Screen(COLUMNS, LINES)
    screen.write_process_input = lambda data: replies.append(data.encode())
    stream = pyte.Stream(screen)
    decoder = Utf8Decoder()

    def feed(data: bytes) -> None:
        stream.feed(decoder.decode(data))

    def text() -> list[str]:
        from idea.infrastructure.pty.ptyprocess_terminal import _render

        return _render(screen).split("\n")

    def fg(x: int, y: int) -> tuple[int, int, int] | None:
        value = screen.buffer[y][x].fg
        if len(value) == 6:
            return int(value[0:2], 16), int(value[2:4], 16), int(value[4:6], 16)
        return None

    def mode(number: int) -> bool:
        return (number << 5) in screen.mode

    return Probe(feed, text, replies, mode, fg)


def make_vt100wasm() -> Probe:
    import vt100wasm

    screen = vt100wasm.Screen(LINES, COLUMNS, 1000)

    def text() -> list[str]:
        return [line.rstrip(" ") for line in screen.contents().split("\n")]

    return Probe(screen.process, text)


def make_pyqtermx() -> Probe:
    from pyqtermx.emulator import Emulator
    from pyqtermx.parser import Parser
    from pyqtermx.screen import Screen

    replies: list[bytes] = []
    screen = Screen(lines=LINES, columns=COLUMNS, scrollback_limit=1000)
    emulator = Emulator(screen, reply=lambda text: replies.append(text.encode()))
    parser = Parser(emulator)

    def text() -> list[str]:
        return [line.rstrip(" ") for line in screen.render().split("\n")][:LINES]

    def fg(x: int, y: int) -> tuple[int, int, int] | None:
        value = screen.line(y)[x].fg
        if value >= 0x1000000:
            value -= 0x1000000
            return value >> 16 & 255, value >> 8 & 255, value & 255
        return None

    return Probe(parser.feed_bytes, text, replies, lambda n: screen.mode(n, private=True), fg)


def make_xtermjs() -> Probe:
    """The xterm.js prototype (bench/xterm_prototype.py) in an offscreen web view; the answers it gives the
    program arrive through its onData callback."""
    from PySide6.QtWidgets import QApplication
    from xterm_prototype import XtermView

    app = QApplication.instance() or QApplication([])
    view = XtermView(COLUMNS, LINES)
    view.resize(1200, 800)
    replies: list[bytes] = []
    view.on_input = replies.append
    _spin(app, lambda: view.ready)

    def run(script: str) -> object:
        result: list[object] = []
        view.evaluate(script, result.append)
        _spin(app, lambda: result)
        return result[0]

    def feed(data: bytes) -> None:
        view.feed(data)
        view._flush()
        run("1")  # the page has run every write queued before this
        deadline = time.monotonic() + 0.2  # and its answers have come back through the web channel
        while time.monotonic() < deadline:
            app.processEvents()

    def screen() -> list[str]:
        return [line.rstrip(" ") for line in str(run("screenText()")).split("\n")]

    def fg(x: int, y: int) -> tuple[int, int, int] | None:
        value = int(run(f"cellColour({x}, {y})"))  # type: ignore[call-overload]
        return None if value < 0 else (value >> 16 & 255, value >> 8 & 255, value & 255)

    def mode(number: int) -> bool:
        modes = json.loads(str(run("modes()")))
        if number == 2004:
            return bool(modes["bracketedPasteMode"])
        if number == 1006:
            return run("term._core.coreMouseService.activeEncoding") == "SGR"
        return False

    return Probe(feed, screen, replies, mode, fg)


def _spin(app, predicate: Callable[[], object], timeout: float = 30.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError("the web view did not answer")
        app.processEvents()


CANDIDATES: dict[str, tuple[str, Callable[[], Probe]]] = {
    "evp (libghostty-vt)": ("evp", make_evp),
    "pyghostty (libghostty-vt)": ("pyghostty", make_pyghostty),
    "vt100wasm (vt100 crate, wasmtime)": ("vt100wasm", make_vt100wasm),
    "pyqtermx (pure Python)": ("pyqtermx", make_pyqtermx),
    "pyte (pure Python)": ("pyte", make_pyte),
    "xterm.js 6 (QtWebEngine prototype)": ("PySide6.QtWebEngineWidgets", make_xtermjs),
}


def _row_text(graphemes: tuple[str, ...], widths: bytes) -> str:
    return "".join(g for g, w in zip(graphemes, widths, strict=True) if w != 0).rstrip(" ")


# Probes: (name, bytes to feed, check(probe) -> bool)


def _contains(probe: Probe, text: str) -> bool:
    return any(text in line for line in probe.screen())


def _alt_screen(probe: Probe) -> bool:
    probe.feed(b"main-screen\r\n\x1b[?1049h\x1b[H\x1b[2Jalt-screen\x1b[?1049l")
    return _contains(probe, "main-screen") and not _contains(probe, "alt-screen")


def _truecolor(probe: Probe) -> bool:
    if probe.fg is None:
        raise LookupError("not exposed")
    probe.feed(b"\x1b[H\x1b[2J\x1b[38;2;255;120;0mT\x1b[0m")
    return probe.fg(0, 0) == (255, 120, 0)


def _wide(probe: Probe) -> bool:
    probe.feed("\x1b[H\x1b[2J中文|end\r\n".encode())
    return probe.screen()[0] == "中文|end"


def _mode(number: int) -> Callable[[Probe], bool]:
    def check(probe: Probe) -> bool:
        if probe.mode is None:
            raise LookupError("not exposed")
        probe.feed(f"\x1b[?{number}h".encode())
        on = probe.mode(number)
        probe.feed(f"\x1b[?{number}l".encode())
        return on and probe.mode is not None and not probe.mode(number)

    return check


def _reply(query: bytes, wanted: bytes) -> Callable[[Probe], bool]:
    def check(probe: Probe) -> bool:
        probe.replies.clear()
        probe.feed(query)
        return any(wanted in reply for reply in probe.replies)

    return check


def _survives_keyboard_protocols(probe: Probe) -> bool:
    probe.feed(b"\x1b[H\x1b[2J\x1b[>4;?m\x1b[?u\x1b[>7u\x1b[<u\x1b[>4;0mok")
    return probe.screen()[0] == "ok"


PROBES: list[tuple[str, Callable[[Probe], bool]]] = [
    ("alternate screen", _alt_screen),
    ("truecolor", _truecolor),
    ("wide characters", _wide),
    ("bracketed paste mode", _mode(2004)),
    ("SGR mouse mode", _mode(1006)),
    ("DSR reply", _reply(b"\x1b[H\x1b[2Jabc\x1b[6n", b"\x1b[1;4R")),
    ("DA1 reply", _reply(b"\x1b[c", b"\x1b[?")),
    ("OSC 11 reply", _reply(b"\x1b]11;?\x1b\\", b"\x1b]11;rgb:")),
    ("keyboard protocols ignored", _survives_keyboard_protocols),
]


def expected_screen(cli: str) -> list[str] | None:
    path = SCREENS / f"{cli}.qtermwidget.txt"
    return path.read_text(encoding="utf-8").split("\n") if path.exists() else None


def replay_matches(make: Callable[[], Probe], cli: str) -> str:
    expected = expected_screen(cli)
    probe = make()
    try:
        probe.feed((SCREENS / f"{cli}.bin").read_bytes())
        got = probe.screen()
    except Exception as error:  # a candidate that crashes on a real CLI's output is the finding
        return f"crash ({type(error).__name__})"
    if expected is None:
        return "no reference"
    got = (got + [""] * LINES)[:LINES]
    differing = sum(1 for a, b in zip(got, expected, strict=True) if a != b)
    return "same" if differing == 0 else f"{differing} rows differ"


def throughput(make: Callable[[], Probe], data: bytes, budget_s: float = 20.0) -> float:
    probe = make()
    chunk = 64 * 1024
    started = time.perf_counter()
    fed = 0
    for offset in range(0, len(data), chunk):
        probe.feed(data[offset : offset + chunk])
        fed += chunk
        if time.perf_counter() - started > budget_s:
            break
    probe.screen()
    return min(fed, len(data)) / (time.perf_counter() - started) / 1e6


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=float, default=8.0, help="size of the coloured file in MB")
    args = parser.parse_args()
    data = coloured_text(int(args.mb * 1e6))
    header = ["candidate", *[name for name, _ in PROBES], *CLIS, "MB/s"]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for label, (module, make) in CANDIDATES.items():
        try:
            importlib.import_module(module)
            if module.startswith("PySide6") and not os.environ.get("IDEA_XTERM_DIR"):
                raise ImportError("IDEA_XTERM_DIR is not set")
        except ImportError as error:
            print(f"| {label} | not installed ({error}) |")
            continue
        cells = []
        for _name, check in PROBES:
            try:
                cells.append("yes" if check(make()) else "no")
            except LookupError:
                cells.append("not exposed")
            except Exception as error:
                cells.append(f"crash ({type(error).__name__})")
        cells += [replay_matches(make, cli) for cli in CLIS]
        web = module.startswith("PySide6")  # parsing and painting in one: measured by terminal_views.py
        cells.append("see views" if web else f"{throughput(make, data):.1f}")
        print(f"| {label} | " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
