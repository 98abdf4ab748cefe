"""The cold-start gate (spec 03 §8.6): the first delivery to an agent IdeA just started waits until its CLI
is ready, otherwise the text is typed before the prompt exists and is lost (original failure #5).

Released by the first of: the bridge's MCP `initialize`, a Claude `SessionStart` hook, the profile's
prompt-ready pattern in the output, or the profile's `coldStartMaxMs` (degraded). Release is idempotent and
never marks anyone idle.
"""

from __future__ import annotations

import asyncio
import codecs
from collections.abc import Callable

PROMPT_WINDOW_CHARS = 8192


class ColdStartGate:
    def __init__(self, armed_mono_ms: int) -> None:
        self.armed_mono_ms = armed_mono_ms
        self.released_mono_ms: int | None = None
        self.waited = False  # a delivery waited at this gate
        self.watching_prompt = False
        self._event = asyncio.Event()
        self._cleanups: list[Callable[[], object]] = []

    @property
    def released(self) -> bool:
        return self._event.is_set()

    def on_dispose(self, cleanup: Callable[[], object]) -> None:
        """Run `cleanup` (stop a timer, unsubscribe from output) once the gate no longer needs watching."""
        if self.released:
            cleanup()
        else:
            self._cleanups.append(cleanup)

    def release(self, now_mono_ms: int) -> bool:
        """Open the gate; True only for the first signal."""
        if self.released:
            return False
        self.released_mono_ms = now_mono_ms
        self._event.set()
        self.dispose()
        return True

    def dispose(self) -> None:
        cleanups, self._cleanups = self._cleanups, []
        for cleanup in cleanups:
            cleanup()

    async def wait(self) -> None:
        self.waited = True
        await self._event.wait()


class PromptPatternWatcher:
    """Looks for a profile's literal prompt-ready pattern in a terminal's output, escape sequences removed,
    over a sliding window so a pattern split across output chunks is still found."""

    def __init__(self, pattern: str) -> None:
        self._pattern = pattern
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._window = ""

    def feed(self, data: bytes) -> bool:
        self._window = (self._window + self._decoder.decode(data))[-PROMPT_WINDOW_CHARS:]
        return self.seen_in(self._window)

    def seen_in(self, text: str) -> bool:
        return self._pattern in visible_text(text)


def visible_text(text: str) -> str:
    """`text` without terminal control sequences (CSI, OSC, DCS and other ESC sequences) nor C0 controls
    other than newline."""
    out: list[str] = []
    index, length = 0, len(text)
    while index < length:
        ch = text[index]
        if ch == "\x1b" and index + 1 < length:
            index = _skip_escape(text, index)
            continue
        if ch == "\n" or ord(ch) >= 0x20:
            out.append(ch)
        index += 1
    return "".join(out)


def _skip_escape(text: str, index: int) -> int:
    """The index just after the escape sequence starting at `index`."""
    kind = text[index + 1]
    cursor = index + 2
    if kind == "[":  # CSI: parameters, then a final byte in @..~
        while cursor < len(text) and not ("@" <= text[cursor] <= "~"):
            cursor += 1
        return cursor + 1
    if kind in "]PX^_":  # OSC, DCS and friends: until BEL or ST (ESC \)
        while cursor < len(text):
            if text[cursor] == "\x07":
                return cursor + 1
            if text[cursor] == "\x1b" and cursor + 1 < len(text) and text[cursor + 1] == "\\":
                return cursor + 2
            cursor += 1
        return cursor
    if kind in "()*+#%":  # charset designation and friends: one more character (ESC ( B)
        return cursor + 1
    return cursor  # a two-character sequence (ESC 7, ESC =, ...)
