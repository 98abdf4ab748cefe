"""What the core needs to watch its agents beyond their hooks (spec 05): a watch on each live terminal for
blocking prompts and usage limits, wall-clock timers for resumes, and local times in words."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

from idea.application.limits.ports import ScheduledTask, Scheduler
from idea.application.ports import TerminalSession
from idea.domain.agent_states.turn_failure import FailedTurn
from idea.domain.profile import Profile

LimitSeen = Callable[[int | None, str], None]  # (resets_at_ms or None, the text that matched)
PromptSeen = Callable[[str | None], None]  # the blocking-prompt literal on screen, None once it left


@runtime_checkable
class TypedInByThePerson(Protocol):
    """A terminal that says when the person presses Enter in it (one shown in a cell)."""

    def on_line_submitted(self, callback: Callable[[None], None]) -> Callable[[], None]: ...


class ScreenWatch(Protocol):
    def start(self) -> None: ...

    async def stop(self) -> None: ...


class WallClockScheduler(Scheduler, Protocol):
    def start(self) -> None: ...

    async def close(self) -> None: ...


class TranscriptLimits(Protocol):
    def new_limits(self) -> list[tuple[int | None, str]]:
        """Usage-limit records the CLI appended to its transcript since the last call: (resets_at_ms or
        None, the record's text)."""
        ...


class FailedTurns(Protocol):
    def new_failures(self) -> list[FailedTurn]:
        """The turns the CLI ended on an API error since the last call, as its own records tell."""
        ...


class HookSessions(Protocol):
    def hook_event(self, agent_id: str, source: str, payload: dict[str, Any]) -> None:
        """Record the CLI's own session id a hook event carries."""
        ...


class AgentWatchAdapters(Protocol):
    def screen_watch(
        self,
        terminal: TerminalSession,
        profile: Profile,
        *,
        on_limit: LimitSeen,
        on_prompt: PromptSeen,
        on_settled: Callable[[], None] | None = None,
        label: str,
    ) -> ScreenWatch:
        """A watch on one agent's terminal; it does nothing until started. `on_settled`: called each time the
        screen is read back once output went quiet (the CLI has drawn what it just did)."""
        ...

    def scheduler(self, fired: asyncio.Queue[ScheduledTask]) -> WallClockScheduler:
        """Timers that put their task on `fired` when the wall clock passes their deadline."""
        ...

    def transcript_limits(self, transcript_path: str) -> TranscriptLimits:
        """Level 1 (spec 05 §6.1): the limit records a Claude transcript gets from now on."""
        ...

    def failed_turns(self, project_root: str, agent_id: str, profile: Profile) -> FailedTurns | None:
        """For a CLI that tells of a turn ended by an API error only in its own records (Codex: no hook, no
        `notify` then), their reader from now on; None for the others."""
        ...

    def limit_in_failure(self, message: str) -> tuple[int | None, str] | None:
        """Level 1 (spec 05 §6.1) from a turn that failed on a usage limit (`FailedTurn.usage_limit`): (resets_at_ms
        or None, the text) when the message tells of a limit, None when it tells of another error."""
        ...

    def format_time(self, epoch_ms: int) -> str:
        """ "15:00", with the date when it is not today (local time)."""
        ...
