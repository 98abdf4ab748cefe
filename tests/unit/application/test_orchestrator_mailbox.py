"""Mailboxes: one FIFO per agent, and a busy head released on every path (spec 03 §7.2-§7.3, failure #8)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import pytest

from idea.domain.orchestration.commands import CancelTicket, Reply, Source, SubmitHumanInput
from idea.domain.orchestration.events import AgentBusyChanged, AgentQueueChanged
from idea.domain.orchestration.tickets import AgentSource, TicketPhase
from tests.fakes_orchestration import settle
from tests.world import HUMAN, Harness, claude_profile, make_harness

WINDOW = 600_000


def team() -> Harness:
    h = make_harness(
        [("Main", claude_profile()), ("Architect", claude_profile()), ("QA", claude_profile())], orchestrator="Main"
    )
    for name in ("Main", "Architect", "QA"):
        h.lifecycle.start(name)
    return h


async def test_asks_to_one_target_are_served_in_fifo_order() -> None:
    h = team()
    first = await h.ask("Main", "Architect", "first task")
    second = await h.ask("QA", "Architect", "second task")
    t1 = await h.begin_turn("Architect")
    await h.time.advance(20_000)

    queue = h.queue("Architect")
    assert [(t.ticket_id == t1, t.status, t.phase, t.delivered, t.requester_label) for t in queue.tickets] == [
        (True, "inProgress", TicketPhase.AWAITING_REPLY, True, "Main"),
        (False, "queued", TicketPhase.QUEUED, False, "QA"),
    ]
    assert queue.busy is not None and queue.busy.ticket == t1
    assert "second task" not in h.written("Architect")

    await h.service.dispatch(h.agent("Architect"), Reply("r1", t1), Source.UI)
    t2 = await h.begin_turn("Architect")
    assert "second task" in h.last_delivery("Architect")
    await h.service.dispatch(h.agent("Architect"), Reply("r2", t2), Source.UI)

    assert ((await first).reply, (await second).reply) == ("r1", "r2")
    await h.close()


async def end_by_reply(h: Harness, ask: asyncio.Task[object], ticket: str) -> None:
    await h.service.dispatch(h.agent("Architect"), Reply("r", ticket), Source.UI)


async def end_by_no_reply(h: Harness, ask: asyncio.Task[object], ticket: str) -> None:
    h.hook("Architect", "Stop")
    await h.time.advance(2_000)


async def end_by_user_cancel(h: Harness, ask: asyncio.Task[object], ticket: str) -> None:
    await h.service.dispatch(HUMAN, CancelTicket(ticket), Source.UI)


async def end_by_dropped_call(h: Harness, ask: asyncio.Task[object], ticket: str) -> None:
    ask.cancel()
    await settle()


async def end_by_requester_exit(h: Harness, ask: asyncio.Task[object], ticket: str) -> None:
    h.lifecycle.terminal("Main").exit(1)
    await settle()


async def end_by_requester_new_prompt(h: Harness, ask: asyncio.Task[object], ticket: str) -> None:
    h.hook("Main", "UserPromptSubmit", prompt="never mind")
    await settle()


Ending = Callable[[Harness, asyncio.Task[object], str], Awaitable[None]]


@pytest.mark.parametrize(
    "end",
    [
        end_by_reply,
        end_by_no_reply,
        end_by_user_cancel,
        end_by_dropped_call,
        end_by_requester_exit,
        end_by_requester_new_prompt,
    ],
)
async def test_every_end_releases_the_head_and_the_next_ticket_flows(end: Ending) -> None:
    h = team()
    ask = await h.ask("Main", "Architect", "the task")
    queued = await h.ask("QA", "Architect", "the next task")
    ticket = await h.begin_turn("Architect")

    await end(h, ask, ticket)
    await settle()

    assert ask.done()
    queue = h.queue("Architect")
    assert [t.requester_label for t in queue.tickets] == ["QA"]
    next_ticket = await h.begin_turn("Architect")
    assert "the next task" in h.last_delivery("Architect")
    await h.service.dispatch(h.agent("Architect"), Reply("ok", next_ticket), Source.UI)
    assert (await queued).reply == "ok"
    assert h.queue("Architect").busy is None
    await h.close()


async def test_a_timed_out_head_releases_the_agent_for_the_next_ask() -> None:
    h = team()
    ask = await h.ask("Main", "Architect", "the task")
    await h.begin_turn("Architect")
    await h.time.run_until(ask.done, within_ms=3 * WINDOW, step_ms=10_000)

    assert h.queue("Architect").busy is None
    following = await h.ask("QA", "Architect", "the next task")
    ticket = await h.begin_turn("Architect")
    await h.service.dispatch(h.agent("Architect"), Reply("ok", ticket), Source.UI)
    assert (await following).reply == "ok"
    await h.close()


async def test_the_target_dying_releases_everything_it_held() -> None:
    h = team()
    ask = await h.ask("Main", "Architect", "the task")
    queued = await h.ask("QA", "Architect", "the next task")
    await h.begin_turn("Architect")

    h.lifecycle.terminal("Architect").exit(9)
    await settle()

    assert ask.done() and queued.done()
    assert h.queue("Architect").busy is None and h.queue("Architect").tickets == ()
    await h.close()


async def test_a_call_dropped_before_delivery_types_nothing() -> None:
    h = team()
    portal = h.portal("Architect")
    portal.type(3)  # the person is typing: the delivery waits
    ask = await h.ask("Main", "Architect", "the task")
    await h.time.advance(5_000)

    ask.cancel()
    await settle()
    portal.press_enter()
    await h.time.advance(10_000)

    assert h.written("Architect") == ""
    assert portal.log == [] and h.queue("Architect").busy is None
    await h.close()


async def test_a_call_dropped_while_its_text_is_typed_still_finishes_the_typing() -> None:
    h = team()
    portal = h.portal("Architect")
    ask = await h.ask("Main", "Architect", "the task")
    await h.time.run_until(lambda: h.written("Architect") != "", within_ms=5_000, step_ms=1)

    ask.cancel()  # mid-delivery: half a text in the input box would be worse than a finished one
    await h.time.advance(10_000)

    assert h.written("Architect").endswith("\r")
    assert not portal.suspended and [kind for kind, _ in portal.log] == ["suspend", "release"]
    assert h.queue("Architect").busy is None
    await h.close()


async def test_human_tickets_share_the_fifo_with_delegations() -> None:
    h = team()
    ask = await h.ask("Main", "Architect", "the task")
    ticket = await h.begin_turn("Architect")
    await h.service.dispatch(HUMAN, SubmitHumanInput("Architect", "and also update the README"), Source.UI)
    await h.time.advance(20_000)
    assert "README" not in h.written("Architect")

    await h.service.dispatch(h.agent("Architect"), Reply("r", ticket), Source.UI)
    await h.deliver("Architect")

    assert h.last_delivery("Architect") == "and also update the README"
    assert (await ask).reply == "r"
    await h.close()


async def test_a_queued_ask_lives_while_the_head_works_and_is_bounded_when_it_does_not() -> None:
    h = team()
    architect = h.id("Architect")
    head = await h.ask("Main", "Architect", "long job")
    await h.begin_turn("Architect")
    queued = await h.ask("QA", "Architect", "after it")

    for _ in range(12):  # 20 minutes of visible work on the head
        h.activity.grow(architect)
        await h.time.advance(100_000)
    assert not queued.done()  # a busy target is an active target

    await h.time.run_until(queued.done, within_ms=2 * WINDOW, step_ms=10_000)
    assert head.done()
    await h.close()


async def test_snapshots_and_busy_changes_are_published() -> None:
    h = team()
    ask = await h.ask("Main", "Architect", "  review\n the   ports  ")
    ticket = await h.begin_turn("Architect")
    await h.service.dispatch(h.agent("Architect"), Reply("r", ticket), Source.UI)
    await ask

    snapshots = [e.snapshot for e in h.events.of_type(AgentQueueChanged) if e.snapshot.agent_id == h.id("Architect")]
    queued = next(s.tickets[0] for s in snapshots if s.tickets)
    assert (queued.ticket_id, queued.task_preview, queued.task_len, queued.source) == (
        ticket,
        "review the ports",
        len("  review\n the   ports  "),
        AgentSource(h.id("Main")),
    )
    assert any(s.tickets and s.tickets[0].delivered for s in snapshots)
    assert snapshots[-1].tickets == ()
    busy = [e.busy for e in h.events.of_type(AgentBusyChanged) if e.agent_id == h.id("Architect")]
    assert busy[0] is not None and busy[0].ticket == ticket and busy[-1] is None
    await h.close()
