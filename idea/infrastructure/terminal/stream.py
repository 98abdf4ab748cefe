"""Scanners over a terminal's raw output, shared by every terminal adapter.

Both keep a short carry-over so a control sequence split across two output chunks is still seen.
"""

from __future__ import annotations

import codecs

_CSI_PRIVATE = b"\x1b[?"
_OSC = b"\x1b]"
_MAX_SEQUENCE = 64


class BracketedPasteTracker:
    """Follows DECSET/DECRST 2004 (also inside combined sequences such as CSI ? 1049;2004 h)."""

    def __init__(self) -> None:
        self.enabled = False
        self._carry = b""

    @property
    def idle(self) -> bool:
        """No sequence is half-read: a chunk without `ESC [ ?` changes nothing."""
        return not self._carry

    def feed(self, data: bytes) -> None:
        if _cannot_hold(self._carry, data, _CSI_PRIVATE):
            self._carry = _partial_prefix(self._carry + data[-len(_CSI_PRIVATE) :], _CSI_PRIVATE)
            return
        buffer = self._carry + data
        self._carry = b""
        start = 0
        while True:
            index = buffer.find(_CSI_PRIVATE, start)
            if index < 0:
                self._carry = _partial_prefix(buffer, _CSI_PRIVATE)
                return
            end = index + len(_CSI_PRIVATE)
            while end < len(buffer) and buffer[end : end + 1] in b"0123456789;":
                end += 1
            if end >= len(buffer):
                self._carry = buffer[index:][-_MAX_SEQUENCE:]
                return
            final = buffer[end : end + 1]
            if final in (b"h", b"l"):
                params = buffer[index + len(_CSI_PRIVATE) : end].split(b";")
                if b"2004" in params:
                    self.enabled = final == b"h"
            start = end + 1


class ColorQueryResponder:
    """Answers OSC 10/11 (foreground/background) and OSC 4 (palette) colour queries.

    Several CLIs ask for the terminal's colours and some wait for the answer; the terminal widget never
    answers, so IdeA does, with the active colour scheme's colours.
    """

    def __init__(
        self,
        foreground: tuple[int, int, int],
        background: tuple[int, int, int],
        palette: list[tuple[int, int, int]] | None = None,
    ) -> None:
        self.foreground = foreground
        self.background = background
        self.palette = palette or []
        self._carry = b""

    @property
    def idle(self) -> bool:
        """No query is half-read: a chunk without `ESC ]` asks nothing."""
        return not self._carry

    def feed(self, data: bytes) -> bytes:
        """The replies to write back to the program for the queries found in `data` (often b"")."""
        if _cannot_hold(self._carry, data, _OSC):
            self._carry = _partial_prefix(self._carry + data[-len(_OSC) :], _OSC)
            return b""
        buffer = self._carry + data
        self._carry = b""
        replies = []
        start = 0
        while True:
            index = buffer.find(_OSC, start)
            if index < 0:
                self._carry = _partial_prefix(buffer, _OSC)
                break
            terminator, length = _osc_terminator(buffer, index + len(_OSC))
            if terminator < 0:
                self._carry = buffer[index:][-_MAX_SEQUENCE:] if len(buffer) - index <= _MAX_SEQUENCE else b""
                break
            body = buffer[index + len(_OSC) : terminator]
            reply = self._answer(body)
            if reply:
                replies.append(reply)
            start = terminator + length
        return b"".join(replies)

    def _answer(self, body: bytes) -> bytes:
        parts = body.split(b";")
        if len(parts) == 2 and parts[1] == b"?" and parts[0] in (b"10", b"11"):
            rgb = self.foreground if parts[0] == b"10" else self.background
            return b"\x1b]" + parts[0] + b";" + _rgb_spec(rgb) + b"\x1b\\"
        if len(parts) == 3 and parts[0] == b"4" and parts[2] == b"?" and parts[1].isdigit():
            number = int(parts[1])
            if number < len(self.palette):
                return b"\x1b]4;" + parts[1] + b";" + _rgb_spec(self.palette[number]) + b"\x1b\\"
        return b""


class Utf8Decoder:
    """Turns output chunks back into text; multi-byte characters split across chunks survive."""

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")

    def decode(self, data: bytes) -> str:
        return self._decoder.decode(data)


def _osc_terminator(buffer: bytes, start: int) -> tuple[int, int]:
    bel = buffer.find(b"\x07", start)
    st = buffer.find(b"\x1b\\", start)
    candidates = [(pos, size) for pos, size in ((bel, 1), (st, 2)) if pos >= 0]
    if not candidates:
        return -1, 0
    return min(candidates)


def _rgb_spec(rgb: tuple[int, int, int]) -> bytes:
    return ("rgb:" + "/".join(f"{channel:02x}{channel:02x}" for channel in rgb)).encode("ascii")


def _cannot_hold(carry: bytes, data: bytes, marker: bytes) -> bool:
    """Whether `data` can neither hold `marker` nor end a sequence begun before: nothing is half-read (at most
    the start of `marker` is carried) and the marker's last byte, rare in text (`?`, `]`), is absent — one
    memchr instead of a copy and a search of the whole output."""
    return len(carry) < len(marker) and marker[-1:] not in data


def _partial_prefix(buffer: bytes, marker: bytes) -> bytes:
    """The tail of `buffer` that could be the start of `marker` continued in the next chunk."""
    for size in range(min(len(marker) - 1, len(buffer)), 0, -1):
        if marker.startswith(buffer[-size:]):
            return buffer[-size:]
    return b""


class OutputScanners:
    """Both scanners over output as a terminal widget hands it over: batches of chunks, the PTY's bytes decoded
    as Latin-1 (one character per byte). Every sequence either scanner acts on holds a `?` (`ESC [ ? … h`, and
    the colour queries `ESC ] 10;?`, `ESC ] 11;?`, `ESC ] 4;n;?`), a byte rare in a terminal's output, so a
    batch is joined, encoded and read only when one memchr per chunk finds a `?` in it, or a sequence is
    half-read. The end of a batch passed over is kept (`_MAX_SEQUENCE` characters) and read in front of the
    next one that is read: a query begun there is still found. What they conclude is what reading every byte
    would conclude, and a flood of coloured text is never copied for them."""

    def __init__(self, color_queries: ColorQueryResponder) -> None:
        self.bracketed_paste = BracketedPasteTracker()
        self.color_queries = color_queries
        self._passed_end = ""  # the end of the output passed over since the last batch read

    def read(self, chunks: list[str]) -> bytes:
        """The replies to write back to the program for the queries in `chunks` (often b"")."""
        if self.bracketed_paste.idle and self.color_queries.idle and not any("?" in chunk for chunk in chunks):
            self._passed_end = (self._passed_end + _last_characters(chunks, _MAX_SEQUENCE))[-_MAX_SEQUENCE:]
            return b""
        data = (self._passed_end + "".join(chunks)).encode("latin-1")
        self._passed_end = ""
        self.bracketed_paste.feed(data)
        return self.color_queries.feed(data)


def last_chunks(chunks: list[str], more_than: int) -> list[str]:
    """The last of `chunks` that together hold more than `more_than` characters (all of them when they hold
    fewer), whole."""
    first, size = len(chunks), 0
    while first > 0 and size <= more_than:
        first -= 1
        size += len(chunks[first])
    return chunks[first:]


def _last_characters(chunks: list[str], count: int) -> str:
    """The last `count` characters of `chunks` joined (all of them when they hold fewer)."""
    return "".join(last_chunks(chunks, count - 1))[-count:]
