"""Level 2 of usage-limit detection (spec 05 §6.2): a profile's `rateLimitPattern` matched on what the CLI
shows.

Two inputs, because either alone misses limits:
- the output stream, decoded, stripped of control sequences, whitespace collapsed, in a sliding window of the
  last 4096 characters so a message split across chunks still matches (the original missed those);
- the rendered screen, read back once output has been quiet for 300 ms (at most once per 2 s), because
  full-screen TUIs place words with cursor movements that no stream matching sees.

A pattern that does not compile disables level 2 for that profile (the caller says so once); a profile
without a pattern never reports anything. What a match means for the agent is decided by the application.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass
from datetime import tzinfo

from idea.domain.profile_parts import RateLimitPattern
from idea.infrastructure.limits.reset_time import parse_reset_time

WINDOW_CHARS = 4096
TAIL_BYTES = 64 * 1024  # raw output kept between two scans (colours take several bytes per character)
STREAM_SCAN_EVERY_MS = 1000  # while output flows (a limit message usually ends it: the quiet's scan reads it)
QUIET_BEFORE_READBACK_MS = 300
READBACK_EVERY_MS = 2000

# CSI (ESC [ … final), OSC / DCS / SOS / PM / APC (… BEL or ST), other two- or three-byte ESC sequences,
# the 8-bit CSI, then every C0 control but newline (and DEL).
_CONTROL = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"
    r"|\x1b[\]PX^_][^\x07\x1b]*(?:\x07|\x1b\\)?"
    r"|\x1b[()*+#%][ -~]?"
    r"|\x1b[ -~]?"
    r"|\x9b[0-?]*[ -/]*[@-~]"
    r"|[\x00-\x08\x0e-\x1f\x7f]"
)
_COMPLETE_CSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]")
_SGR = re.compile(r"\x1b\[[0-9;:]*m")  # colours and styles change no position: removed without a trace
_SPACES = re.compile(r"\s+")
ESCAPE_CARRY_LIMIT = 256  # an unfinished escape sequence longer than this is not one


def visible_stream_text(text: str) -> str:
    """`text` without terminal control sequences, every run of whitespace (line ends included) collapsed to
    one space, so a message the CLI wrapped or drew piecewise reads as one line."""
    return _SPACES.sub(" ", _CONTROL.sub(" ", _SGR.sub("", text)))


def visible_stream_end(raw: str, chars: int, reach: int) -> str:
    """`visible_stream_text` of the end of `raw`, from at most its last `reach` characters, and more than `chars`
    characters of it where there are that many: stripped backwards piece by piece (each cut made just before an
    escape sequence, never inside one), so a flood is read only as far back as the window needs."""
    floor = max(0, len(raw) - reach)
    end = len(raw)
    pieces: list[str] = []
    count = 0
    while end > floor and count <= chars:
        start = max(floor, end - 3 * chars)
        if start > floor:
            escape = raw.rfind("\x1b", max(floor, start - ESCAPE_CARRY_LIMIT), start + 1)
            if escape > floor:
                start = escape
        text = visible_stream_text(raw[start:end])
        if pieces and text.endswith(" ") and pieces[-1].startswith(" "):
            text = text[:-1]  # one run of blanks across the cut, as in one piece
        pieces.append(text)
        count += len(text)
        end = start
    return "".join(reversed(pieces))


@dataclass(frozen=True)
class LimitMatch:
    resets_at_ms: int | None  # None: the pattern matched but named no readable reset time
    text: str  # what matched, for the diagnostics log and the human net
    reset_text: str | None = None  # what the reset capture group caught (None: no group, or it caught nothing)


class RateLimitParser:
    """A profile's pattern, compiled once; `problem` says why it could not be (for the diagnostics log), and
    `regex_error` / `missing_capture` say the same in parts (for the profile editor)."""

    def __init__(self, pattern: RateLimitPattern | None, tz: tzinfo | None = None) -> None:
        self._spec = pattern
        self._tz = tz
        self._regex: re.Pattern[str] | None = None
        self.problem: str | None = None
        self.regex_error: str | None = None  # why the pattern does not compile, with the position
        self.missing_capture: str | None = None  # the reset capture the pattern has no group for
        if pattern is None:
            return
        try:
            self._regex = re.compile(pattern.pattern)
        except re.error as exc:
            self.regex_error = str(exc)
            self.problem = f"rateLimitPattern {pattern.pattern!r} is not a valid regular expression: {exc}"
            return
        capture = pattern.reset_capture
        if capture and capture not in self._regex.groupindex and not (
            capture.isdigit() and int(capture) <= self._regex.groups
        ):
            self.missing_capture = capture
            self.problem = f"rateLimitPattern has no group named {capture!r}; reset times will not be read"

    @property
    def active(self) -> bool:
        return self._regex is not None

    def search(self, text: str, now_ms: int) -> tuple[LimitMatch, int] | None:
        """The first match in `text` and the index just after it."""
        if self._regex is None or self._spec is None:
            return None
        match = self._regex.search(text)
        if match is None:
            return None
        raw = self._captured(match)
        resets_at_ms = parse_reset_time(raw, self._spec.time_format, now_ms, self._tz) if raw else None
        return LimitMatch(resets_at_ms, match.group(0), raw), match.end()

    def _captured(self, match: re.Match[str]) -> str | None:
        assert self._spec is not None
        capture = self._spec.reset_capture
        if not capture:
            return None
        try:
            raw = match.group(int(capture) if capture.isdigit() else capture)
        except IndexError:  # no such group (said once through `problem`)
            return None
        return raw or None


class OutputLimitScanner:
    """The stream input. `feed` only keeps the raw bytes (a copy, whatever the output's rate); `scan` decodes
    what came since the last scan, strips it, and matches on the sliding window of the last 4096 characters.
    The caller scans once a second while output flows and once more when it goes quiet, so a flood of
    output costs a bounded amount of work: only its last `TAIL_BYTES` between two scans are read.

    A match is reported once, then dropped from the window. One that reaches the end of what arrived so far
    is held back until more output comes or the final scan of a quiet moment: "resets 3" may be followed by
    "pm" in the next chunk.
    """

    def __init__(self, parser: RateLimitParser) -> None:
        self._parser = parser
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._pending = bytearray()
        self._skipped = False  # output was dropped between two scans: the window starts over
        self._window = ""
        self._carry = ""  # an escape sequence cut by the end of a chunk

    @property
    def pending(self) -> bool:
        return bool(self._pending)

    def feed(self, data: bytes) -> None:
        if not self._parser.active:
            return
        if len(self._pending) + len(data) <= 2 * TAIL_BYTES:
            self._pending += data
            return
        self._skipped = True
        if len(data) >= TAIL_BYTES:  # a large batch: only its tail is copied
            self._pending = bytearray(memoryview(data)[-TAIL_BYTES:])
        else:
            self._pending += data
            del self._pending[:-TAIL_BYTES]

    def scan(self, now_ms: int, *, final: bool = False) -> LimitMatch | None:
        """The first new match; `final`: output went quiet, a match held back at the end is reported."""
        if not self._parser.active:
            return None
        if self._pending:
            self._take_pending()
        return self._take(now_ms, final=final)

    def _take_pending(self) -> None:
        data, self._pending = bytes(self._pending), bytearray()
        if self._skipped:
            self._skipped = False
            self._decoder.reset()
            self._window, self._carry = "", ""
        raw = self._carry + self._decoder.decode(data)
        self._carry = ""
        cut = raw.rfind("\x1b", max(0, len(raw) - ESCAPE_CARRY_LIMIT))
        if cut != -1 and not _escape_complete(raw, cut):
            raw, self._carry = raw[:cut], raw[cut:]
        text = visible_stream_end(raw, WINDOW_CHARS, WINDOW_CHARS * 8)
        if not text:
            return
        if self._window.endswith(" ") and text.startswith(" "):
            text = text[1:]
        self._window = (self._window + text)[-WINDOW_CHARS:]

    def _take(self, now_ms: int, *, final: bool) -> LimitMatch | None:
        found = self._parser.search(self._window, now_ms)
        if found is None:
            return None
        match, end = found
        if end >= len(self._window) and not final:
            return None
        self._window = self._window[end:]
        return match


def _escape_complete(text: str, start: int) -> bool:
    """Whether the escape sequence at `start` is whole in `text`."""
    if start + 1 >= len(text):
        return False
    kind = text[start + 1]
    if kind == "[":
        return _COMPLETE_CSI.match(text, start) is not None
    if kind in "]PX^_":
        return "\x07" in text[start + 2 :] or "\x1b\\" in text[start + 2 :]
    if kind in "()*+#%":
        return start + 2 < len(text)
    return True


class ReadbackThrottle:
    """When to read the screen back: output has been quiet for 300 ms, something was printed since the last
    readback, and the last one is at least 2 s old. Times are monotonic milliseconds."""

    def __init__(self) -> None:
        self._last_output_ms: int | None = None
        self._last_readback_ms: int | None = None
        self._dirty = False

    def output(self, now_ms: int) -> None:
        self._last_output_ms = now_ms
        self._dirty = True

    def next_check_ms(self) -> int | None:
        """When a readback may next be due; None while nothing new was printed."""
        if not self._dirty or self._last_output_ms is None:
            return None
        quiet_at = self._last_output_ms + QUIET_BEFORE_READBACK_MS
        if self._last_readback_ms is None:
            return quiet_at
        return max(quiet_at, self._last_readback_ms + READBACK_EVERY_MS)

    def due(self, now_ms: int) -> bool:
        at = self.next_check_ms()
        return at is not None and now_ms >= at

    def read_back(self, now_ms: int) -> None:
        self._last_readback_ms = now_ms
        self._dirty = False


def screen_limit(parser: RateLimitParser, screen: str, now_ms: int) -> LimitMatch | None:
    """The screen input: the rendered screen's lines joined, blanks collapsed. A message wrapped at the
    terminal's width is read both with and without a space at each line end."""
    first: LimitMatch | None = None
    for joiner in (" ", ""):
        found = parser.search(_SPACES.sub(" ", joiner.join(screen.split("\n"))), now_ms)
        if found is not None and found[0].resets_at_ms is not None:
            return found[0]
        first = first or (found[0] if found is not None else None)
    return first

