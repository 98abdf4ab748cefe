"""The command dispatch: every command of the domain has exactly one handler, and a new family of commands
plugs in by registering its handlers, without touching the core."""

from __future__ import annotations

from dataclasses import dataclass
from typing import get_args

import pytest

from idea.application.orchestrator.dispatch import CommandDispatch
from idea.domain.errors import AppError, ErrorCode
from idea.domain.orchestration.commands import AgentCaller, Command, ListAgents, Outcome, Requester, Source
from tests.world import HUMAN, claude_profile, make_harness


@dataclass(frozen=True)
class RecallNote:
    """A command the core does not know, as a future family would add one."""

    slug: str


class NotesFamily:
    def __init__(self) -> None:
        self.calls: list[tuple[Requester, RecallNote, Source]] = []

    def register(self, commands: CommandDispatch) -> None:
        commands.register(RecallNote, self.recall)

    async def recall(self, requester: Requester, command: RecallNote, source: Source) -> Outcome:
        self.calls.append((requester, command, source))
        return Outcome(detail=f"note {command.slug}")


def test_every_command_of_the_domain_has_a_handler() -> None:
    h = make_harness([("Main", claude_profile())])

    assert h.service.handled_commands() == frozenset(get_args(Command))


async def test_a_family_given_to_the_service_handles_its_own_commands() -> None:
    notes = NotesFamily()
    h = make_harness([("Main", claude_profile())], families=[notes])

    outcome = await h.service.dispatch(h.agent("Main"), RecallNote("style"), Source.MCP)  # type: ignore[arg-type]

    assert outcome.detail == "note style"
    assert notes.calls == [(AgentCaller(h.id("Main")), RecallNote("style"), Source.MCP)]
    assert RecallNote in h.service.handled_commands()
    await h.close()


async def test_a_command_without_a_handler_is_refused_by_name() -> None:
    commands = CommandDispatch()

    with pytest.raises(AppError) as failure:
        await commands.dispatch(HUMAN, ListAgents(), Source.UI)

    assert failure.value.code is ErrorCode.INVALID
    assert failure.value.message == "unsupported command ListAgents"


def test_a_command_type_takes_one_handler_only() -> None:
    commands = CommandDispatch()
    NotesFamily().register(commands)

    with pytest.raises(ValueError, match="RecallNote already has a handler"):
        NotesFamily().register(commands)
