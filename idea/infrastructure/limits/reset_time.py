"""`parse_reset_time`: when a provider's usage limit resets, read from what its CLI printed (spec 05 §7).

Shared by level 1 (structured records, transcripts) and level 2 (profile patterns on terminal output). Returns
epoch milliseconds, or None when the text says nothing usable — never a guess. The forms, tried in order:

1. integers: >= 10^12 epoch ms, >= 10^9 epoch seconds, smaller: None;
2. RFC 3339 / ISO 8601, exact; without an offset, local time;
3. an explicit strftime `timeFormat` (glibc's `%-I` style flags accepted); missing date parts follow rule 4,
   a missing year is this year (next year when the date is more than a day past);
4. a wall-clock time (`15:00`, `15:00:30`, `3pm`, `3 pm`, `3:30pm`, `15h`, `15h30`), optionally followed by a
   zone (`(Europe/Paris)`, `UTC`, `GMT`; unknown → local): today in that zone, tomorrow when already past;
   a time that does not exist (a DST gap) resolves forward;
5. relative durations: `in 2h 10m`, `2 hours`, `45 min`, `90s`;
6. weekday and time: `Mon 9:00`, `Monday at 9am` → the next such moment (today if still ahead);
7. month, day and time: `Jun 21, 3pm`, `21 June 15:00` (year as in 3).
"""

from __future__ import annotations

import os
import re
from datetime import date, datetime, time, timedelta, timezone, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

AUTO = "auto"
EPOCH_MS_MIN = 10**12
EPOCH_S_MIN = 10**9

_MONTHS = {
    name: index
    for index, names in enumerate(
        (
            ("jan", "january"),
            ("feb", "february"),
            ("mar", "march"),
            ("apr", "april"),
            ("may",),
            ("jun", "june"),
            ("jul", "july"),
            ("aug", "august"),
            ("sep", "sept", "september"),
            ("oct", "october"),
            ("nov", "november"),
            ("dec", "december"),
        ),
        start=1,
    )
    for name in names
}
_WEEKDAYS = {
    name: index
    for index, names in enumerate(
        (
            ("mon", "monday"),
            ("tue", "tues", "tuesday"),
            ("wed", "wednesday"),
            ("thu", "thur", "thurs", "thursday"),
            ("fri", "friday"),
            ("sat", "saturday"),
            ("sun", "sunday"),
        )
    )
    for name in names
}
_UNITS_MS = {
    "d": 86_400_000, "day": 86_400_000, "days": 86_400_000,
    "h": 3_600_000, "hr": 3_600_000, "hrs": 3_600_000, "hour": 3_600_000, "hours": 3_600_000,
    "m": 60_000, "min": 60_000, "mins": 60_000, "minute": 60_000, "minutes": 60_000,
    "s": 1000, "sec": 1000, "secs": 1000, "second": 1000, "seconds": 1000,
}  # fmt: skip

_LEAD = r"^\s*(?:(?:resets?|reset|at|on|until|after|by)\b[\s:,-]*)*"
_TRAIL = r"[\s.,;:!]*$"
_TIME = (
    r"(?P<hour>\d{1,2})"
    r"(?:(?::(?P<minute>\d{2})(?::(?P<second>\d{2}))?)|(?P<hsep>h)(?P<hminute>\d{2})?)?"
    r"\s*(?P<ampm>[ap]\.?m\.?)?"
)
_ZONE = r"(?:\s*(?:\(\s*(?P<zone>[A-Za-z0-9_+\-/]+)\s*\)|(?P<utc>utc|gmt|z)\b))?"
_WALL = re.compile(_LEAD + _TIME + _ZONE + _TRAIL, re.IGNORECASE)
_WEEKDAY = re.compile(
    _LEAD + r"(?:next\s+)?(?P<weekday>[a-z]+)\.?,?\s+(?:at\s+)?" + _TIME + _ZONE + _TRAIL, re.IGNORECASE
)
_MONTH_DAY = re.compile(
    _LEAD
    + r"(?:(?P<month1>[a-z]+)\.?\s+(?P<day1>\d{1,2})(?:st|nd|rd|th)?|(?P<day2>\d{1,2})(?:st|nd|rd|th)?\s+(?P<month2>[a-z]+)\.?)"
    + r"(?:,?\s+(?P<year>\d{4}))?,?\s+(?:at\s+)?"
    + _TIME
    + _ZONE
    + _TRAIL,
    re.IGNORECASE,
)
_RELATIVE_PART = re.compile(r"(\d+)\s*([a-z]+)", re.IGNORECASE)
_RELATIVE = re.compile(r"^\s*(?:in\s+)?((?:\d+\s*[a-z]+[\s,]*(?:and\s+)?)+)" + _TRAIL, re.IGNORECASE)
_INTEGER = re.compile(r"^\s*(\d+)\s*$")
_GLIBC_FLAGS = re.compile(r"%[-_0^#]([a-zA-Z])")
_DATE_DIRECTIVES = frozenset("dmbBjUWcxyYGuV")
_YEAR_DIRECTIVES = frozenset("yYcxG")


