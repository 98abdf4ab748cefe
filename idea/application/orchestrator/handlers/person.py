"""The person's gestures on an agent, from the UI only: type into it through its mailbox (a human ticket,
delivered like any other), and interrupt it (Esc)."""

from __future__ import annotations

from idea.application.orchestrator.callers import label_of, require_person, required, resolve_target
from idea.application.orchestrator.cold_launch import ColdLaunches
from idea.application.orchestrator.context import CoreContext
from idea.application.orchestrator.dispatch import CommandDispatch
from idea.application.orchestrator.ticket_book import TicketBook
from idea.domain.errors import AppError, ErrorCode
from idea.domain.knowledge.conversation_log import TurnRole
from idea.domain.orchestration.commands import Interrupt, Outcome, Requester, Source, SubmitHumanInput
from idea.domain.orchestration.tickets import TicketKind

ESC = "\x1b"


class PersonCommands:
    def __init__(self, ctx: CoreContext, book: TicketBook, launches: ColdLaunches) -> None:
        self._ctx = ctx
        self._book = book
        self._launches = launches

    def register(self, commands: CommandDispatch) -> None:
        commands.register(SubmitHumanInput, self.submit_input)
        commands.register(Interrupt, self.interrupt)

    async def submit_input(self, requester: Requester, command: SubmitHumanInput, source: Source) -> Outcome:
        manifest = self._ctx.lifecycle.manifest()
        require_person(requester, "sending input to an agent")
        target = resolve_target(manifest, command.target)
        text = required(command.text, "text")
        live = await self._launches.ensure_live(target, reason="input from the user")
        ticket = self._book.new_ticket(target, requester, label_of(requester, None), text, TicketKind.HUMAN)
        await self._ctx.record_turn(
            ticket.conversation, ticket.source, TurnRole.PROMPT, text, ticket.id, target.agent_id
        )
        self._book.enqueue(ticket, live.profile)
        return Outcome(detail=f"queued for {target.name} as ticket {ticket.id}", data={"ticket": ticket.id})

    async def interrupt(self, requester: Requester, command: Interrupt, source: Source) -> Outcome:
        require_person(requester, "interrupting an agent")
        target = resolve_target(self._ctx.lifecycle.manifest(), command.target)
        live = self._ctx.lifecycle.live(target.agent_id)
        if live is None:
            raise AppError(ErrorCode.INVALID, f"agent {target.name} is not running")
        await live.terminal.write_text(ESC)
        self._ctx.diagnostics.beacon(f"[delivery] interrupt (ESC) agent={target.name}")
        return Outcome(detail=f"interrupted {target.name}")
