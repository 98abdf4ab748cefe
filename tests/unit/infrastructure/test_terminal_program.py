"""The program of a terminal as both adapters report it: one exit, told once to every subscriber."""

from __future__ import annotations

import asyncio

from idea.infrastructure.terminal.program import TerminalProgram


async def test_the_first_exit_report_counts_and_is_told_once() -> None:
    program = TerminalProgram("session-1", asyncio.get_running_loop())
    program.started(4242, None)
    heard: list[int | None] = []
    program.on_exit(heard.append)
    assert not program.has_exited() and program.exit_code() is None

    program.exited(3)
    program.exited(-9)

    assert heard == [3]
    assert program.has_exited() and program.exit_code() == 3 and program.pid == 4242


async def test_a_subscriber_after_the_exit_hears_it_soon_after_unless_it_unsubscribes() -> None:
    program = TerminalProgram("session-1", asyncio.get_running_loop())
    program.exited(0)
    heard: list[int | None] = []
    cancelled: list[int | None] = []

    program.on_exit(heard.append)
    unsubscribe = program.on_exit(cancelled.append)
    unsubscribe()
    assert heard == []
    await asyncio.sleep(0)

    assert heard == [0] and cancelled == []


async def test_an_unsubscribed_listener_is_not_told() -> None:
    program = TerminalProgram("session-1", asyncio.get_running_loop())
    heard: list[int | None] = []
    program.on_exit(heard.append)()

    program.exited(1)

    assert heard == []


async def test_terminating_a_terminal_that_started_nothing_does_nothing() -> None:
    program = TerminalProgram("session-1", asyncio.get_running_loop())

    await asyncio.wait_for(program.terminate(10), 1)

    assert not program.has_exited()
