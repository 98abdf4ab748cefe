"""LR-7: every form of spec 05 §7, the midnight roll-over, DST, `%-I%p`, zone names and garbage."""

from __future__ import annotations

from datetime import datetime, timezone
from zoneinfo import ZoneInfo

import pytest

from idea.infrastructure.limits.reset_time import parse_reset_time

PARIS = ZoneInfo("Europe/Paris")
NEW_YORK = ZoneInfo("America/New_York")


def ms(year: int, month: int, day: int, hour: int = 0, minute: int = 0, second: int = 0, tz=PARIS) -> int:
    return int(datetime(year, month, day, hour, minute, second, tzinfo=tz).timestamp() * 1000)


NOW = ms(2026, 6, 17, 10, 0)  # a Wednesday, 10:00 in Paris


def parse(text: str, fmt: str | None = None, now: int = NOW, tz=PARIS) -> int | None:
    return parse_reset_time(text, fmt, now, tz)


class TestIntegers:
    def test_epoch_milliseconds(self) -> None:
        assert parse("1781368615582") == 1781368615582

    def test_epoch_seconds(self) -> None:
        assert parse("1781368615") == 1781368615000
        assert parse(" 1781368615 ") == 1781368615000

    def test_small_integers_are_not_times(self) -> None:
        assert parse("999999999") is None
        assert parse("3") is None
        assert parse("15") is None


class TestIso:
    def test_utc(self) -> None:
        assert parse("2026-06-21T15:00:00Z") == ms(2026, 6, 21, 15, tz=timezone.utc)

    def test_offset(self) -> None:
        assert parse("2026-06-21T15:00:00+02:00") == ms(2026, 6, 21, 13, tz=timezone.utc)

    def test_without_offset_is_local(self) -> None:
        assert parse("2026-06-21T15:00:00") == ms(2026, 6, 21, 15)
        assert parse("2026-06-21 15:00") == ms(2026, 6, 21, 15)


class TestExplicitFormat:
    def test_glibc_non_padded_hour_with_am_pm(self) -> None:
        assert parse("3PM", "%-I%p") == ms(2026, 6, 17, 15)
        assert parse("3pm", "%-I%p") == ms(2026, 6, 17, 15)

    def test_time_already_past_today_is_tomorrow(self) -> None:
        assert parse("9:15", "%-H:%M") == ms(2026, 6, 18, 9, 15)

    def test_full_date(self) -> None:
        assert parse("21/06/2026 15:00", "%d/%m/%Y %H:%M") == ms(2026, 6, 21, 15)

    def test_missing_year_is_this_year(self) -> None:
        assert parse("21 Jun 3PM", "%d %b %I%p") == ms(2026, 6, 21, 15)

    def test_missing_year_more_than_a_day_past_is_next_year(self) -> None:
        assert parse("02 Jan 09:00", "%d %b %H:%M") == ms(2027, 1, 2, 9)

    def test_missing_year_on_29_february_is_the_next_leap_year(self) -> None:
        assert parse("29 Feb 10:00", "%d %b %H:%M") == ms(2028, 2, 29, 10)

    def test_missing_year_within_a_day_past_stays(self) -> None:
        assert parse("16 Jun 23:00", "%d %b %H:%M") == ms(2026, 6, 16, 23)

    def test_text_not_in_the_format_falls_back_to_the_usual_forms(self) -> None:
        assert parse("3:30pm", "%d/%m/%Y") == ms(2026, 6, 17, 15, 30)


class TestWallClock:
    @pytest.mark.parametrize(
        ("text", "expected"),
        [
            ("15:00", ms(2026, 6, 17, 15)),
            ("15:00:30", ms(2026, 6, 17, 15, 0, 30)),
            ("3pm", ms(2026, 6, 17, 15)),
            ("3 pm", ms(2026, 6, 17, 15)),
            ("3 PM", ms(2026, 6, 17, 15)),
            ("3:30pm", ms(2026, 6, 17, 15, 30)),
            ("3:30 p.m.", ms(2026, 6, 17, 15, 30)),
            ("15h", ms(2026, 6, 17, 15)),
            ("15h30", ms(2026, 6, 17, 15, 30)),
            ("12am", ms(2026, 6, 18, 0)),
            ("12pm", ms(2026, 6, 17, 12)),
            ("at 15:00", ms(2026, 6, 17, 15)),
            ("resets 3pm.", ms(2026, 6, 17, 15)),
        ],
    )
    def test_forms_today(self, text: str, expected: int) -> None:
        assert parse(text) == expected

    def test_a_time_already_past_is_tomorrow(self) -> None:
        assert parse("9am") == ms(2026, 6, 18, 9)
        assert parse("10:00") == ms(2026, 6, 18, 10)  # exactly now is not ahead

    def test_roll_over_at_midnight(self) -> None:
        late = ms(2026, 6, 17, 23, 59)
        assert parse("00:05", now=late) == ms(2026, 6, 18, 0, 5)
        assert parse("12:05am", now=late) == ms(2026, 6, 18, 0, 5)

    def test_roll_over_across_a_month_and_a_year(self) -> None:
        assert parse("00:05", now=ms(2026, 12, 31, 23, 59)) == ms(2027, 1, 1, 0, 5)

    def test_zone_in_parentheses(self) -> None:
        assert parse("3pm (America/New_York)") == ms(2026, 6, 17, 15, tz=NEW_YORK)

    def test_zone_after_the_time_is_today_in_that_zone(self) -> None:
        # 10:00 in Paris is 04:00 in New York: 1am there has passed, so it is tomorrow's 1am there
        assert parse("1am (America/New_York)") == ms(2026, 6, 18, 1, tz=NEW_YORK)

    @pytest.mark.parametrize("suffix", ["UTC", "GMT", "utc", "(UTC)"])
    def test_utc_names(self, suffix: str) -> None:
        assert parse(f"15:00 {suffix}") == ms(2026, 6, 17, 15, tz=timezone.utc)

    def test_unknown_zone_is_local(self) -> None:
        assert parse("3pm (Mars/Olympus_Mons)") == ms(2026, 6, 17, 15)

    def test_invalid_clock_values(self) -> None:
        assert parse("25:00") is None
        assert parse("13pm") is None
        assert parse("0am") is None
        assert parse("10:61") is None