def parse_reset_time(text: str, time_format: str | None, now_ms: int, tz: tzinfo | None = None) -> int | None:
    """The reset instant `text` names, in epoch ms, seen from `now_ms` in the local zone `tz` (default: this
    machine's); None when it names none."""
    if not text or len(text) > 200:
        return None
    local = tz if tz is not None else local_zone()
    now = datetime.fromtimestamp(now_ms / 1000, tz=timezone.utc)
    for parse in (_integer, _iso):
        result = parse(text, local)
        if result is not None:
            return result
    if time_format and time_format != AUTO:
        result = _with_format(text, time_format, now, local)
        if result is not None:
            return result
    for parse_at in (_relative, _weekday, _month_day, _wall_clock):
        result = parse_at(text, now, local)
        if result is not None:
            return result
    return None


def format_local_time(epoch_ms: int, now_ms: int | None = None, zone: tzinfo | None = None) -> str:
    """ "15:00" today, "Jun 21 15:00" another day (in `zone`, default this machine's)."""
    zone = zone if zone is not None else local_zone()
    moment = datetime.fromtimestamp(epoch_ms / 1000, tz=zone)
    today = datetime.fromtimestamp(now_ms / 1000, tz=zone) if now_ms is not None else datetime.now(tz=zone)
    clock = moment.strftime("%H:%M")
    return clock if moment.date() == today.date() else f"{moment.strftime('%b')} {moment.day} {clock}"


def local_zone() -> tzinfo:
    """This machine's zone, with its DST rules when they can be found (a fixed offset otherwise)."""
    name = os.environ.get("TZ", "").lstrip(":")
    if name:
        try:
            return ZoneInfo(name)
        except (ZoneInfoNotFoundError, ValueError):
            pass
    try:
        target = os.path.realpath("/etc/localtime")
        if "zoneinfo/" in target:
            return ZoneInfo(target.split("zoneinfo/", 1)[1])
    except (OSError, ZoneInfoNotFoundError, ValueError):
        pass
    offset = datetime.now().astimezone().tzinfo
    return offset if offset is not None else timezone.utc


# --- the forms ----------------------------------------------------------------------------------------


def _integer(text: str, _local: tzinfo) -> int | None:
    match = _INTEGER.match(text)
    if match is None:
        return None
    value = int(match.group(1))
    if value >= EPOCH_MS_MIN:
        return value
    if value >= EPOCH_S_MIN:
        return value * 1000
    return None


def _iso(text: str, local: tzinfo) -> int | None:
    candidate = text.strip()
    if len(candidate) < 10 or not candidate[:4].isdigit() or candidate[4] != "-":
        return None
    try:
        moment = datetime.fromisoformat(candidate.replace("z", "Z"))
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=local)
    return _ms(moment)


def _with_format(text: str, time_format: str, now: datetime, local: tzinfo) -> int | None:
    fmt = _GLIBC_FLAGS.sub(r"%\1", time_format)
    directives = set(re.findall(r"%([a-zA-Z])", fmt))
    subject = text.strip()
    if not directives & _YEAR_DIRECTIVES:
        # A leap year so that 29 February parses; the rule below decides the year.
        subject, fmt = f"{subject} 2000", f"{fmt} %Y"
    try:
        parsed = datetime.strptime(subject, fmt)
    except ValueError:
        return None
    zone = parsed.tzinfo or local
    if not directives & _DATE_DIRECTIVES:
        if "a" in directives or "A" in directives:
            return None  # a weekday alone: strptime cannot tell which one; the auto forms can
        return _ms(_next_wall_clock(now, parsed.time(), zone))
    if directives & _YEAR_DIRECTIVES:
        return _ms(_at(parsed.date(), parsed.time(), zone))
    return _ms(_with_year_rule(now, parsed.month, parsed.day, parsed.time(), zone))


