"""Provider usage limits (spec 05 §6-§9): what IdeA knows about an agent's limit, when to resume it, and the
rules that keep automatic resumes safe — one report per limit episode, resumes spaced at the reset instant,
and no endless resume/re-limit loop.

Pure: times are epoch milliseconds given by the caller; the reset-time parser and the regular expressions
of level 2 live in the infrastructure.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum

from idea.domain.ids import AgentId, NodeId

RESUME_PROMPT = "Your usage limit has been lifted. Continue where you left off."

SECOND_MS = 1000
MINUTE_MS = 60 * SECOND_MS
HOUR_MS = 60 * MINUTE_MS
DAY_MS = 24 * HOUR_MS

SAME_RESET_TOLERANCE_MS = 60 * SECOND_MS  # two reports of one episode name resets this close
UNTIMED_EPISODE_MS = 10 * MINUTE_MS  # reports without a reset time this close are one episode
SUSPICIOUS_AHEAD_MS = 8 * DAY_MS  # a reset further ahead is asked to the person, pre-filled
RELIMIT_WINDOW_MS = 120 * SECOND_MS  # a limit this soon after a resume is a re-limit
RELIMIT_HISTORY_MS = HOUR_MS
RELIMITS_BEFORE_GIVING_UP = 3
STAGGER_MS = 2 * SECOND_MS  # resumes firing within the same second are spaced this much


class RateLimitSource(Enum):
    STRUCTURED = "structured"  # level 1: a structured stream or the CLI's own transcript records
    PATTERN = "pattern"  # level 2: the profile's pattern on the terminal's output or screen
    HUMAN = "human"  # level 3: the person gave the time


@dataclass(frozen=True)
class SessionLimit:
    resets_at_ms: int | None
    detected_at_ms: int
    source: RateLimitSource


@dataclass(frozen=True)
class Scheduled:
    fire_at_ms: int
    conversation_id: str | None


@dataclass(frozen=True)
class HumanFallback:
    """No reset time: the person is asked; IdeA never resumes blindly."""


ResumePlan = Scheduled | HumanFallback


def plan_resume(now_ms: int, limit: SessionLimit, conversation_id: str | None) -> ResumePlan:
    """A known reset is scheduled at that time (a reset already past fires now); none → the human net."""
    if limit.resets_at_ms is None:
        return HumanFallback()
    return Scheduled(max(limit.resets_at_ms, now_ms), conversation_id)


@dataclass(frozen=True)
class ResumeAgent:
    """The task a scheduler fires when a limit lifts: pure data, no closure crosses the port."""

    agent_id: AgentId
    node_id: NodeId | None
    conversation_id: str | None


def is_suspicious_reset(now_ms: int, resets_at_ms: int) -> bool:
    """A reset more than 8 days ahead is probably a misread: the person confirms it (§7 rule 8)."""
    return resets_at_ms - now_ms > SUSPICIOUS_AHEAD_MS


# --- one report per episode (§6.2) ---------------------------------------------------------------------


@dataclass(frozen=True)
class LimitReport:
    agent_id: AgentId
    resets_at_ms: int | None
    detected_at_ms: int


def same_episode(previous: LimitReport, report: LimitReport) -> bool:
    """The same agent naming the same reset (within 60 s), or naming none again within 10 minutes."""
    if previous.agent_id != report.agent_id:
        return False
    if previous.resets_at_ms is None and report.resets_at_ms is None:
        return report.detected_at_ms - previous.detected_at_ms <= UNTIMED_EPISODE_MS
    if previous.resets_at_ms is None or report.resets_at_ms is None:
        return False
    return abs(previous.resets_at_ms - report.resets_at_ms) <= SAME_RESET_TOLERANCE_MS


class LimitEpisodes:
    """Remembers the last reported limit of each agent, so a message still on screen, or printed again by
    the CLI, is reported once."""

    def __init__(self) -> None:
        self._last: dict[AgentId, LimitReport] = {}

    def is_new(self, report: LimitReport) -> bool:
        """True for the first report of an episode. A report without a reset time keeps its episode open for
        another 10 minutes (a limit screen read back every few seconds is one episode)."""
        previous = self._last.get(report.agent_id)
        if previous is not None and same_episode(previous, report):
            if report.resets_at_ms is None:
                self._last[report.agent_id] = report
            return False
        self._last[report.agent_id] = report
        return True

    def forget(self, agent_id: AgentId) -> None:
        """The episode is over (the agent resumed, or the person said it was not a limit)."""
        self._last.pop(agent_id, None)


# --- no resume/re-limit loop (§9.3) --------------------------------------------------------------------


class RelimitGuard:
    """After three re-limits (a new limit within 120 s of a resume) within an hour, automatic resumes stop for
    that agent and the person decides."""

    def __init__(self) -> None:
        self._resumed_at: dict[AgentId, int] = {}
        self._relimits: dict[AgentId, list[int]] = {}

    def resumed(self, agent_id: AgentId, now_ms: int) -> None:
        self._resumed_at[agent_id] = now_ms

    def limited(self, agent_id: AgentId, now_ms: int) -> bool:
        """Record a new limit; True while automatic resumes may go on, False when it is time to stop."""
        resumed = self._resumed_at.pop(agent_id, None)
        recent = [at for at in self._relimits.get(agent_id, []) if now_ms - at <= RELIMIT_HISTORY_MS]
        if resumed is not None and now_ms - resumed <= RELIMIT_WINDOW_MS:
            recent.append(now_ms)
        elif resumed is not None:
            recent = []  # the resume held: the streak of re-limits is broken
        self._relimits[agent_id] = recent
        return len(recent) < RELIMITS_BEFORE_GIVING_UP

    def reset(self, agent_id: AgentId) -> None:
        """The person took over (or confirmed a time): start counting again."""
        self._resumed_at.pop(agent_id, None)
        self._relimits.pop(agent_id, None)


# --- staggering (§9.5) ---------------------------------------------------------------------------------


def staggered_fire_at(fire_at_ms: int, armed_fire_ats: Iterable[int]) -> int:
    """The fire time of a new resume, moved 2 s after any other resume firing within the same second, so
    agents sharing an account do not all reach the provider at the reset instant."""
    taken = sorted(armed_fire_ats)
    candidate = fire_at_ms
    moved = True
    while moved:
        moved = False
        for other in taken:
            if abs(candidate - other) < SECOND_MS or (other <= candidate < other + STAGGER_MS):
                candidate = other + STAGGER_MS
                moved = True
    return candidate


# --- what the badge says (§10) -------------------------------------------------------------------------


def format_countdown(remaining_ms: int) -> str:
    """ "12 min", "2 h 10", "3 d 4 h"; "less than a minute" under one minute."""
    if remaining_ms < MINUTE_MS:
        return "less than a minute"
    minutes = -(-remaining_ms // MINUTE_MS)  # rounded up: "resumes in 1 min" until it does
    if minutes < 60:
        return f"{minutes} min"
    hours, minutes = divmod(minutes, 60)
    if hours < 24:
        return f"{hours} h {minutes:02d}" if minutes else f"{hours} h"
    days, hours = divmod(hours, 24)
    return f"{days} d {hours} h" if hours else f"{days} d"