class TestDaylightSaving:
    def test_time_in_the_spring_gap_resolves_forward(self) -> None:
        # Paris, 2026-03-29: 02:00 jumps to 03:00; 02:30 does not exist and becomes 03:30 summer time
        now = ms(2026, 3, 29, 1, 0)
        assert parse("2:30", now=now) == ms(2026, 3, 29, 3, 30)

    def test_time_after_the_spring_change_uses_summer_time(self) -> None:
        now = ms(2026, 3, 28, 23, 0)  # winter time, UTC+1
        assert parse("9:00", now=now) == int(datetime(2026, 3, 29, 7, 0, tzinfo=timezone.utc).timestamp() * 1000)

    def test_ambiguous_autumn_time_takes_the_first(self) -> None:
        # Paris, 2026-10-25: 03:00 goes back to 02:00; 02:30 happens twice, the first one (summer time) wins
        now = ms(2026, 10, 25, 0, 30)
        assert parse("2:30", now=now) == int(datetime(2026, 10, 25, 0, 30, tzinfo=timezone.utc).timestamp() * 1000)

    def test_roll_over_to_a_day_with_another_offset(self) -> None:
        now = ms(2026, 10, 24, 23, 0)  # summer time; tomorrow is winter time
        assert parse("22:00", now=now) == int(datetime(2026, 10, 25, 21, 0, tzinfo=timezone.utc).timestamp() * 1000)


class TestRelative:
    @pytest.mark.parametrize(
        ("text", "delta_ms"),
        [
            ("in 2h 10m", (2 * 60 + 10) * 60_000),
            ("in 2h", 2 * 3_600_000),
            ("2 hours", 2 * 3_600_000),
            ("45 min", 45 * 60_000),
            ("45 minutes", 45 * 60_000),
            ("90s", 90_000),
            ("in 1 hour and 5 minutes", 65 * 60_000),
            ("in 1 day", 86_400_000),
        ],
    )
    def test_durations(self, text: str, delta_ms: int) -> None:
        assert parse(text) == NOW + delta_ms

    def test_unknown_unit(self) -> None:
        assert parse("in 2 fortnights") is None


class TestWeekday:
    def test_next_occurrence(self) -> None:
        assert parse("Mon 9:00") == ms(2026, 6, 22, 9)
        assert parse("Monday at 9am") == ms(2026, 6, 22, 9)

    def test_today_if_still_ahead(self) -> None:
        assert parse("Wed 11:00") == ms(2026, 6, 17, 11)
        assert parse("Wednesday 3pm") == ms(2026, 6, 17, 15)

    def test_today_already_past_is_next_week(self) -> None:
        assert parse("Wed 9:00") == ms(2026, 6, 24, 9)


class TestMonthDay:
    def test_month_first(self) -> None:
        assert parse("Jun 21, 3pm") == ms(2026, 6, 21, 15)
        assert parse("June 21 at 15:00") == ms(2026, 6, 21, 15)

    def test_day_first(self) -> None:
        assert parse("21 June 15:00") == ms(2026, 6, 21, 15)
        assert parse("21st Jun 3:30pm") == ms(2026, 6, 21, 15, 30)

    def test_with_year(self) -> None:
        assert parse("Jan 3, 2027 9am") == ms(2027, 1, 3, 9)

    def test_past_date_is_next_year(self) -> None:
        assert parse("Jan 3, 9am") == ms(2027, 1, 3, 9)

    def test_impossible_date(self) -> None:
        assert parse("June 31 15:00") is None


class TestGarbage:
    @pytest.mark.parametrize(
        "text",
        [
            "",
            "   ",
            "soon",
            "tomorrow-ish",
            "Claude usage limit reached",
            "3",
            "at",
            "pm",
            "12:",
            ":30",
            "Blursday 9am",
            "Foo 21, 3pm",
            "2026-13-45T99:00:00Z",
            "x" * 500,
            "15:00 (Europe/Paris",
            "in",
        ],
    )
    def test_none(self, text: str) -> None:
        assert parse(text) is None
        assert parse(text, "%H:%M") is None
