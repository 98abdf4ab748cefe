"""`AgentScreenWatch`: what a live agent's terminal shows that IdeA must act on, without reading prose.

Per live agent, on the core loop:
- output goes to the level-2 limit scanner (only when its profile has a `rateLimitPattern`), which reads
  what arrived once a second while output flows, and its end once output goes quiet;
- once output has been quiet for 300 ms (at most every 2 s), the screen is read back: a profile's
  blocking-prompt literal appearing or leaving (a trust dialog, a sign-in screen, a question), and a usage
  limit drawn by a full-screen TUI, are reported (spec 05 §6.2, 02 §9); then whoever reads the CLI's own
  records at that moment is told (`on_settled`).

Terminal output is never a beat and never ends a turn; this watch only reports dialogs and limits. The
output callback does as little as the profile needs: a timestamp, a flag, and a copy of the bytes when the
profile has a pattern.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import tzinfo

from idea.application.orchestrator.ports import Timer
from idea.application.ports import Diagnostics, TerminalSession, Unsubscribe
from idea.domain.agent_states.attention import visible_blocking_prompt
from idea.domain.profile import Profile
from idea.infrastructure.limits.detector import (
    STREAM_SCAN_EVERY_MS,
    LimitMatch,
    OutputLimitScanner,
    RateLimitParser,
    ReadbackThrottle,
    screen_limit,
)


class AgentScreenWatch:
    def __init__(
        self,
        *,
        terminal: TerminalSession,
        profile: Profile,
        timer: Timer,
        now_ms: Callable[[], int],
        diagnostics: Diagnostics,
        on_limit: Callable[[LimitMatch], None],
        on_prompt: Callable[[str | None], None],
        on_settled: Callable[[], None] | None = None,
        tz: tzinfo | None = None,
        label: str = "",
    ) -> None:
        """`now_ms`: the wall clock (reset times are wall-clock); `on_prompt(literal)`: a blocking prompt
        appeared (None: it left the screen); `on_settled`: after each readback (the CLI has drawn what it
        just did: a moment to read its own records)."""
        self._terminal = terminal
        self._prompts = tuple(p for p in profile.blocking_prompts if p)
        self._parser = RateLimitParser(profile.rate_limit_pattern, tz)
        self._scanner = OutputLimitScanner(self._parser) if self._parser.active else None
        self._timer = timer
        self._now_ms = now_ms
        self._diagnostics = diagnostics
        self._on_limit = on_limit
        self._on_prompt = on_prompt
        self._on_settled = on_settled
        self._label = label or profile.name
        self._throttle = ReadbackThrottle()
        self._wake = asyncio.Event()
        self._shown_prompt: str | None = None
        self._last_stream_scan_ms = 0
        self._unsubscribe: Unsubscribe | None = None
        self._task: asyncio.Task[None] | None = None
        if self._parser.problem:
            diagnostics.beacon(f"[limit] {self._label}: {self._parser.problem}")

    @property
    def needed(self) -> bool:
        """Whether the profile gives this watch anything to look for, or someone waits for the readbacks."""
        return bool(self._prompts) or self._parser.active or self._on_settled is not None

    def start(self) -> None:
        if self._task is not None or not self.needed:
            return
        self._unsubscribe = self._terminal.on_output(self._output)
        self._throttle.output(self._timer.monotonic_ms())  # the screen may already show a dialog
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
            self._task = None

    def _output(self, data: bytes) -> None:
        self._throttle.output(self._timer.monotonic_ms())
        if self._scanner is not None:
            self._scanner.feed(data)
        self._wake.set()

    def _next_ms(self) -> int | None:
        """When there is something to do next: a stream scan while output flows, a readback once it settles."""
        readback = self._throttle.next_check_ms()
        if self._scanner is None or not self._scanner.pending:
            return readback
        stream = self._last_stream_scan_ms + STREAM_SCAN_EVERY_MS
        return stream if readback is None else min(stream, readback)

    async def _run(self) -> None:
        while True:
            at = self._next_ms()
            if at is None:
                self._wake.clear()
                await self._wake.wait()
                continue
            delay = at - self._timer.monotonic_ms()
            if delay > 0:
                await self._timer.sleep(delay)
                continue
            now = self._timer.monotonic_ms()
            if not self._throttle.due(now):
                self._scan_stream(final=False)
                continue
            self._throttle.read_back(now)
            try:
                screen = await self._terminal.screen_text()
            except Exception as exc:  # noqa: BLE001  (a terminal gone between two reads: nothing to report)
                self._diagnostics.beacon(f"[screen] readback failed {self._label}: {exc!r}")
                continue
            self._read(screen)
            if self._on_settled is not None:
                self._on_settled()

    def _scan_stream(self, *, final: bool) -> None:
        if self._scanner is None:
            return
        self._last_stream_scan_ms = self._timer.monotonic_ms()
        match = self._scanner.scan(self._now_ms(), final=final)
        if match is not None:
            self._limit(match, "output")

    def _read(self, screen: str) -> None:
        prompt = visible_blocking_prompt(screen, self._prompts) if self._prompts else None
        if prompt != self._shown_prompt:
            self._shown_prompt = prompt
            self._on_prompt(prompt)
        if self._scanner is not None:
            self._scan_stream(final=True)
            match = screen_limit(self._parser, screen, self._now_ms())
            if match is not None:
                self._limit(match, "screen")

    def _limit(self, match: LimitMatch, where: str) -> None:
        self._diagnostics.beacon(
            f"[limit] pattern matched on {where} {self._label} resets_at_ms={match.resets_at_ms}: {match.text[:120]!r}"
        )
        self._on_limit(match)
