"""A profile's limit pattern checked and tried as level 2 of limit detection reads the CLI's output: the same
parser, the same cleaning of the text, the same reset-time rules."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from idea.application.agents.ports import PatternProblem, PatternReading
from idea.domain.profile_parts import RateLimitPattern
from idea.infrastructure.limits.pattern_reader import LocalLimitPatternReader
from tests.fakes import FakeClock

PARIS = ZoneInfo("Europe/Paris")
NOW = int(datetime(2026, 6, 17, 10, 0, tzinfo=PARIS).timestamp() * 1000)
QUOTA = RateLimitPattern(pattern=r"(?i)quota exceeded.*?resets? at (?P<reset>\S+)", reset_capture="reset")


def reader() -> LocalLimitPatternReader:
    return LocalLimitPatternReader(FakeClock(NOW), tz=PARIS)


def test_a_pattern_that_does_not_compile_or_lacks_its_capture_group_is_a_problem() -> None:
    broken = reader().problem(RateLimitPattern(pattern="quota (exceeded"))
    assert broken == PatternProblem(regex_error="missing ), unterminated subpattern at position 6")
    assert reader().problem(RateLimitPattern(pattern="quota", reset_capture="reset")) == PatternProblem(
        missing_capture="reset"
    )
    assert reader().problem(RateLimitPattern(pattern="quota (.+)", reset_capture="2")) == PatternProblem(
        missing_capture="2"
    )
    assert reader().problem(QUOTA) is None
    assert reader().problem(RateLimitPattern(pattern="quota (.+)", reset_capture="1")) is None


def test_a_line_of_output_is_read_like_the_terminal_stream_with_the_limits_reset_time_parser() -> None:
    line = "\x1b[31mQuota exceeded\x1b[0m for   gemini-2.5-pro,\r\nresets at 15:30."
    reading = reader().read(QUOTA, line)
    resets = int(datetime(2026, 6, 17, 15, 30, tzinfo=PARIS).timestamp() * 1000)
    matched = "Quota exceeded for gemini-2.5-pro, resets at 15:30."
    assert reading == PatternReading(NOW, matched, "15:30.", resets, "15:30")


def test_a_reset_the_parser_cannot_read_or_no_match_says_so() -> None:
    assert reader().read(QUOTA, "quota exceeded, resets at teatime") == PatternReading(
        NOW, "quota exceeded, resets at teatime", "teatime", None, ""
    )
    assert reader().read(QUOTA, "all good") == PatternReading(NOW)
    formatted = RateLimitPattern(pattern=r"until (?P<t>.+)", reset_capture="t", time_format="%-I%p")
    tomorrow = reader().read(formatted, "until 9AM")
    assert tomorrow.resets_at == "Jun 18 09:00"
