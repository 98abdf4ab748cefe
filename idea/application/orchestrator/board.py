"""The live-state board of one project (spec 03 §10): rows kept in memory, persisted after every write.

System acts (the automatic updates of §10.3, reboot reconciliation) write here directly; the self-only rule
of idea_workstate_set belongs to the tool surface, not to the store. A store failure never fails the
delegation that caused the write: it is logged and the board keeps going.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from idea.application.orchestrator.ports import LiveStateStore
from idea.application.ports import Clock, Diagnostics, EventPublisher
from idea.domain.errors import AppError
from idea.domain.live_state import LiveEntry, LiveState
from idea.domain.orchestration_events import LiveStateChanged


class LiveBoard:
    def __init__(self, store: LiveStateStore, clock: Clock, events: EventPublisher, diagnostics: Diagnostics) -> None:
        self._store = store
        self._clock = clock
        self._events = events
        self._diagnostics = diagnostics
        self._state: LiveState | None = None

    def row(self, agent_id: str) -> LiveEntry | None:
        return self._loaded().row(agent_id)

    def write(self, agent_id: str, **changes: Any) -> None:
        """Upsert the agent's row with `LiveState.with_row` fields; `updatedAtMs` comes from the clock.

        Raises AppError(INVALID) for an oversized text field, before anything changes.
        """
        self._state = self._loaded().with_row(agent_id, self._clock.now_ms(), **changes)
        self._persist()
        self._events.publish(LiveStateChanged(agent_id))

    def lean(self, names: Mapping[str, str]) -> list[dict[str, Any]]:
        """The rows agents may read, after the prune-on-read, which is persisted."""
        state = self._loaded()
        pruned = state.pruned(self._clock.now_ms())
        if pruned != state:
            self._state = pruned
            self._persist()
        return [entry.lean(names.get(entry.agent_id)) for entry in pruned.entries]

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

    def _persist(self) -> None:
        try:
            self._store.save(self._loaded())
        except (AppError, OSError) as exc:
            self._diagnostics.beacon(f"[live-state] save failed: {exc}")
