"""The profile editor's usage-limit and liveness fields: what they show of `rateLimitPattern` and `liveness`,
what they give back (an empty field leaves its key absent), and what the editor says of a pattern — refused
when the limits service could not use it, and tried on a line of output."""

from __future__ import annotations

from dataclasses import replace

import pytest

from idea.application.agents.limit_patterns import LimitPatternCheck, TrialLevel
from idea.application.agents.ports import PatternProblem, PatternReading
from idea.application.agents.profile_editing import fields_of, json_of, profile_to_save
from idea.application.agents.profile_limit_fields import (
    MINUTES,
    SECONDS,
    LimitFields,
    duration_text,
    pattern_of,
    stall_placeholder,
    turn_timeout_placeholder,
)
from idea.domain.agent_states.session_limit import DAY_MS, HOUR_MS, MINUTE_MS
from idea.domain.profile_parts import RateLimitPattern
from tests.fakes_agents import ScriptedLimitPatterns

PROFILE = {
    "id": "0b9d3c3e-0000-4000-8000-00000000abcd",
    "name": "Gemini CLI",
    "command": "gemini",
    "contextInjection": {"strategy": "conventionFile", "target": "GEMINI.md"},
}
LIMITED = {
    **PROFILE,
    "liveness": {"stallAfterMs": 90_000, "turnTimeoutMs": 1_200_000},
    "rateLimitPattern": {"pattern": "(?i)quota (?P<reset>.+)", "resetCapture": "reset", "timeFormat": "auto"},
}
NOW = 1_781_368_615_582
BROKEN = PatternProblem(regex_error="missing ), unterminated subpattern at position 6")


def with_limits(data: dict, **changes: str) -> dict:
    shown = fields_of(data)
    return json_of(data, replace(shown, limits=replace(shown.limits, **changes)))


def test_the_fields_show_both_objects_and_give_them_back_unchanged() -> None:
    shown = fields_of(LIMITED).limits
    assert shown == LimitFields("(?i)quota (?P<reset>.+)", "reset", "auto", "90", SECONDS, "20", MINUTES)
    assert json_of(LIMITED, fields_of(LIMITED)) == LIMITED
    assert fields_of(PROFILE).limits == LimitFields()
    assert "liveness" not in json_of(PROFILE, fields_of(PROFILE))


def test_edits_write_camel_case_keys_in_milliseconds_and_cleared_fields_leave_them_absent() -> None:
    data = with_limits(PROFILE, pattern="quota", reset_capture=" 1 ", stall_after="90,5", stall_unit=SECONDS,
                       turn_timeout="45", turn_timeout_unit=MINUTES)  # fmt: skip
    assert data["rateLimitPattern"] == {"pattern": "quota", "resetCapture": "1"}
    assert data["liveness"] == {"stallAfterMs": 90_500, "turnTimeoutMs": 2_700_000}
    cleared = with_limits(LIMITED, reset_capture="", time_format="", stall_after="")
    assert cleared["rateLimitPattern"] == {"pattern": "(?i)quota (?P<reset>.+)"}
    assert cleared["liveness"] == {"turnTimeoutMs": 1_200_000}
    gone = with_limits(LIMITED, pattern="", stall_after="", turn_timeout="")
    assert "rateLimitPattern" not in gone and "liveness" not in gone
    kept = with_limits({**LIMITED, "liveness": {"stallAfterMs": 90_000, "futureKey": 1}}, stall_after="")
    assert kept["liveness"] == {"futureKey": 1}  # a key the form does not show stays


@pytest.mark.parametrize(
    ("changes", "sentence"),
    [
        ({"stall_after": "0"}, "Stall after: '0' is not a positive number; leave it empty for the default"),
        ({"turn_timeout": "ten"}, "Turn timeout: 'ten' is not a positive number"),
        ({"stall_after": "5", "stall_unit": SECONDS}, "Stall after: give a time between 10 seconds and 24 hours"),
        ({"turn_timeout": "300", "turn_timeout_unit": MINUTES},
         "Turn timeout: give a time between 10 seconds and 4 hours"),
    ],
)
def test_durations_out_of_range_or_unreadable_say_which_field(changes: dict[str, str], sentence: str) -> None:
    with pytest.raises(ValueError) as raised:
        with_limits(PROFILE, **changes)
    assert str(raised.value).startswith(sentence)


