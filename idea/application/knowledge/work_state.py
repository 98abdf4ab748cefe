"""`GetProjectWorkState` (spec 04 §15): the work panel's read model, derived on demand from the team, the live
sessions, the mailboxes, the events seen, and — best-effort — the handoffs and logs. One part that cannot
be read never blanks the others.

The panel recomputes it when one of `REFRESHING_EVENTS` arrives (debounced in the UI), never by polling the
disk.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable, Sequence
from typing import Protocol

from idea.application.conversation.ports import HandoffStore, TurnLog
from idea.application.ports import Diagnostics
from idea.domain.agent import AgentManifest
from idea.domain.errors import AppError
from idea.domain.events import AgentsChanged, LayoutChanged, OrchestrationNews, SessionsChanged
from idea.domain.ids import AgentId, ConversationId, conversation_for_pair
from idea.domain.knowledge.conversation_log import ConversationTurn
from idea.domain.knowledge.handoff import Handoff
from idea.domain.knowledge.work_state import (
    RECENT_RENDEZVOUS_KEPT,
    RECENT_TURNS,
    AgentWork,
    Attention,
    ConversationWork,
    Failed,
    LiveSession,
    ProjectWorkState,
    conversation_work,
    conversations_in_view,
)
from idea.domain.orchestration.events import (
    AgentAttention,
    AgentBusyChanged,
    AgentQueueChanged,
    AgentQueueSnapshot,
    BridgeStateChanged,
    DelegationDelivered,
    DelegationReady,
    HumanReplyReceived,
    LateReplyAvailable,
    LiveStateChanged,
    RendezvousEnded,
)

# What makes the panel recompute (the project's events, and the orchestration core's inside
# OrchestrationNews).
REFRESHING_EVENTS: tuple[type, ...] = (
    AgentsChanged,
    SessionsChanged,
    LayoutChanged,  # an agent shown in a cell or sent to the background
    DelegationReady,
    DelegationDelivered,
    AgentQueueChanged,
    AgentBusyChanged,
    RendezvousEnded,
    LiveStateChanged,
    BridgeStateChanged,
    AgentAttention,
    LateReplyAvailable,
    HumanReplyReceived,
)


class TeamView(Protocol):
    def manifest(self) -> AgentManifest: ...

    def live_session(self, agent_id: AgentId) -> LiveSession | None:
        """The agent's running session (a PTY session before any other kind); None when it is not running."""
        ...


class RecentConversations(Protocol):
    async def recent(self, limit: int) -> list[ConversationId]:
        """The conversations whose logs were written last, newest first (at most `limit`)."""
        ...


class QueueView(Protocol):
    def queue_snapshots(self) -> tuple[AgentQueueSnapshot, ...]:
        """Every agent's mailbox, in manifest order (the orchestration core)."""
        ...


class WorkContributor(Protocol):
    """Another feature's part of the work panel (session limits, liveness). It learns from the events of the
    project's orchestration core (`observe`, on the core loop) and adds what it knows to each agent's entry
    when the panel reads the model (`annotate`: `dataclasses.replace` of the entry, with `liveness`,
    `rate_limit`, `attention` or more `notices`). The panel reads the model again when one of its
    `refreshing_events` arrives. Registered once per project with `WorkStateReader.add_contributor`."""

    refreshing_events: tuple[type, ...]

    def observe(self, event: object) -> None: ...

    def annotate(self, agent: AgentWork) -> AgentWork: ...


class WorkSignals:
    """What the panel learns only from events: calls for attention and the recently ended rendezvous.
    Fed on the core loop with every event of the project (`observe`)."""

    def __init__(self) -> None:
        self._attention: dict[AgentId, Attention] = {}
        self._recent: deque[ConversationId] = deque(maxlen=RECENT_RENDEZVOUS_KEPT)

    def observe(self, event: object) -> bool:
        """Remember what `event` says; True when the panel should recompute."""
        match event:
            case AgentAttention(agent_id=agent_id, reason=reason, message=message):
                self._attention[agent_id] = Attention(reason, message)
            case DelegationDelivered(agent_id=agent_id):
                self._attention.pop(agent_id, None)
            case RendezvousEnded(requester=requester, target=target):
                conversation = conversation_for_pair(target, requester)
                if conversation in self._recent:
                    self._recent.remove(conversation)
                self._recent.appendleft(conversation)
        return isinstance(event, REFRESHING_EVENTS)

    def acknowledge(self, agent_id: AgentId) -> None:
        """The person looked at the agent: its call for attention is answered."""
        self._attention.pop(agent_id, None)

    def attention(self, agent_id: AgentId) -> Attention | None:
        return self._attention.get(agent_id)

    def recent_conversations(self) -> tuple[ConversationId, ...]:
        return tuple(self._recent)