def _relative(text: str, now: datetime, _local: tzinfo) -> int | None:
    match = _RELATIVE.match(text)
    if match is None:
        return None
    parts = _RELATIVE_PART.findall(match.group(1))
    if not text.lstrip().lower().startswith("in") and len(parts) == 1 and parts[0][1].lower() == "h":
        return None  # "15h" alone is a wall-clock time (15:00), "in 15h" a duration
    total = 0
    for amount, unit in parts:
        factor = _UNITS_MS.get(unit.lower())
        if factor is None:
            return None
        total += int(amount) * factor
    return _ms(now) + total if total > 0 else None


def _wall_clock(text: str, now: datetime, local: tzinfo) -> int | None:
    match = _WALL.match(text)
    if match is None:
        return None
    clock = _time_of(match)
    if clock is None:
        return None
    return _ms(_next_wall_clock(now, clock, _zone_of(match, local)))


def _weekday(text: str, now: datetime, local: tzinfo) -> int | None:
    match = _WEEKDAY.match(text)
    if match is None:
        return None
    weekday = _WEEKDAYS.get(match.group("weekday").lower())
    clock = _time_of(match)
    if weekday is None or clock is None:
        return None
    zone = _zone_of(match, local)
    today = now.astimezone(zone).date()
    for days_ahead in range(8):
        day = today + timedelta(days=days_ahead)
        if day.weekday() == weekday:
            moment = _at(day, clock, zone)
            if moment > now:
                return _ms(moment)
    return None


def _month_day(text: str, now: datetime, local: tzinfo) -> int | None:
    match = _MONTH_DAY.match(text)
    if match is None:
        return None
    month = _MONTHS.get((match.group("month1") or match.group("month2") or "").lower())
    day = int(match.group("day1") or match.group("day2"))
    clock = _time_of(match)
    if month is None or clock is None:
        return None
    zone = _zone_of(match, local)
    try:
        if match.group("year"):
            return _ms(_at(date(int(match.group("year")), month, day), clock, zone))
        return _ms(_with_year_rule(now, month, day, clock, zone))
    except ValueError:  # 31 June
        return None


# --- helpers ------------------------------------------------------------------------------------------


def _time_of(match: re.Match[str]) -> time | None:
    hour = int(match.group("hour"))
    minute_text = match.group("minute") or match.group("hminute")
    minute = int(minute_text) if minute_text else 0
    second = int(match.group("second")) if match.group("second") else 0
    ampm = (match.group("ampm") or "").lower().replace(".", "")
    if not ampm and match.group("minute") is None and match.group("hsep") is None:
        return None  # a bare number is not a time
    if ampm:
        if not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (12 if ampm == "pm" else 0)
    if hour > 23 or minute > 59 or second > 59:
        return None
    return time(hour, minute, second)


def _zone_of(match: re.Match[str], local: tzinfo) -> tzinfo:
    if match.group("utc"):
        return timezone.utc
    name = match.group("zone")
    if not name:
        return local
    if name.upper() in ("UTC", "GMT", "Z"):
        return timezone.utc
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return local  # an unknown zone name: the local time is the best reading


def _at(day: date, clock: time, zone: tzinfo) -> datetime:
    """`day` at `clock` in `zone`; a time inside a DST gap resolves forward (fold=0 takes the offset before
    the change, which lands after the gap)."""
    return datetime.combine(day, clock).replace(tzinfo=zone, fold=0)


def _next_wall_clock(now: datetime, clock: time, zone: tzinfo) -> datetime:
    today = now.astimezone(zone).date()
    moment = _at(today, clock, zone)
    if moment <= now:
        moment = _at(today + timedelta(days=1), clock, zone)
    return moment


def _with_year_rule(now: datetime, month: int, day: int, clock: time, zone: tzinfo) -> datetime:
    """This year's date, or the next year's when this year's is more than a day past (29 February: the next
    leap year's)."""
    year = now.astimezone(zone).year
    for candidate in range(year, year + 9):
        try:
            moment = _at(date(candidate, month, day), clock, zone)
        except ValueError:
            continue  # no 29 February this year
        if now - moment <= timedelta(days=1):
            return moment
    raise ValueError(f"no date {month}-{day}")  # unreachable: 29 February comes back within eight years


def _ms(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)