def test_a_duration_already_stored_outside_the_range_is_kept_as_it_is() -> None:
    stored = {**PROFILE, "liveness": {"stallAfterMs": 2_000}}
    assert fields_of(stored).limits.stall_after == "2"
    assert with_limits(stored, pattern="quota")["liveness"] == {"stallAfterMs": 2_000}


def test_durations_are_shown_in_minutes_when_whole_and_defaults_as_placeholders() -> None:
    assert duration_text(300_000) == ("5", MINUTES) and duration_text(1_234) == ("1.234", SECONDS)
    assert duration_text(None) == ("", MINUTES)
    assert stall_placeholder("claude", None) == "IdeA's default: 5 min"
    assert stall_placeholder(None, "codexNotify") == "IdeA's default: 5 min"
    assert stall_placeholder(None, None) == "none: IdeA sees no sign of work from this CLI"
    assert turn_timeout_placeholder() == "IdeA's default: 10 min"


def test_a_pattern_the_limits_service_could_not_use_is_told_per_field_and_refuses_the_save() -> None:
    problems = {"quota (": BROKEN, "quota": PatternProblem(missing_capture="reset")}
    check = LimitPatternCheck(ScriptedLimitPatterns(problems))
    broken = check.verdict(RateLimitPattern(pattern="quota ("))
    assert broken.pattern_error == "Not a valid regular expression: missing ), unterminated subpattern at position 6"
    assert broken.refusal == f"Limit pattern: {broken.pattern_error}"
    assert check.verdict(RateLimitPattern(pattern="quota", reset_capture="reset")).capture_error == (
        "The pattern has no group named “reset”"
    )
    assert check.verdict(None).refusal is None
    with pytest.raises(ValueError, match="^Limit pattern: Not a valid regular expression"):
        profile_to_save(with_limits(PROFILE, pattern="quota ("), None, None, check)
    assert profile_to_save(with_limits(PROFILE, pattern="quota ok"), None, None, check).rate_limit_pattern is not None


def trial(line: str, reading: PatternReading | None = None, **pattern: str) -> tuple[str, TrialLevel]:
    reader = ScriptedLimitPatterns({"quota (": BROKEN}, {line: reading} if reading else {}, now_ms=NOW)
    fields = LimitFields(**{"pattern": "quota (?P<reset>.+)", "reset_capture": "reset", **pattern})
    result = LimitPatternCheck(reader).trial(pattern_of(fields), line)
    return result.text, result.level


def test_the_try_it_box_says_what_the_pattern_finds_and_what_idea_would_do() -> None:
    line = "Quota exceeded, resets at 3pm"
    resets = NOW + 2 * HOUR_MS + 10 * MINUTE_MS
    found = PatternReading(NOW, "Quota exceeded, resets at 3pm", "3pm", resets, "15:00")
    assert trial(line, found) == (
        "Matches “Quota exceeded, resets at 3pm”. “3pm” reads as 15:00, in 2 h 10: IdeA would resume the agent "
        "then.",
        TrialLevel.OK,
    )
    far = replace(found, resets_at_ms=NOW + 9 * DAY_MS, resets_at="Jun 30 15:00")
    far_text, far_level = trial(line, far)
    assert far_text.endswith("reads as Jun 30 15:00, more than 8 days away: IdeA would ask you to confirm it.")
    assert far_level is TrialLevel.PROBLEM
    unreadable = replace(found, resets_at_ms=None, resets_at="")
    assert trial(line, unreadable) == (
        "Matches “Quota exceeded, resets at 3pm”, but “3pm” is not a time IdeA can read: IdeA would ask you when "
        "to resume the agent.",
        TrialLevel.PROBLEM,
    )
    no_capture = trial(line, found, reset_capture="")[0]
    assert no_capture.endswith("No reset capture group is set: IdeA would ask you when to resume the agent.")
    assert trial(line) == ("No match: IdeA would not see a usage limit in this line.", TrialLevel.HINT)
    assert trial(line, pattern="quota (") == ("Fix the limit pattern first.", TrialLevel.PROBLEM)
    assert trial(line, pattern="")[0] == "Write a limit pattern above first."
    assert trial("  ")[1] is TrialLevel.HINT
