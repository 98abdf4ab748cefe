"""Liveness of busy agents (spec 05 §1, §5): beats, the stall sweep, and the stall that turns into the human
net (§6.3 b).

A beat is a proof of work: an activity-token increase (transcript growth), a hook event, a stream event.
Terminal output is not one (CLIs animate spinners forever). A busy agent without a beat for `stallAfterMs`
becomes `stalled`; the next beat makes it `alive` again; an idle agent is always `alive`. Stalled is advisory:
it never ends a ticket nor advances a queue.

Pure and deterministic: the caller gives the times (epoch ms) and publishes the transitions returned.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum

from idea.domain.ids import AgentId
from idea.domain.profile import Profile

DEFAULT_STALL_AFTER_MS = 300_000
SWEEP_INTERVAL_MS = 5_000
HUMAN_NET_AFTER_STALL_MS = 60_000  # stalled this long past `stallAfterMs`, with no known limit → ask the person


class Liveness(Enum):
    ALIVE = "alive"
    STALLED = "stalled"


def sees_work(hooks: str | None, structured_adapter: str | None) -> bool:
    """Whether IdeA can see a CLI working: its hooks, or the transcript its family's inspector reads."""
    return hooks is not None or structured_adapter is not None


def stall_after_ms(profile: Profile, has_activity_source: bool) -> int | None:
    """The profile's threshold, else 5 minutes for an agent IdeA can see working (transcript or hooks);
    None: no stall detection (nothing would ever prove it alive)."""
    if profile.liveness is not None and profile.liveness.stall_after_ms is not None:
        return profile.liveness.stall_after_ms
    return DEFAULT_STALL_AFTER_MS if has_activity_source else None


@dataclass(frozen=True)
class LivenessChange:
    agent_id: AgentId
    liveness: Liveness
    silent_ms: int  # time since the last beat when the change was decided


@dataclass
class _Agent:
    busy: bool = False
    last_beat_ms: int = 0
    liveness: Liveness = Liveness.ALIVE
    stalled_since_ms: int | None = None
    net_raised: bool = False  # the human net was raised for this stall


@dataclass
class LivenessBook:
    """Per-agent busy flag, last beat and liveness. Each method returns the transitions to publish, once each."""

    _agents: dict[AgentId, _Agent] = field(default_factory=dict)

    def liveness(self, agent_id: AgentId) -> Liveness:
        agent = self._agents.get(agent_id)
        return agent.liveness if agent is not None else Liveness.ALIVE

    def beat(self, agent_id: AgentId, now_ms: int) -> LivenessChange | None:
        agent = self._of(agent_id)
        silent = now_ms - agent.last_beat_ms
        agent.last_beat_ms = max(agent.last_beat_ms, now_ms)
        return self._alive(agent_id, agent, silent)

    def set_busy(self, agent_id: AgentId, busy: bool, now_ms: int) -> LivenessChange | None:
        """An agent that starts a task starts its silence count now; an idle agent is alive."""
        agent = self._of(agent_id)
        if busy and not agent.busy:
            agent.last_beat_ms = max(agent.last_beat_ms, now_ms)
        agent.busy = busy
        return None if busy else self._alive(agent_id, agent, now_ms - agent.last_beat_ms)

    def forget(self, agent_id: AgentId) -> LivenessChange | None:
        """The agent's process ended: it is no longer stalled."""
        agent = self._agents.pop(agent_id, None)
        if agent is not None and agent.liveness is Liveness.STALLED:
            return LivenessChange(agent_id, Liveness.ALIVE, 0)
        return None

    def sweep(self, now_ms: int, threshold_of: Callable[[AgentId], int | None]) -> list[LivenessChange]:
        """Busy agents silent for their threshold become stalled (`threshold_of` None: never)."""
        changes: list[LivenessChange] = []
        for agent_id, agent in self._agents.items():
            if not agent.busy or agent.liveness is Liveness.STALLED:
                continue
            threshold = threshold_of(agent_id)
            silent = now_ms - agent.last_beat_ms
            if threshold is not None and silent >= threshold:
                agent.liveness = Liveness.STALLED
                agent.stalled_since_ms = agent.last_beat_ms + threshold
                agent.net_raised = False
                changes.append(LivenessChange(agent_id, Liveness.STALLED, silent))
        return changes

    def due_for_human_net(self, now_ms: int, threshold_of: Callable[[AgentId], int | None]) -> list[AgentId]:
        """Agents stalled for `stallAfterMs` + 60 s since their last beat, once per stall (§6.3 b). The caller
        leaves out agents with a known limit."""
        due: list[AgentId] = []
        for agent_id, agent in self._agents.items():
            threshold = threshold_of(agent_id)
            if agent.liveness is not Liveness.STALLED or agent.net_raised or threshold is None or not agent.busy:
                continue
            if now_ms - agent.last_beat_ms >= threshold + HUMAN_NET_AFTER_STALL_MS:
                agent.net_raised = True
                due.append(agent_id)
        return due

    def silent_ms(self, agent_id: AgentId, now_ms: int) -> int | None:
        agent = self._agents.get(agent_id)
        return None if agent is None else now_ms - agent.last_beat_ms

    def _of(self, agent_id: AgentId) -> _Agent:
        agent = self._agents.get(agent_id)
        if agent is None:
            agent = self._agents[agent_id] = _Agent()
        return agent

    @staticmethod
    def _alive(agent_id: AgentId, agent: _Agent, silent_ms: int) -> LivenessChange | None:
        if agent.liveness is Liveness.ALIVE:
            return None
        agent.liveness = Liveness.ALIVE
        agent.stalled_since_ms = None
        agent.net_raised = False
        return LivenessChange(agent_id, Liveness.ALIVE, silent_ms)
