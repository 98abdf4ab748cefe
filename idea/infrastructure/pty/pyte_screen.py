"""The screen of a `ptyprocess` terminal: a `pyte` screen that answers the program's device and colour
queries like the widget backend, survives the sequences pyte fails on, and renders its visible lines.

pyte has no alternate screen: a full-screen program draws over the main screen, and leaving it does not
restore what was there. Keyboard-protocol sequences (kitty, modifyOtherKeys) are accepted and ignored.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable

import pyte
from wcwidth import wcwidth

_log = logging.getLogger(__name__)

# Device identity, the same as the widget backend answers: VT100 with advanced video option, and the
# secondary attributes of the Konsole emulation inside QTermWidget.
PRIMARY_DEVICE_ATTRIBUTES = "\x1b[?1;2c"
SECONDARY_DEVICE_ATTRIBUTES = b"\x1b[>0;115;0c"

# A dark scheme: the Linux console colours.
FOREGROUND = (0xB2, 0xB2, 0xB2)
BACKGROUND = (0x00, 0x00, 0x00)
PALETTE = [
    (0x00, 0x00, 0x00), (0xB2, 0x18, 0x18), (0x18, 0xB2, 0x18), (0xB2, 0x68, 0x18),
    (0x18, 0x18, 0xB2), (0xB2, 0x18, 0xB2), (0x18, 0xB2, 0xB2), (0xB2, 0xB2, 0xB2),
    (0x68, 0x68, 0x68), (0xFF, 0x54, 0x54), (0x54, 0xFF, 0x54), (0xFF, 0xFF, 0x54),
    (0x54, 0x54, 0xFF), (0xFF, 0x54, 0xFF), (0x54, 0xFF, 0xFF), (0xFF, 0xFF, 0xFF),
]  # fmt: skip


class PyteScreen(pyte.Screen):
    """A pyte screen that answers device reports and collects title changes for the terminal."""

    def __init__(self, columns: int, lines: int, send_reply: Callable[[bytes], None]) -> None:
        self._send_reply = send_reply
        self.titles: list[str] = []
        super().__init__(columns, lines)

    def write_process_input(self, data: str) -> None:
        self._send_reply(data.encode("utf-8"))

    def report_device_attributes(self, mode: int = 0, **kwargs: bool) -> None:
        if mode == 0 and not kwargs.get("private"):
            self.write_process_input(PRIMARY_DEVICE_ATTRIBUTES)

    def set_title(self, param: str) -> None:
        # pyte reads one digit of the OSC number: OSC 21 and 22 (not titles) arrive here as ";…".
        if param.startswith(";"):
            return
        super().set_title(param)
        self.titles.append(param)


class TolerantStream(pyte.Stream):
    """A pyte stream that drops a sequence pyte fails on instead of the rest of the output chunk.

    pyte raises on some sequences modern CLIs send (`CSI ? 4 m` reaches select_graphic_rendition with an
    argument it does not take). It resets its parser before raising, after the whole sequence was read, so
    going on in the plain-text state skips exactly that sequence. Text is decoded by the terminal's own
    UTF-8 decoder rather than pyte.ByteStream, which switches to Latin-1 on `ESC % @`.
    """

    def _send_to_parser(self, data: str) -> bool | None:
        try:
            return super()._send_to_parser(data)
        except Exception:
            _log.debug("pyte rejected a control sequence", exc_info=True)
            return True


class PrefixedCsiFilter:
    """Takes CSI sequences with a `<`, `=` or `>` prefix out of the output before pyte sees it.

    pyte ignores the prefix and runs the rest as the unprefixed sequence: `CSI > 4;2 m` (modifyOtherKeys)
    would switch on underline, `CSI < u` (kitty keyboard pop) would print "u", `CSI > c` (secondary device
    attributes) would get the primary answer. Secondary DA is answered here; the others set keyboard
    protocols that a screen does not model.
    """

    _SEQUENCE = re.compile(rb"\x1b\[[<=>][0-?]*[ -/]*[@-~]")
    _UNFINISHED_TAIL = re.compile(rb"\x1b(?:\[(?:[<=>][0-?]*[ -/]*)?)?\Z")
    _SECONDARY_DA_QUERIES = (b"\x1b[>c", b"\x1b[>0c")
    _MAX_CARRY = 64

    def __init__(self) -> None:
        self._carry = b""

    def feed(self, data: bytes) -> tuple[bytes, bytes]:
        """(the output for the screen, the replies for the program)."""
        buffer = self._carry + data
        self._carry = b""
        tail = self._UNFINISHED_TAIL.search(buffer)
        if tail is not None and len(buffer) - tail.start() <= self._MAX_CARRY:
            self._carry = buffer[tail.start() :]
            buffer = buffer[: tail.start()]
        replies: list[bytes] = []

        def remove(match: re.Match[bytes]) -> bytes:
            if match.group() in self._SECONDARY_DA_QUERIES:
                replies.append(SECONDARY_DEVICE_ATTRIBUTES)
            return b""

        return self._SEQUENCE.sub(remove, buffer), b"".join(replies)

    def flush(self) -> bytes:
        """The held-back start of a sequence, once no more output will come."""
        carry, self._carry = self._carry, b""
        return carry


def render_screen(screen: pyte.Screen) -> str:
    """The visible lines, trailing spaces trimmed.

    Not pyte's Screen.display, which raises IndexError once a narrow character overwrote the left half of
    a wide one; such an orphaned right half shows as a space, as in xterm.
    """
    lines = []
    for y in range(screen.lines):
        row = screen.buffer[y]
        cells = []
        after_wide = False
        for x in range(screen.columns):
            data = row[x].data
            if not data:  # the right half of a wide character
                if not after_wide:
                    cells.append(" ")
                after_wide = False
                continue
            cells.append(data)
            after_wide = wcwidth(data[0]) == 2
        lines.append("".join(cells).rstrip(" "))
    return "\n".join(lines)
