"""Every agent's lane (its mailbox and the signals of its current session), and the queue snapshots the
work panel shows."""

from __future__ import annotations

from collections.abc import Iterable

from idea.application.orchestrator.mailbox import AgentLane, Mailbox
from idea.application.ports import EventPublisher
from idea.domain.ids import AgentId
from idea.domain.orchestration.events import AgentQueueChanged, AgentQueueSnapshot


class Lanes:
    def __init__(self, events: EventPublisher) -> None:
        self._events = events
        self._lanes: dict[AgentId, AgentLane] = {}

    def of(self, agent_id: AgentId) -> AgentLane:
        """The agent's lane, created empty the first time it is needed."""
        lane = self._lanes.get(agent_id)
        if lane is None:
            lane = self._lanes[agent_id] = AgentLane(agent_id=agent_id, mailbox=Mailbox(agent_id))
        return lane

    def all(self) -> Iterable[AgentLane]:
        return self._lanes.values()

    def snapshot(self, lane: AgentLane) -> AgentQueueSnapshot:
        return lane.mailbox.snapshot(late=tuple(lane.late_replies), bridge_connected=lane.bridge_connected)

    def publish(self, lane: AgentLane) -> None:
        """Tell the work panel that the lane's queue changed."""
        self._events.publish(AgentQueueChanged(self.snapshot(lane)))
