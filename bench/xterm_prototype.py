"""The xterm.js route, as a prototype for the comparison in terminal_views.py (never shipped).

xterm.js 6 (`npm install --prefix DIR @xterm/xterm @xterm/addon-unicode11`, DIR given by IDEA_XTERM_DIR) in a
QWebEngineView per cell, as spec 01 §14 plans: one page per terminal, every page of the process in one shared
renderer process (`--renderer-process-limit=1`), bytes from the PTY batched every 16 ms and handed to
`term.write` as base64, the terminal's answers (DSR, DA, OSC 10/11) back through QWebChannel.

Needs PySide6-Addons (QtWebEngine), which IdeA does not install: the benchmark installs it in a scratch venv.
"""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path

from PySide6.QtCore import QObject, QTimer, QUrl, Slot
from PySide6.QtWebChannel import QWebChannel
from PySide6.QtWebEngineCore import QWebEnginePage
from PySide6.QtWebEngineWidgets import QWebEngineView
from PySide6.QtWidgets import QWidget

FLUSH_MS = 16

PAGE = """<!doctype html>
<html><head><meta charset="utf-8">
<link rel="stylesheet" href="{xterm}/css/xterm.css">
<style>html,body,#t{{margin:0;height:100%;background:#161818}}</style>
<script src="{xterm}/lib/xterm.js"></script>
<script src="{unicode}/lib/addon-unicode11.js"></script>
<script src="qrc:///qtwebchannel/qwebchannel.js"></script>
</head><body><div id="t"></div><script>
const term = new Terminal({{cols: {cols}, rows: {rows}, allowProposedApi: true, scrollback: 10000,
  fontFamily: 'DejaVu Sans Mono', fontSize: 14,
  theme: {{background: '#161818', foreground: '#d0d0d0'}}}});
term.loadAddon(new Unicode11Addon.Unicode11Addon());
term.unicode.activeVersion = '11';
term.open(document.getElementById('t'));
let bridge = null;
new QWebChannel(qt.webChannelTransport, ch => {{ bridge = ch.objects.bridge; bridge.ready(); }});
term.onData(d => bridge && bridge.input(d));
window.feed = b64 => {{
  const s = atob(b64); const a = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) a[i] = s.charCodeAt(i);
  term.write(a);
}};
window.screenText = () => {{
  const b = term.buffer.active, rows = [];
  for (let y = 0; y < term.rows; y++) rows.push(b.getLine(b.viewportY + y).translateToString(true));
  return rows.join('\\n');
}};
window.cellColour = (x, y) => {{
  const c = term.buffer.active.getLine(term.buffer.active.viewportY + y).getCell(x);
  return c.isFgRGB() ? c.getFgColor() : -1;
}};
window.modes = () => JSON.stringify(term.modes);
</script></body></html>
"""


class _Bridge(QObject):
    def __init__(self, view: XtermView) -> None:
        super().__init__(view)
        self._view = view

    @Slot()
    def ready(self) -> None:
        self._view._ready = True
        self._view._flush()

    @Slot(str)
    def input(self, text: str) -> None:
        if self._view.on_input is not None:
            self._view.on_input(text.encode("utf-8"))


class XtermView(QWebEngineView):
    """One xterm.js terminal; feed() takes PTY output on the GUI thread."""

    def __init__(self, columns: int, lines: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        root = Path(os.environ["IDEA_XTERM_DIR"]) / "node_modules" / "@xterm"
        html = PAGE.format(
            xterm=QUrl.fromLocalFile(str(root / "xterm")).toString(),
            unicode=QUrl.fromLocalFile(str(root / "addon-unicode11")).toString(),
            cols=columns,
            rows=lines,
        )
        self.on_input = None
        self._ready = False
        self._pending: list[bytes] = []
        self._channel = QWebChannel(self.page())
        self._bridge = _Bridge(self)
        self._channel.registerObject("bridge", self._bridge)
        self.page().setWebChannel(self._channel)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(FLUSH_MS)
        self._timer.timeout.connect(self._flush)
        page_file = Path(os.environ["IDEA_XTERM_DIR"]) / "prototype.html"
        page_file.write_text(html, encoding="utf-8")
        self.load(QUrl.fromLocalFile(str(page_file)))

    @property
    def ready(self) -> bool:
        return self._ready

    def feed(self, data: bytes) -> None:
        self._pending.append(data)
        if not self._timer.isActive():
            self._timer.start()

    def _flush(self) -> None:
        if not self._ready or not self._pending:
            return
        data, self._pending = b"".join(self._pending), []
        self.page().runJavaScript(f"feed('{base64.b64encode(data).decode()}')", 0)

    def evaluate(self, script: str, callback) -> None:  # type: ignore[no-untyped-def]
        self.page().runJavaScript(script, 0, callback)


def page_world() -> int:
    return QWebEnginePage.ScriptWorldId.MainWorld.value if hasattr(QWebEnginePage, "ScriptWorldId") else 0


def modes(raw: str) -> dict[str, object]:
    return json.loads(raw)
