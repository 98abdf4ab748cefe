"""`LocalLimitPatternReader`: a profile's `rateLimitPattern` checked and tried the way level 2 of limit detection
uses it — the same `RateLimitParser`, the same text cleaning, the same `parse_reset_time` (spec 05 §6.2, §7)."""

from __future__ import annotations

from datetime import tzinfo

from idea.application.agents.ports import PatternProblem, PatternReading
from idea.application.ports import Clock
from idea.domain.profile_parts import RateLimitPattern
from idea.infrastructure.limits.reset_time import format_local_time
from idea.infrastructure.limits.detector import RateLimitParser, visible_stream_text


class LocalLimitPatternReader:
    def __init__(self, clock: Clock, tz: tzinfo | None = None) -> None:
        self._clock = clock
        self._tz = tz  # None: this machine's zone, as the limits service reads reset times

    def problem(self, pattern: RateLimitPattern) -> PatternProblem | None:
        parser = RateLimitParser(pattern, self._tz)
        if parser.regex_error is None and parser.missing_capture is None:
            return None
        return PatternProblem(regex_error=parser.regex_error, missing_capture=parser.missing_capture)

    def read(self, pattern: RateLimitPattern, text: str) -> PatternReading:
        now_ms = self._clock.now_ms()
        found = RateLimitParser(pattern, self._tz).search(visible_stream_text(text), now_ms)
        if found is None:
            return PatternReading(now_ms)
        match = found[0]
        resets_at = format_local_time(match.resets_at_ms, now_ms, self._tz) if match.resets_at_ms is not None else ""
        return PatternReading(now_ms, match.text, match.reset_text, match.resets_at_ms, resets_at)
