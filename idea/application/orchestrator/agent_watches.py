"""What each live agent is watched for beyond its hooks (spec 05 §6, §9): its screen (a dialog its profile
names, a usage limit drawn there), the usage-limit records of its Claude transcript (level 1), and the turns
its CLI ended on an API error where only the CLI's own records tell of them (Codex).

The records are read when the agent's output settles (the moment a CLI has drawn what it just did) and, while
it has a task, on each liveness sweep: a record written after the screen settled is read within one sweep.
`AgentStates` decides what each finding means.
"""

from __future__ import annotations

from collections.abc import Callable

from idea.application.orchestrator.context import CoreContext
from idea.application.orchestrator.watch_ports import (
    AgentWatchAdapters,
    FailedTurns,
    ScreenWatch,
    TranscriptLimits,
    TypedInByThePerson,
)
from idea.domain.agent_states.turn_failure import FailedTurn
from idea.domain.ids import AgentId

LimitFound = Callable[[AgentId, int | None, str], None]  # (agent, resets_at_ms or None, the text)


class AgentWatches:
    def __init__(
        self,
        ctx: CoreContext,
        adapters: AgentWatchAdapters,
        *,
        screen_limit: LimitFound,
        record_limit: LimitFound,
        prompt: Callable[[AgentId, str | None], None],
        turn_failed: Callable[[AgentId, FailedTurn], None],
        person_submitted: Callable[[AgentId], None],
    ) -> None:
        """`screen_limit`: a limit on the screen or output (level 2); `record_limit`: one in the CLI's records
        (level 1); `prompt(agent, literal)`: a blocking prompt appeared (None: it left); `person_submitted`:
        the person pressed Enter in the agent's cell."""
        self._ctx = ctx
        self._adapters = adapters
        self._screen_limit = screen_limit
        self._record_limit = record_limit
        self._prompt = prompt
        self._turn_failed = turn_failed
        self._person_submitted = person_submitted
        self._screens: dict[AgentId, ScreenWatch] = {}
        self._failed_turns: dict[AgentId, FailedTurns] = {}
        self._transcripts: dict[AgentId, tuple[str, TranscriptLimits]] = {}

    def launched(self, agent_id: AgentId) -> None:
        live = self._ctx.lifecycle.live(agent_id)
        if live is None or agent_id in self._screens:
            return
        failed_turns = self._adapters.failed_turns(self._ctx.project_root, agent_id, live.profile)
        if failed_turns is not None:
            self._failed_turns[agent_id] = failed_turns
        watch = self._adapters.screen_watch(
            live.terminal,
            live.profile,
            on_limit=lambda resets, text: self._screen_limit(agent_id, resets, text),
            on_prompt=lambda literal: self._prompt(agent_id, literal),
            on_settled=(lambda: self.read_records(agent_id)) if failed_turns is not None else None,
            label=self._ctx.name(agent_id),
        )
        self._screens[agent_id] = watch
        watch.start()
        if isinstance(live.terminal, TypedInByThePerson):
            live.terminal.on_line_submitted(lambda _none: self._person_submitted(agent_id))

    def exited(self, agent_id: AgentId) -> None:
        watch = self._screens.pop(agent_id, None)
        if watch is not None:
            self._ctx.spawn(watch.stop())
        self._failed_turns.pop(agent_id, None)
        self._transcripts.pop(agent_id, None)

    async def close(self) -> None:
        for watch in list(self._screens.values()):
            await watch.stop()
        self._screens.clear()

    def read_records(self, agent_id: AgentId) -> None:
        """The turns the agent's CLI recorded as failed since the last read (none for a CLI whose hooks tell)."""
        reader = self._failed_turns.get(agent_id)
        if reader is None:
            return
        try:
            failures = reader.new_failures()
        except OSError as exc:
            self._ctx.diagnostics.beacon(f"[turn] records unreadable agent={self._ctx.name(agent_id)}: {exc}")
            return
        for failed in failures:
            self._turn_failed(agent_id, failed)

    def transcript(self, agent_id: AgentId, path: str) -> None:
        """A Claude hook named the agent's transcript: the limit records appended since the last hook."""
        tail = self._transcripts.get(agent_id)
        if tail is None or tail[0] != path:
            self._transcripts[agent_id] = (path, self._adapters.transcript_limits(path))
            return  # records from before now are history
        try:
            found = tail[1].new_limits()
        except OSError as exc:
            self._ctx.diagnostics.beacon(f"[limit] transcript unreadable agent={agent_id}: {exc}")
            return
        for resets_at_ms, text in found:
            self._record_limit(agent_id, resets_at_ms, text)
