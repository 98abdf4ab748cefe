"""`LivenessMonitor` (spec 05 §5): beats in, `agentLivenessChanged` out, once per transition; the stall that
becomes the human net (§6.3 b).

Beats come from the hook events of an agent (`beat`) and from its activity token, which the sweep reads for
busy agents every 5 s (transcript growth). Busy comes from the mailbox. Stalled is advisory: this monitor
never ends a ticket, never marks anyone idle and never advances a queue.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from idea.application.ports import Clock, Diagnostics, EventPublisher
from idea.domain.agent_states.events import AgentLivenessChanged
from idea.domain.agent_states.liveness import SWEEP_INTERVAL_MS, LivenessBook, LivenessChange
from idea.domain.ids import AgentId


class Sleeper(Protocol):
    async def sleep(self, ms: int) -> None: ...


class LivenessMonitor:
    def __init__(
        self,
        *,
        clock: Clock,
        timer: Sleeper,
        events: EventPublisher,
        diagnostics: Diagnostics,
        threshold_of: Callable[[AgentId], int | None],
        token_of: Callable[[AgentId], int | None],
        on_stall_suspected: Callable[[AgentId], None],
    ) -> None:
        """`threshold_of(agent)`: its `stallAfterMs` (None: no stall detection); `token_of(agent)`: its
        activity token (None: no source); `on_stall_suspected(agent)`: stalled `stallAfterMs` + 60 s."""
        self._clock = clock
        self._timer = timer
        self._events = events
        self._diagnostics = diagnostics
        self._threshold_of = threshold_of
        self._token_of = token_of
        self._on_stall_suspected = on_stall_suspected
        self._book = LivenessBook()
        self._busy: set[AgentId] = set()
        self._tokens: dict[AgentId, int] = {}

    def beat(self, agent_id: AgentId) -> None:
        """A hook event or any other proof of work."""
        self._publish(self._book.beat(agent_id, self._clock.now_ms()))

    def busy_changed(self, agent_id: AgentId, busy: bool) -> None:
        if busy:
            self._busy.add(agent_id)
            token = self._token(agent_id)
            if token is not None:
                self._tokens[agent_id] = token
        else:
            self._busy.discard(agent_id)
            self._tokens.pop(agent_id, None)
        self._publish(self._book.set_busy(agent_id, busy, self._clock.now_ms()))

    def agent_exited(self, agent_id: AgentId) -> None:
        self._busy.discard(agent_id)
        self._tokens.pop(agent_id, None)
        self._publish(self._book.forget(agent_id))

    def sweep(self) -> None:
        """Read the busy agents' activity tokens (growth is a beat), then mark the silent ones stalled. A
        failure is logged: liveness never stops for everyone because of one probe."""
        try:
            self._sweep()
        except Exception as exc:  # noqa: BLE001
            self._diagnostics.beacon(f"[liveness] sweep failed: {exc!r}")

    def _sweep(self) -> None:
        for agent_id in sorted(self._busy):
            token = self._token(agent_id)
            previous = self._tokens.get(agent_id)
            if token is not None:
                self._tokens[agent_id] = token
                if previous is None or token > previous:
                    self.beat(agent_id)
        now = self._clock.now_ms()
        for change in self._book.sweep(now, self._threshold_of):
            self._publish(change)
        for agent_id in self._book.due_for_human_net(now, self._threshold_of):
            self._diagnostics.beacon(f"[liveness] still stalled agent={agent_id}; asking the person")
            self._on_stall_suspected(agent_id)

    async def next_sweep(self) -> None:
        """Until the next sweep is due (every 5 s)."""
        await self._timer.sleep(SWEEP_INTERVAL_MS)

    async def run(self) -> None:
        """Sweep every 5 s until cancelled."""
        while True:
            await self.next_sweep()
            self.sweep()

    def _token(self, agent_id: AgentId) -> int | None:
        try:
            return self._token_of(agent_id)
        except Exception as exc:  # noqa: BLE001
            self._diagnostics.beacon(f"[liveness] activity probe failed agent={agent_id}: {exc!r}")
            return None

    def _publish(self, change: LivenessChange | None) -> None:
        if change is None:
            return
        self._diagnostics.beacon(
            f"[liveness] {change.liveness.value} agent={change.agent_id} silent_ms={change.silent_ms}"
        )
        self._events.publish(AgentLivenessChanged(change.agent_id, change.liveness))
