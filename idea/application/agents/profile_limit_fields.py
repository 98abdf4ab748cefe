"""The profile editor's "Usage limits and liveness" fields as profiles.json keys: `rateLimitPattern
{pattern, resetCapture?, timeFormat?}` (spec 05 §6.2, §7) and `liveness {stallAfterMs?, turnTimeoutMs?}`
(spec 02 §5, 05 §5).

An empty field leaves its key absent (an empty pattern, the whole `rateLimitPattern`), so IdeA's default
applies; the placeholders say which. Durations are typed in seconds or minutes and stored in milliseconds.
Other keys of the two objects pass through untouched. Text that cannot be read raises ValueError with one
sentence naming the field.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from idea.domain.agent_states.liveness import DEFAULT_STALL_AFTER_MS, sees_work
from idea.domain.agent_states.session_limit import format_countdown
from idea.domain.orchestration.rules import DEFAULT_RENDEZVOUS_CEILING_MS, DEFAULT_RENDEZVOUS_WINDOW_MS
from idea.domain.profile_parts import RateLimitPattern
from idea.domain.wording import counted

SECONDS, MINUTES = "s", "min"
UNITS = ((SECONDS, "seconds"), (MINUTES, "minutes"))
_UNIT_MS = {SECONDS: 1000, MINUTES: 60_000}

# What `timeFormat` may be (spec 05 §7): absent or "auto" for the parser's own forms, else a strftime format
# (glibc's `%-I` flags accepted). Offered with an example of what each reads.
AUTOMATIC_FORMS = "15:00, 3pm, 15h30, in 2h 10m, Mon 9:00, Jun 21 3pm, ISO 8601, epoch seconds"
TIME_FORMATS: tuple[tuple[str, str], ...] = (
    ("auto", f"automatic, written out: {AUTOMATIC_FORMS}"),
    ("%H:%M", "15:00"),
    ("%I:%M %p", "03:30 PM"),
    ("%-I:%M%p", "3:30PM"),
    ("%-I%p", "3PM"),
    ("%b %d, %-I%p", "Jun 21, 3PM"),
    ("%Y-%m-%d %H:%M", "2026-06-21 15:00"),
)


@dataclass(frozen=True)
class Bounds:
    """The durations the editor accepts for a key, in ms. A value already stored outside them is kept."""

    key: str
    label: str
    low_ms: int
    high_ms: int

    def sentence(self) -> str:
        return f"{self.label}: give a time between {_words(self.low_ms)} and {_words(self.high_ms)}, or leave it empty"


# The stall sweep runs every 5 s; a stall is advisory, a day without a sign of work is the longest that helps.
STALL_AFTER = Bounds("stallAfterMs", "Stall after", 10_000, 24 * 3_600_000)
# The rendezvous window ends an ask after that long without activity; the ceiling ends every ask anyway.
TURN_TIMEOUT = Bounds("turnTimeoutMs", "Turn timeout", 10_000, DEFAULT_RENDEZVOUS_CEILING_MS)


@dataclass(frozen=True)
class LimitFields:
    """The fields of both objects, text as typed."""

    pattern: str = ""
    reset_capture: str = ""
    time_format: str = ""
    stall_after: str = ""
    stall_unit: str = MINUTES
    turn_timeout: str = ""
    turn_timeout_unit: str = MINUTES


def limit_fields_of(data: Mapping[str, Any]) -> LimitFields:
    limit = data.get("rateLimitPattern") or {}
    liveness = data.get("liveness") or {}
    stall, stall_unit = duration_text(liveness.get("stallAfterMs"))
    turn, turn_unit = duration_text(liveness.get("turnTimeoutMs"))
    return LimitFields(
        pattern=limit.get("pattern") or "",
        reset_capture=str(limit.get("resetCapture") or ""),
        time_format=limit.get("timeFormat") or "",
        stall_after=stall,
        stall_unit=stall_unit,
        turn_timeout=turn,
        turn_timeout_unit=turn_unit,
    )


def rate_limit_json(fields: LimitFields, base: Mapping[str, Any]) -> dict[str, Any] | None:
    """`rateLimitPattern` as the fields say it; None (absent) without a pattern."""
    if not fields.pattern:
        return None
    limit = {key: value for key, value in (base.get("rateLimitPattern") or {}).items()}
    limit["pattern"] = fields.pattern
    for key, text in (("resetCapture", fields.reset_capture.strip()), ("timeFormat", fields.time_format.strip())):
        if text:
            limit[key] = text
        else:
            limit.pop(key, None)
    return limit


def liveness_json(fields: LimitFields, base: Mapping[str, Any]) -> dict[str, Any] | None:
    """`liveness` as the fields say it; None (absent) when it holds nothing."""
    stored = base.get("liveness") or {}
    liveness = dict(stored)
    for bounds, text, unit in (
        (STALL_AFTER, fields.stall_after, fields.stall_unit),
        (TURN_TIMEOUT, fields.turn_timeout, fields.turn_timeout_unit),
    ):
        ms = _duration_ms(bounds, text, unit)
        if ms is None:
            liveness.pop(bounds.key, None)
            continue
        if ms != stored.get(bounds.key) and not bounds.low_ms <= ms <= bounds.high_ms:
            raise ValueError(bounds.sentence())
        liveness[bounds.key] = ms
    return liveness or None


def pattern_of(fields: LimitFields) -> RateLimitPattern | None:
    """The pattern the fields describe, for checking it and trying it; None without one."""
    if not fields.pattern:
        return None
    return RateLimitPattern(
        pattern=fields.pattern,
        reset_capture=fields.reset_capture.strip() or None,
        time_format=fields.time_format.strip() or None,
    )


def stall_placeholder(structured_adapter: str | None, hooks: str | None) -> str:
    """What an empty "Stall after" means for this CLI."""
    if sees_work(hooks, structured_adapter):
        return f"IdeA's default: {format_countdown(DEFAULT_STALL_AFTER_MS)}"
    return "none: IdeA sees no sign of work from this CLI"


def turn_timeout_placeholder() -> str:
    return f"IdeA's default: {format_countdown(DEFAULT_RENDEZVOUS_WINDOW_MS)}"


def duration_text(ms: object) -> tuple[str, str]:
    """A stored duration as typed: whole minutes in minutes, anything else in seconds ("1.5")."""
    if not isinstance(ms, int) or isinstance(ms, bool) or ms <= 0:
        return ("", MINUTES)
    if ms % 60_000 == 0:
        return (str(ms // 60_000), MINUTES)
    return (_decimal_text(Decimal(ms) / 1000), SECONDS)


def _duration_ms(bounds: Bounds, text: str, unit: str) -> int | None:
    cleaned = text.strip().replace(",", ".")
    if not cleaned:
        return None
    try:
        value = Decimal(cleaned)
    except InvalidOperation:
        value = Decimal("NaN")
    if not value.is_finite() or value <= 0:
        raise ValueError(f"{bounds.label}: {text.strip()!r} is not a positive number; leave it empty for the default")
    return max(1, int((value * _UNIT_MS.get(unit, 1000)).to_integral_value()))


def _decimal_text(value: Decimal) -> str:
    text = format(value, "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


def _words(ms: int) -> str:
    if ms % 3_600_000 == 0:
        return counted(ms // 3_600_000, "hour")
    if ms % 60_000 == 0:
        return counted(ms // 60_000, "minute")
    return f"{_decimal_text(Decimal(ms) / 1000)} seconds"
