"""What the person asks of the orchestration core from the agent screens — send a task, cancel a ticket,
interrupt an agent, deliver a waiting task now — and what those screens read of it: every agent's queue and
live-state row. Each is one use case on the core loop, through the same commands the agents' doors build."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from idea.application.agents.agent_activity import WorkRow
from idea.domain.ids import AgentId, TicketId
from idea.domain.orchestration.commands import (
    CancelTicket,
    Command,
    Human,
    Interrupt,
    Outcome,
    Requester,
    Source,
    SubmitHumanInput,
)
from idea.domain.orchestration.events import AgentQueueSnapshot
from idea.domain.orchestration.live_state import LiveStateRow

NO_AGENT: AgentId = ""  # no agent has an empty id: "the live-state rows of every agent"


class OrchestrationDesk(Protocol):
    """What the person's requests use of the project's orchestration core."""

    async def dispatch(self, requester: Requester, command: Command, source: Source) -> Outcome: ...

    def queue_snapshots(self) -> tuple[AgentQueueSnapshot, ...]: ...

    def work_state_rows(self, excluding: AgentId) -> tuple[LiveStateRow, ...]: ...

    def force_delivery(self, ticket_id: TicketId) -> None: ...


class HumanRequests:
    def __init__(self, orchestrator: OrchestrationDesk) -> None:
        self._orchestrator = orchestrator

    async def send_task(self, agent_name: str, text: str) -> TicketId:
        """A ticket from the person, typed into the agent's terminal as is; a stopped agent is started first."""
        outcome = await self._dispatch(SubmitHumanInput(target=agent_name, text=text))
        return (outcome.data or {})["ticket"]

    async def cancel_ticket(self, ticket_id: TicketId) -> str:
        """The ticket leaves its queue; its requester, if an agent, is told. Returns what was done."""
        return (await self._dispatch(CancelTicket(ticket=ticket_id))).detail

    async def interrupt(self, agent_name: str) -> None:
        """Esc in the agent's terminal; its tickets stay as they are."""
        await self._dispatch(Interrupt(target=agent_name))

    async def deliver_now(self, ticket_id: TicketId) -> None:
        """The waiting delivery goes without waiting for the person's line any longer, which it clears."""
        self._orchestrator.force_delivery(ticket_id)

    async def orchestration_state(self) -> tuple[tuple[AgentQueueSnapshot, ...], Mapping[AgentId, WorkRow]]:
        """Every agent's queue and live-state row, read together."""
        return self._orchestrator.queue_snapshots(), await self.work_rows()

    async def work_rows(self) -> Mapping[AgentId, WorkRow]:
        """Every agent's live-state row (after the prune-on-read agents get too)."""
        rows = self._orchestrator.work_state_rows(excluding=NO_AGENT)
        return {row.agent_id: WorkRow(row.status, row.intent) for row in rows}

    async def _dispatch(self, command: Command) -> Outcome:
        return await self._orchestrator.dispatch(Human(), command, Source.UI)