class WorkStateReader:
    def __init__(
        self,
        team: TeamView,
        queues: QueueView,
        handoffs: HandoffStore,
        log: TurnLog,
        recent: RecentConversations,
        signals: WorkSignals,
        diagnostics: Diagnostics,
        current: Callable[[ConversationId], Handoff | None] | None = None,
    ) -> None:
        self._current = current  # handoffs folded in this process, fresher than their files
        self._team = team
        self._queues = queues
        self._handoffs = handoffs
        self._log = log
        self._recent_logs = recent
        self._signals = signals
        self._diagnostics = diagnostics
        self._contributors: list[WorkContributor] = []
        self._refreshing: tuple[type, ...] = REFRESHING_EVENTS

    def add_contributor(self, contributor: WorkContributor) -> None:
        """Before the project's windows show it (at composition)."""
        self._contributors.append(contributor)
        self._refreshing = (*self._refreshing, *contributor.refreshing_events)

    def observe(self, event: object) -> None:
        """Every event of the project's orchestration core, on the core loop."""
        self._signals.observe(event)
        for contributor in self._contributors:
            try:
                contributor.observe(event)
            except Exception as exc:  # noqa: BLE001 - a contributor's failure never stops the events
                self._diagnostics.beacon(f"[work] {type(contributor).__name__} failed on {type(event).__name__}: {exc!r}")

    def refreshes_on(self, event: object) -> bool:
        """Whether the panel should read the model again after `event` (any thread: a read of a tuple)."""
        inner = event.event if isinstance(event, OrchestrationNews) else event
        return isinstance(inner, self._refreshing) or isinstance(event, self._refreshing)

    async def read(self) -> ProjectWorkState:
        problems: list[str] = []
        agents = self._agents(problems)
        recent = self._signals.recent_conversations()
        try:  # after a restart, the conversations of the last days stay reachable too
            recent += tuple(await self._recent_logs.recent(RECENT_RENDEZVOUS_KEPT))
        except (AppError, OSError) as exc:
            problems.append(f"recent conversations: {exc}")
        conversations = conversations_in_view(agents, recent)[: max(RECENT_RENDEZVOUS_KEPT, _tickets_shown(agents))]
        summaries = await asyncio.gather(*(self._conversation(c) for c in conversations))
        problems.extend(f"conversation {c.conversation_id}: {c.status.value}" for c in summaries if c.status.value in ("partial", "unavailable"))
        return ProjectWorkState(tuple(agents), tuple(summaries), tuple(problems))

    def _agents(self, problems: list[str]) -> list[AgentWork]:
        try:
            manifest = self._team.manifest()
        except AppError as exc:
            problems.append(f"team: {exc.message}")
            return []
        try:
            queues = {snapshot.agent_id: snapshot for snapshot in self._queues.queue_snapshots()}
        except Exception as exc:  # noqa: BLE001 - the agents still show without their queues
            problems.append(f"queues: {exc}")
            queues = {}
        agents: list[AgentWork] = []
        for entry in manifest.agents:
            try:
                live = self._team.live_session(entry.agent_id)
            except Exception as exc:  # noqa: BLE001
                problems.append(f"{entry.name}: {exc}")
                live = None
            agent = AgentWork(
                agent_id=entry.agent_id,
                name=entry.name,
                profile_id=entry.profile_id,
                live=live,
                queue=queues.get(entry.agent_id),
                attention=self._signals.attention(entry.agent_id),
            )
            agents.append(self._annotated(agent, problems))
        return agents

    def _annotated(self, agent: AgentWork, problems: list[str]) -> AgentWork:
        for contributor in self._contributors:
            try:
                agent = contributor.annotate(agent)
            except Exception as exc:  # noqa: BLE001 - the entry still shows without that part
                problems.append(f"{agent.name}: {type(contributor).__name__}: {exc}")
        return agent

    async def _conversation(self, conversation: ConversationId) -> ConversationWork:
        handoff, recent = await asyncio.gather(self._handoff(conversation), self._recent(conversation))
        return conversation_work(conversation, handoff, recent)

    async def _handoff(self, conversation: ConversationId) -> Handoff | None | Failed:
        known = self._current(conversation) if self._current is not None else None
        if known is not None:
            return known
        try:
            return await asyncio.to_thread(self._handoffs.load, conversation)
        except (AppError, OSError) as exc:
            self._diagnostics.beacon(f"[work] handoff of {conversation} unreadable: {exc}")
            return Failed(str(exc))

    async def _recent(self, conversation: ConversationId) -> Sequence[ConversationTurn] | Failed:
        try:
            return await self._log.last(conversation, RECENT_TURNS)
        except (AppError, OSError) as exc:
            self._diagnostics.beacon(f"[work] log of {conversation} unreadable: {exc}")
            return Failed(str(exc))


def _tickets_shown(agents: Sequence[AgentWork]) -> int:
    return sum(len(agent.tickets) for agent in agents)
