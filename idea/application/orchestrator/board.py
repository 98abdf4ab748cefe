"""The live-state board of one project (spec 03 §10): rows kept in memory, the file written behind them.

The board is the truth: every reader in IdeA (the tools, the convention files, the panels) reads it, and each
write publishes `LiveStateChanged` at once. `live-state.json` follows within `SAVE_DELAY_MS`, one write per
burst (`WriteBehind`): a delegation changes several rows in a row, and the file is volatile (reconciled at the
next open, §10.4), so a crash loses at most the last fraction of a second of rows, which the reconciliation
treats as stale anyway. `close` writes what is pending and makes every later write immediate.

System acts (the automatic updates of §10.3, reboot reconciliation) write here with `write_system`, which
never fails the delegation that caused it; the self-only rule of idea_workstate_set belongs to the tool
surface, not to the board, which only remembers when an agent declared its intent. A store failure is logged
and the board keeps going.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from idea.application.orchestrator.ports import LiveStateStore
from idea.application.ports import Clock, Diagnostics, EventPublisher
from idea.application.write_behind import Sleeper, WriteBehind
from idea.domain.errors import AppError
from idea.domain.ids import AgentId
from idea.domain.orchestration.events import LiveStateChanged
from idea.domain.orchestration.live_state import LiveEntry, LiveState, RowChange

SAVE_DELAY_MS = 200


class LiveBoard:
    def __init__(
        self,
        store: LiveStateStore,
        clock: Clock,
        events: EventPublisher,
        diagnostics: Diagnostics,
        timer: Sleeper,
        save_delay_ms: int = SAVE_DELAY_MS,
    ) -> None:
        self._store = store
        self._clock = clock
        self._events = events
        self._diagnostics = diagnostics
        self._state: LiveState | None = None
        self._declared_intents: dict[AgentId, tuple[str, int]] = {}  # intent, epoch ms it was declared
        self._behind = WriteBehind(self._save, timer, save_delay_ms)

    def row(self, agent_id: str) -> LiveEntry | None:
        return self._loaded().row(agent_id)

    def write(self, agent_id: AgentId, change: RowChange) -> None:
        """Upsert the agent's row; `updatedAtMs` comes from the clock.

        Raises AppError(INVALID) for an oversized text field, before anything changes.
        """
        self._state = self._loaded().with_change(agent_id, self._clock.now_ms(), change)
        self._persist()
        self._events.publish(LiveStateChanged(agent_id))

    def write_system(self, agent_id: AgentId, change: RowChange) -> None:
        """A write of the core's own (§10.3): a refused one is logged, never raised."""
        try:
            self.write(agent_id, change)
        except AppError as exc:  # a system write never fails the delegation that caused it
            self._diagnostics.beacon(f"[live-state] write failed agent={agent_id}: {exc.message}")

    def agents(self) -> set[AgentId]:
        """The agents that have a row (none pruned by this read)."""
        return {entry.agent_id for entry in self._loaded().entries}

    def forget(self, agent_id: AgentId) -> None:
        """Remove the agent's row (the agent was deleted)."""
        self._declared_intents.pop(agent_id, None)
        state = self._loaded()
        if state.row(agent_id) is None:
            return
        self._state = state.without(agent_id)
        self._persist()
        self._events.publish(LiveStateChanged(agent_id))

    def declare(self, agent_id: AgentId, change: RowChange) -> None:
        """The agent's own write (idea_workstate_set): a declared intent outranks the automatic one for a while."""
        self.write(agent_id, change)
        if isinstance(change.intent, str) and change.intent:
            self._declared_intents[agent_id] = (change.intent, self._clock.now_ms())

    def declared_intent(self, agent_id: AgentId, fresh_ms: int) -> str | None:
        """The intent the agent declared within the last `fresh_ms`, if any."""
        declared = self._declared_intents.get(agent_id)
        if declared and self._clock.now_ms() - declared[1] <= fresh_ms:
            return declared[0]
        return None

    def current(self) -> tuple[LiveEntry, ...]:
        """The rows after the prune-on-read, which is persisted."""
        state = self._loaded()
        pruned = state.pruned(self._clock.now_ms())
        if pruned != state:
            self._state = pruned
            self._persist()
        return pruned.entries

    def lean(self, names: Mapping[str, str]) -> list[dict[str, Any]]:
        """The rows agents may read (`idea_workstate_read`), named."""
        return [entry.lean(names.get(entry.agent_id)) for entry in self.current()]

    def reconcile(self, is_live: Callable[[str], bool]) -> list[str]:
        """Reboot reconciliation (§10.4); returns the agents whose rows were marked stale."""
        state = self._loaded()
        reconciled = state.reconciled(is_live, self._clock.now_ms())
        changed = [after.agent_id for before, after in zip(state.entries, reconciled.entries) if before != after]
        if changed:
            self._state = reconciled
            self._persist()
            for agent_id in changed:
                self._events.publish(LiveStateChanged(agent_id))
        return changed

    def _loaded(self) -> LiveState:
        if self._state is None:
            try:
                self._state = self._store.load()
            except AppError as exc:  # a broken file was kept aside: start from an empty board
                self._diagnostics.beacon(f"[live-state] {exc.message}; starting empty")
                self._state = LiveState()
        return self._state

    def flush(self) -> None:
        """Write the rows now if the file is behind them."""
        self._behind.flush()

    def close(self) -> None:
        """The project closes: the file gets the rows now, and every later write at once."""
        self._behind.close()

    def _persist(self) -> None:
        self._behind.changed()

    def _save(self) -> None:
        try:
            self._store.save(self._loaded())
        except (AppError, OSError) as exc:
            self._diagnostics.beacon(f"[live-state] save failed: {exc}")
