"""`AttentionBoard` (spec 05 §1 attention axis, 03 §8.7, 02 §9): which agents need the person, and why.

One attention per agent, from three origins that end differently:
- a hook (Claude `Notification`): ends with the agent's next turn start or turn end;
- the screen (a profile's blocking-prompt literal read back on the agent's screen): ends when it is gone;
- IdeA itself (a delivery that may sit in the input box, a cold start that never became ready): ends with
  the next turn.
Each change is published once (`AgentNeedsAttention`, `AgentAttentionCleared`) and told to the listeners
(the desktop alerts, the asks waiting on the agent). While a dialog is shown, deliveries wait.
"""

from __future__ import annotations

from collections.abc import Callable

from idea.application.ports import Clock, Diagnostics, EventPublisher, Unsubscribe
from idea.domain.agent_states.attention import Attention, AttentionEntry, AttentionOrigin, AttentionReason
from idea.domain.agent_states.events import AgentAttentionCleared, AgentNeedsAttention
from idea.domain.ids import AgentId

AttentionListener = Callable[[AgentId, Attention | None], None]


class AttentionBoard:
    def __init__(
        self,
        *,
        clock: Clock,
        events: EventPublisher,
        diagnostics: Diagnostics,
        name_of: Callable[[AgentId], str],
        visible_of: Callable[[AgentId], bool],
    ) -> None:
        """`visible_of(agent)`: whether the agent is shown in a cell (False: it runs in the background)."""
        self._clock = clock
        self._events = events
        self._diagnostics = diagnostics
        self._name_of = name_of
        self._visible_of = visible_of
        self._current: dict[AgentId, Attention] = {}
        self._listeners: list[AttentionListener] = []

    def raise_attention(
        self, agent_id: AgentId, reason: AttentionReason, message: str, origin: AttentionOrigin
    ) -> bool:
        """True when this changed what the agent needs (a repeat of the same attention is no news)."""
        previous = self._current.get(agent_id)
        if previous is not None and (previous.reason, previous.message, previous.origin) == (reason, message, origin):
            return False
        if previous is not None and previous.origin is AttentionOrigin.SCREEN and origin is AttentionOrigin.CORE:
            return False  # the dialog on screen says more than IdeA's own guess
        attention = Attention(reason, message, origin, self._clock.now_ms())
        self._current[agent_id] = attention
        visible = self._visible_of(agent_id)
        self._diagnostics.beacon(
            f"[attention] raised agent={self._name_of(agent_id)} reason={reason.value} origin={origin.value}"
            f" visible={str(visible).lower()}"
        )
        self._events.publish(AgentNeedsAttention(agent_id, reason, message, visible))
        self._tell(agent_id, attention)
        return True

    def turn_moved(self, agent_id: AgentId) -> None:
        """A turn started or ended: hook and IdeA attentions are over (the screen decides for its own)."""
        self._clear(agent_id, {AttentionOrigin.HOOK, AttentionOrigin.CORE})

    def screen_clear(self, agent_id: AgentId) -> None:
        """The blocking prompt is no longer on the agent's screen."""
        self._clear(agent_id, {AttentionOrigin.SCREEN})

    def dismiss(self, agent_id: AgentId) -> None:
        """The agent's process ended, or the person dismissed the entry."""
        self._clear(agent_id, set(AttentionOrigin))

    def current(self, agent_id: AgentId) -> Attention | None:
        return self._current.get(agent_id)

    def holds_delivery(self, agent_id: AgentId) -> bool:
        """Text typed now would answer a dialog (§8.7)."""
        attention = self._current.get(agent_id)
        return attention is not None and attention.reason.blocks_delivery

    def entries(self) -> tuple[AttentionEntry, ...]:
        """The attention list, oldest first."""
        ordered = sorted(self._current.items(), key=lambda item: item[1].since_ms)
        return tuple(
            AttentionEntry(agent_id, self._name_of(agent_id), attention, self._visible_of(agent_id))
            for agent_id, attention in ordered
        )

    def subscribe(self, listener: AttentionListener) -> Unsubscribe:
        """`listener(agent, attention)` on every change; attention None when cleared."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def _clear(self, agent_id: AgentId, origins: set[AttentionOrigin]) -> None:
        attention = self._current.get(agent_id)
        if attention is None or attention.origin not in origins:
            return
        del self._current[agent_id]
        self._diagnostics.beacon(f"[attention] cleared agent={self._name_of(agent_id)}")
        self._events.publish(AgentAttentionCleared(agent_id))
        self._tell(agent_id, None)

    def _tell(self, agent_id: AgentId, attention: Attention | None) -> None:
        for listener in list(self._listeners):
            try:
                listener(agent_id, attention)
            except Exception as exc:  # noqa: BLE001  (one listener must not silence the others)
                self._diagnostics.beacon(f"[attention] listener failed: {exc!r}")
