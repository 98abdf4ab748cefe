"""`LocalAgentWatchAdapters`: what the orchestration core watches its agents with — a screen watch per live
terminal (blocking prompts, level-2 usage limits), the CLIs' own records of limits and failed turns, the
wall-clock scheduler of resumes, local times in words."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable

from idea.application.limits.ports import ScheduledTask
from idea.application.orchestrator.ports import Timer
from idea.application.orchestrator.watch_ports import LimitSeen, PromptSeen
from idea.application.ports import Clock, Diagnostics, TerminalSession
from idea.domain.profile import Profile
from idea.infrastructure.limits.detector import LimitMatch
from idea.infrastructure.inspect.activity import CODEX_HOME_DIR, agent_run_dir
from idea.infrastructure.inspect.codex_turns import CodexFailedTurns
from idea.infrastructure.inspect.engine_sessions import (
    CLAUDE_LIMIT_LINES,
    LimitRecord,
    TranscriptTail,
    limit_in_api_error,
    claude_limit_in_record,
)
from idea.infrastructure.limits.reset_time import format_local_time, parse_reset_time
from idea.infrastructure.limits.screen_watch import AgentScreenWatch
from idea.infrastructure.scheduler import AsyncioWallClockScheduler


class LocalAgentWatchAdapters:
    def __init__(self, clock: Clock, timer: Timer, diagnostics: Diagnostics) -> None:
        self._clock = clock
        self._timer = timer
        self._diagnostics = diagnostics

    def screen_watch(
        self,
        terminal: TerminalSession,
        profile: Profile,
        *,
        on_limit: LimitSeen,
        on_prompt: PromptSeen,
        on_settled: Callable[[], None] | None = None,
        label: str,
    ) -> AgentScreenWatch:
        def limit(match: LimitMatch) -> None:
            on_limit(match.resets_at_ms, match.text)

        return AgentScreenWatch(
            terminal=terminal,
            profile=profile,
            timer=self._timer,
            now_ms=self._clock.now_ms,
            diagnostics=self._diagnostics,
            on_limit=limit,
            on_prompt=on_prompt,
            on_settled=on_settled,
            label=label,
        )

    def scheduler(self, fired: asyncio.Queue[ScheduledTask]) -> AsyncioWallClockScheduler:
        return AsyncioWallClockScheduler(self._clock, fired)

    def transcript_limits(self, transcript_path: str) -> ClaudeTranscriptLimits:
        return ClaudeTranscriptLimits(transcript_path, self._clock)

    def failed_turns(self, project_root: str, agent_id: str, profile: Profile) -> CodexFailedTurns | None:
        if profile.structured_adapter != "codex":
            return None
        return CodexFailedTurns(os.path.join(agent_run_dir(project_root, agent_id), CODEX_HOME_DIR))

    def limit_in_failure(self, message: str) -> tuple[int | None, str] | None:
        limit = limit_in_api_error(message)
        return _with_reset(limit, self._clock) if limit is not None else None

    def format_time(self, epoch_ms: int) -> str:
        return format_local_time(epoch_ms, self._clock.now_ms())


def _with_reset(limit: LimitRecord, clock: Clock) -> tuple[int | None, str]:
    """(resets_at_ms or None, the text) of a limit record."""
    resets = parse_reset_time(limit.resets_at_text, "auto", clock.now_ms()) if limit.resets_at_text else None
    return resets, limit.text


class ClaudeTranscriptLimits:
    """The limit records Claude Code appends to its transcript (level 1): only new bytes are read."""

    def __init__(self, path: str, clock: Clock) -> None:
        self._tail = TranscriptTail(path)
        self._clock = clock

    def new_limits(self) -> list[tuple[int | None, str]]:
        found = []
        for record in self._tail.new_records(must_contain=CLAUDE_LIMIT_LINES):
            limit = claude_limit_in_record(record)
            if limit is not None:
                found.append(_with_reset(limit, self._clock))
        return found
