"""A stand-in for the terminal watches of the orchestration core (`AgentWatchAdapters`): tests say what an
agent's screen shows and what limit it printed; resume timers are the real wall-clock scheduler on the
test's virtual time."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field

from idea.application.limits.ports import ScheduledTask
from idea.application.orchestrator.watch_ports import LimitSeen, PromptSeen
from idea.application.ports import TerminalSession
from idea.domain.agent_states.turn_failure import FailedTurn
from idea.domain.profile import Profile
from idea.infrastructure.scheduler import AsyncioWallClockScheduler
from tests.fakes_orchestration import VirtualTime


@dataclass
class FakeScreenWatch:
    label: str
    on_limit: LimitSeen
    on_prompt: PromptSeen
    on_settled: Callable[[], None] | None = None
    started: bool = False
    stopped: bool = False

    def start(self) -> None:
        self.started = True

    async def stop(self) -> None:
        self.stopped = True


@dataclass
class FakeTranscript:
    """Limit records the test says the CLI wrote to its transcript."""

    pending: list[tuple[int | None, str]] = field(default_factory=list)

    def new_limits(self) -> list[tuple[int | None, str]]:
        found, self.pending = self.pending, []
        return found


@dataclass
class FakeFailedTurns:
    """Failed turns the test says the CLI recorded."""

    pending: list[FailedTurn] = field(default_factory=list)

    def new_failures(self) -> list[FailedTurn]:
        found, self.pending = self.pending, []
        return found


@dataclass
class FakeWatching:
    time: VirtualTime
    watches: dict[str, FakeScreenWatch] = field(default_factory=dict)  # by agent name
    scheduler_instance: AsyncioWallClockScheduler | None = None
    transcripts: dict[str, FakeTranscript] = field(default_factory=dict)
    failures: dict[str, FakeFailedTurns] = field(default_factory=dict)  # by agent id

    def screen_watch(
        self,
        terminal: TerminalSession,
        profile: Profile,
        *,
        on_limit: LimitSeen,
        on_prompt: PromptSeen,
        on_settled: Callable[[], None] | None = None,
        label: str,
    ) -> FakeScreenWatch:
        watch = FakeScreenWatch(label, on_limit, on_prompt, on_settled)
        self.watches[label] = watch
        return watch

    def scheduler(self, fired: asyncio.Queue[ScheduledTask]) -> AsyncioWallClockScheduler:
        self.scheduler_instance = AsyncioWallClockScheduler(self.time, fired, sleep=self.time.sleep)
        return self.scheduler_instance

    def format_time(self, epoch_ms: int) -> str:
        return f"@{epoch_ms}"

    def limit_in_failure(self, message: str) -> tuple[int | None, str] | None:
        """A message "limit @<epoch ms>" tells of a limit resetting then; "limit" of one without a time."""
        if not message.startswith("limit"):
            return None
        stamp = message.removeprefix("limit").strip().removeprefix("@")
        return (int(stamp) if stamp.isdigit() else None), message

    def failed_turns(self, project_root: str, agent_id: str, profile: Profile) -> FakeFailedTurns | None:
        if profile.structured_adapter != "codex":
            return None
        return self.failures.setdefault(agent_id, FakeFailedTurns())

    def fail_turn(self, agent_id: str, failed: FailedTurn, *, settled: str | None = None) -> None:
        """The agent's CLI records a failed turn; with `settled` (the agent's name), its screen then settles."""
        self.failures.setdefault(agent_id, FakeFailedTurns()).pending.append(failed)
        if settled is not None:
            callback = self.watches[settled].on_settled
            assert callback is not None, "no one reads this agent's records"
            callback()

    def transcript_limits(self, transcript_path: str) -> FakeTranscript:
        return self.transcripts.setdefault(transcript_path, FakeTranscript())

    def show(self, name: str, literal: str | None) -> None:
        """The agent's screen now shows this blocking prompt (None: none any more)."""
        self.watches[name].on_prompt(literal)

    def limit(self, name: str, resets_at_ms: int | None, text: str = "usage limit reached") -> None:
        self.watches[name].on_limit(resets_at_ms, text)
