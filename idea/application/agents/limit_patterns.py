"""What the profile editor says of a `rateLimitPattern` (spec 05 §6.2): whether the limits service could use
it — a pattern that does not compile, or a reset capture it has no group for, is refused on save — and what
it finds in a line of CLI output the person pastes in its "Try it" box.

The regular expression engine and the reset-time parser are the limits service's own, behind
`LimitPatternReader`; this module only decides what to say.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from idea.application.agents.ports import LimitPatternReader, PatternReading
from idea.domain.agent_states.session_limit import format_countdown, is_suspicious_reset
from idea.domain.profile import Profile
from idea.domain.profile_parts import RateLimitPattern

TRIAL_MAX_CHARS = 4096  # the detector's window: what it ever matches on at once
MATCH_SHOWN_CHARS = 80


@dataclass(frozen=True)
class PatternVerdict:
    """One sentence per field, "" when the field is fine."""

    pattern_error: str = ""
    capture_error: str = ""

    @property
    def refusal(self) -> str | None:
        """Why the profile cannot be saved, naming the field; None when it can."""
        if self.pattern_error:
            return f"Limit pattern: {self.pattern_error}"
        if self.capture_error:
            return f"Reset capture group: {self.capture_error}"
        return None


class TrialLevel(Enum):
    HINT = "hint"  # nothing to judge yet, or no match
    OK = "ok"  # a limit IdeA would resume by itself
    PROBLEM = "problem"  # a limit IdeA would have to ask the person about, or a pattern to fix first


@dataclass(frozen=True)
class Trial:
    text: str
    level: TrialLevel


class LimitPatternCheck:
    def __init__(self, reader: LimitPatternReader) -> None:
        self._reader = reader

    def verdict(self, pattern: RateLimitPattern | None) -> PatternVerdict:
        if pattern is None:
            return PatternVerdict()
        problem = self._reader.problem(pattern)
        if problem is None:
            return PatternVerdict()
        if problem.regex_error:
            return PatternVerdict(pattern_error=f"Not a valid regular expression: {problem.regex_error}")
        capture = problem.missing_capture or ""
        what = f"number {capture}" if capture.isdigit() else f"named “{capture}”"
        return PatternVerdict(capture_error=f"The pattern has no group {what}")

    def refusal(self, profile: Profile) -> str | None:
        """Why `profile` cannot be saved for its limit pattern; None when it can."""
        return self.verdict(profile.rate_limit_pattern).refusal

    def trial(self, pattern: RateLimitPattern | None, line: str) -> Trial:
        """What level 2 would make of `line` with `pattern`."""
        if not line.strip():
            return Trial("Paste a line of the CLI's output to see whether the pattern finds a usage limit in it.",
                         TrialLevel.HINT)  # fmt: skip
        if pattern is None:
            return Trial("Write a limit pattern above first.", TrialLevel.HINT)
        verdict = self.verdict(pattern)
        if verdict.pattern_error:
            return Trial("Fix the limit pattern first.", TrialLevel.PROBLEM)
        reading = self._reader.read(pattern, line[-TRIAL_MAX_CHARS:])
        if reading.matched is None:
            return Trial("No match: IdeA would not see a usage limit in this line.", TrialLevel.HINT)
        return _matched(pattern, reading, verdict)


def _matched(pattern: RateLimitPattern, reading: PatternReading, verdict: PatternVerdict) -> Trial:
    assert reading.matched is not None
    matched = reading.matched.strip()
    if len(matched) > MATCH_SHOWN_CHARS:
        matched = matched[: MATCH_SHOWN_CHARS - 1] + "…"
    head = f"Matches “{matched}”"
    ask = "IdeA would ask you when to resume the agent."
    capture = pattern.reset_capture
    if not capture:
        return Trial(f"{head}. No reset capture group is set: {ask}", TrialLevel.PROBLEM)
    if verdict.capture_error:
        return Trial(f"{head}, but {verdict.capture_error[0].lower()}{verdict.capture_error[1:]}: {ask}",
                     TrialLevel.PROBLEM)  # fmt: skip
    if reading.reset_text is None:
        return Trial(f"{head}, but group “{capture}” caught nothing: {ask}", TrialLevel.PROBLEM)
    if reading.resets_at_ms is None:
        return Trial(f"{head}, but “{reading.reset_text}” is not a time IdeA can read: {ask}", TrialLevel.PROBLEM)
    reset = f"{head}. “{reading.reset_text}” reads as {reading.resets_at}"
    remaining = reading.resets_at_ms - reading.now_ms
    if is_suspicious_reset(reading.now_ms, reading.resets_at_ms):
        return Trial(f"{reset}, more than 8 days away: IdeA would ask you to confirm it.", TrialLevel.PROBLEM)
    if remaining <= 0:
        return Trial(f"{reset}, already past: IdeA would resume the agent at once.", TrialLevel.OK)
    return Trial(f"{reset}, in {format_countdown(remaining)}: IdeA would resume the agent then.", TrialLevel.OK)
