"""What every unit of one project's orchestration core shares: its seams, its clocks, the per-agent lanes,
the live-state board, the wait-for graph, the activity readings and the tasks it runs.

Built once per project by `OrchestratorService`; each unit (the ticket book, the delivery pump, the
rendezvous watch, cold launches, agent signals and the command handlers) receives it and keeps only its own
state. Everything here runs on the core loop.
"""

from __future__ import annotations

import asyncio
from collections.abc import Collection, Coroutine
from dataclasses import dataclass, field
from typing import Any

from idea.application.orchestrator.activity import ActivityTracker
from idea.application.orchestrator.board import LiveBoard
from idea.application.orchestrator.lanes import Lanes
from idea.application.orchestrator.ports import AgentLifecycle, ConversationLog
from idea.application.orchestrator.ports import Timer
from idea.application.orchestrator.timing import OrchestratorTimings
from idea.application.ports import Clock, Diagnostics, EventPublisher, IdGenerator
from idea.domain.knowledge.conversation_log import ConversationTurn, TurnRole
from idea.domain.errors import AppError
from idea.domain.ids import AgentId, TicketId
from idea.domain.profile import Profile
from idea.domain.orchestration.tickets import InputSource
from idea.domain.wait_for import WaitForGraph


class TaskSet:
    """The background tasks of one core, so closing the project can cancel and await them."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[Any]] = set()

    def spawn(self, work: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        task = asyncio.create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def cancel_all(self, *, sparing: Collection[asyncio.Task[Any]] = ()) -> None:
        """Cancel every task but `sparing` and wait for them to end."""
        pending = [task for task in self._tasks if task not in sparing]
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)


@dataclass
class CoreContext:
    project_root: str  # without a trailing slash
    lifecycle: AgentLifecycle
    conversations: ConversationLog
    clock: Clock
    timer: Timer
    ids: IdGenerator
    events: EventPublisher
    diagnostics: Diagnostics
    timings: OrchestratorTimings
    lanes: Lanes
    board: LiveBoard
    graph: WaitForGraph
    activity: ActivityTracker
    tasks: TaskSet = field(default_factory=TaskSet)
    closing: bool = False  # set once by `close`: nothing new starts after it

    def spawn(self, work: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        """A task of this core, cancelled and awaited when the project closes."""
        return self.tasks.spawn(work)

    def name(self, agent_id: AgentId) -> str:
        """The agent's name for messages and beacons; its id when the manifest no longer has it."""
        agent = self.lifecycle.manifest().by_id(agent_id)
        return agent.name if agent else agent_id

    def profile_or_none(self, agent_id: AgentId) -> Profile | None:
        try:
            return self.lifecycle.profile_of(agent_id)
        except AppError:
            return None

    async def record_turn(
        self,
        conversation: str,
        source: InputSource,
        role: TurnRole,
        text: str,
        ticket: TicketId,
        target: AgentId | None = None,
        *,
        late: bool = False,
    ) -> None:
        """Append to the conversation log, best effort: a failed record never degrades the delegation."""
        turn = ConversationTurn(
            id=self.ids.new_id(),
            conversation=conversation,
            at_ms=self.clock.now_ms(),
            source=source,
            role=role,
            text=text,
            ticket=ticket,
            target=target,
            late=late,
        )
        try:
            await self.conversations.append(turn)
        except (AppError, OSError) as exc:
            self.diagnostics.beacon(f"[conversation] append failed conversation={conversation}: {exc}")


def cancel_unless_current(task: asyncio.Task[Any] | None) -> None:
    """Cancel `task`, unless it is the one running this code (a task ending its own ticket)."""
    if task is not None and task is not asyncio.current_task():
        task.cancel()
