"""Every way an ask ends (spec 03 §9), with the live-state rows each end leaves (§10.3)."""

from __future__ import annotations

import asyncio

import pytest

from idea.application.orchestrator.timing import OrchestratorTimings
from idea.domain.errors import AppError, ErrorCode
from idea.domain.orchestration.commands import AskAgent, CancelTicket, Reply, Source, StopAgent, WorkStatus
from idea.domain.orchestration.events import RendezvousEnded
from tests.fakes_orchestration import settle
from tests.world import HUMAN, Harness, claude_profile, codex_profile, file_protocol_profile, make_harness

GRACE = 2_000
WINDOW = 600_000


def team(**kwargs: object) -> Harness:
    h = make_harness(
        [("Main", claude_profile()), ("Architect", claude_profile()), ("DevBackend", claude_profile())],
        orchestrator="Main",
        **kwargs,  # type: ignore[arg-type]
    )
    h.lifecycle.start("Main", "cell-1")
    h.lifecycle.start("Architect", "cell-2")
    return h


async def verdict_of(ask: asyncio.Task[object]) -> AppError:
    """The error the ask ended with; it must have ended already (virtual time never moves by itself)."""
    await settle()
    assert ask.done(), "the ask is still waiting"
    with pytest.raises(AppError) as failure:
        await ask
    return failure.value


async def reply(h: Harness, name: str, result: str, ticket: str | None = None) -> object:
    return await h.service.dispatch(h.agent(name), Reply(result, ticket), Source.UI)


def assert_target_released(h: Harness, name: str) -> None:
    queue = h.queue(name)
    assert queue.busy is None and queue.tickets == ()


async def test_a_reply_returns_the_result_and_cleans_both_rows() -> None:
    h = team()
    ask = await h.ask("Main", "architect", "reply pong via idea_reply")
    ticket = await h.begin_turn("Architect")
    assert h.row("Architect").status is WorkStatus.WORKING and h.row("Architect").ticket == ticket
    assert h.row("Main").status is WorkStatus.WAITING and h.row("Main").last_delegation == ticket

    answer = await reply(h, "Architect", "pong", ticket)
    outcome = await ask

    assert answer.detail == f"reply delivered to Main (ticket {ticket})"  # type: ignore[attr-defined]
    assert outcome.reply == "pong"
    assert outcome.data == {"ticket": ticket, "target": "Architect", "reply": "pong", "elapsedMs": 350}
    row = h.row("Architect")
    assert (row.status, row.intent, row.ticket, row.progress) == (WorkStatus.DONE, None, None, None)
    assert h.row("Main").status is WorkStatus.WORKING
    assert_target_released(h, "Architect")
    assert [e.outcome for e in h.events.of_type(RendezvousEnded)] == ["replied"]
    await h.close()


async def test_the_stop_of_the_turn_that_processed_the_ticket_ends_it_without_reply() -> None:
    h = team()
    ask = await h.ask("Main", "Architect", "answer in prose")
    await h.begin_turn("Architect")

    h.hook("Architect", "Stop")
    await h.time.advance(GRACE)

    error = await verdict_of(ask)
    assert error.code is ErrorCode.TARGET_RETURNED_NO_REPLY and error.retryable
    assert "Architect returned to its prompt without calling idea_reply" in error.message
    row = h.row("Architect")
    assert (row.status, row.ticket, row.progress) == (WorkStatus.DONE, None, "(abandoned: TARGET_RETURNED_NO_REPLY)")
    assert h.row("Main").status is WorkStatus.WORKING
    assert_target_released(h, "Architect")
    await h.close()


async def test_a_turn_ended_by_an_api_error_tells_the_asker_which() -> None:
    """Claude Code 2.1 fires `StopFailure` instead of `Stop` when an API error ended the turn."""
    h = team()
    ask = await h.ask("Main", "Architect", "review it")
    await h.begin_turn("Architect")

    h.hook("Architect", "StopFailure", error="overloaded", last_assistant_message="API Error: overloaded")
    await h.time.advance(GRACE)

    error = await verdict_of(ask)
    assert error.code is ErrorCode.TARGET_RETURNED_NO_REPLY and error.retryable
    assert error.message.startswith("agent Architect's turn ended on an error of its model's API (overloaded)")
    assert_target_released(h, "Architect")
    await h.close()


async def test_a_turn_ended_by_an_api_error_ends_the_ask_while_its_cli_writes_the_error_down() -> None:
    """Writing down the error that ended the turn is no work: unlike after `Stop`, it never cancels the
    verdict (seen with the real Claude Code on a loaded machine: the asker then waited for the person)."""
    h = team()
    ask = await h.ask("Main", "Architect", "review it")
    await h.begin_turn("Architect")

    h.hook("Architect", "StopFailure", error="rate_limit", last_assistant_message="API Error: Request rejected (429)")
    await h.time.advance(GRACE * 3 // 4)
    h.activity.grow(h.id("Architect"))
    await h.time.advance(GRACE)

    error = await verdict_of(ask)
    assert error.code is ErrorCode.TARGET_RETURNED_NO_REPLY
    assert "(rate_limit)" in error.message
    await h.close()


async def test_a_stop_of_an_earlier_turn_never_counts() -> None:
    h = team()
    h.hook("Architect", "UserPromptSubmit", prompt="refactor the parser")  # the person's own turn, still running
    ask = await h.ask("Main", "Architect", "review it")
    await h.deliver("Architect")  # typed into the CLI's native queue

    h.hook("Architect", "Stop")  # ends the person's turn
    await h.time.advance(10 * GRACE)
    assert not ask.done()

    h.hook("Architect", "UserPromptSubmit", prompt=h.last_delivery("Architect"))
    h.hook("Architect", "Stop")
    await h.time.advance(GRACE)
    assert (await verdict_of(ask)).code is ErrorCode.TARGET_RETURNED_NO_REPLY
    await h.close()


async def test_steps_of_a_multi_step_turn_are_not_its_end() -> None:
    h = team()
    ask = await h.ask("Main", "Architect", "read files, run find and git log, then reply")
    ticket = await h.begin_turn("Architect")

    for _ in range(61):  # one transcript record per internal step, and sub-agents finishing
        h.activity.grow(h.id("Architect"))
        h.hook("Architect", "SubagentStop")
        await h.time.advance(50)
    await h.time.advance(10 * GRACE)
    assert not ask.done()

    await reply(h, "Architect", "142 files", ticket)
    assert (await ask).reply == "142 files"
    await h.close()


async def test_a_reply_during_the_grace_wins() -> None:
    h = team()
    ask = await h.ask("Main", "Architect", "task")
    ticket = await h.begin_turn("Architect")
    h.hook("Architect", "Stop")
    await h.time.advance(GRACE // 2)

    await reply(h, "Architect", "just in time", ticket)
    await h.time.advance(GRACE)

    assert (await ask).reply == "just in time"
    await h.close()


async def test_a_new_turn_during_the_grace_cancels_the_backstop() -> None:
    h = team()
    ask = await h.ask("Main", "Architect", "task")
    ticket = await h.begin_turn("Architect")
    h.hook("Architect", "Stop")
    await h.time.advance(GRACE // 2)

    h.hook("Architect", "UserPromptSubmit", prompt="also check the tests")  # it continues
    await h.time.advance(10 * GRACE)
    assert not ask.done()

    await reply(h, "Architect", "done with tests", ticket)
    assert (await ask).reply == "done with tests"
    await h.close()


async def test_activity_still_going_at_the_end_of_the_grace_cancels_it_trailing_writes_do_not() -> None:
    h = team()
    architect = h.id("Architect")
    ask = await h.ask("Main", "Architect", "task")
    await h.begin_turn("Architect")

    h.hook("Architect", "Stop")
    await h.time.advance(200)
    h.activity.grow(architect)  # the stop-hook summary record, written just after the Stop
    await h.time.advance(GRACE)
    assert (await verdict_of(ask)).code is ErrorCode.TARGET_RETURNED_NO_REPLY

    second = await h.ask("Main", "Architect", "another task")
    await h.begin_turn("Architect")
    h.hook("Architect", "Stop")
    await h.time.advance(GRACE - 200)
    h.activity.grow(architect)  # still writing: it kept working
    await h.time.advance(10 * GRACE)
    assert not second.done()
    await h.close()


async def test_a_silent_target_times_out_after_one_window() -> None:
    h = team()
    ask = await h.ask("Main", "Architect", "task")
    await h.deliver("Architect")

    await h.time.advance(WINDOW)

    error = await verdict_of(ask)
    assert error.code is ErrorCode.RENDEZVOUS_TIMEOUT and error.retryable
    assert error.message == "agent Architect showed no activity for 600 s and did not reply; retry or check it"
    assert h.row("Architect").progress == "(abandoned: RENDEZVOUS_TIMEOUT)"
    assert h.row("Architect").status is WorkStatus.DONE
    assert_target_released(h, "Architect")
    await h.close()


async def test_the_profile_turn_timeout_is_the_window_of_that_target() -> None:
    h = make_harness([("Main", claude_profile()), ("QA", claude_profile(liveness={"turnTimeoutMs": 90_000}))])
    h.lifecycle.start("Main")
    h.lifecycle.start("QA")
    ask = await h.ask("Main", "QA", "task")

    await h.time.advance(90_000)

    assert "no activity for 90 s" in (await verdict_of(ask)).message
    await h.close()


async def test_a_target_that_keeps_working_is_not_cut_at_the_window() -> None:
    h = team()
    architect = h.id("Architect")
    ask = await h.ask("Main", "Architect", "clean build, tests and linters")
    ticket = await h.begin_turn("Architect")

    for _ in range(15):  # 25 minutes of real work, more than twice the window
        h.activity.grow(architect, 4096)
        await h.time.advance(100_000)
    assert not ask.done()

    await reply(h, "Architect", "all green", ticket)
    assert (await ask).reply == "all green"
    assert any("[rendezvous] window re-armed" in line for line in h.diagnostics.lines)
    await h.close()


async def test_the_ceiling_ends_an_active_rendezvous_and_the_late_reply_is_recorded_and_shown() -> None:
    h = team(timings=OrchestratorTimings(ceiling_ms=300_000, window_ms=120_000))
    architect = h.id("Architect")
    ask = await h.ask("Main", "Architect", "heavy task")
    ticket = await h.begin_turn("Architect")
    for _ in range(40):
        h.activity.grow(architect)
        await h.time.advance(10_000)

    error = await verdict_of(ask)
    assert error.code is ErrorCode.RENDEZVOUS_CEILING_ACTIVE and not error.retryable
    assert h.row("Architect").progress == "(abandoned: RENDEZVOUS_CEILING_ACTIVE)"

    with pytest.raises(AppError) as closed:
        await reply(h, "Architect", "build green after 12 min", ticket)
    assert closed.value.code is ErrorCode.TICKET_CLOSED
    assert closed.value.message == (
        f"the requester is no longer waiting for ticket {ticket}; your result was saved and will be shown to Main"
    )
    late = h.log.turns[-1]
    assert (late.role.value, late.text, late.late, late.ticket) == (
        "response",
        "build green after 12 min",
        True,
        ticket,
    )

    await h.time.run_until(lambda: "late reply" in h.written("Main"), within_ms=5_000)
    assert f"[IdeA · late reply from Architect · ticket {ticket}] build green after 12 min" in h.last_delivery("Main")
    [shown] = h.queue("Main").late  # what the work panel offers to open
    assert (shown.ticket_id, shown.conversation_id, shown.from_label) == (ticket, late.conversation, "Architect")
    await h.close()


async def test_cancelling_the_awaiting_call_releases_a_delivered_target() -> None:
    h = team()
    ask = await h.ask("Main", "Architect", "first")
    await h.begin_turn("Architect")

    ask.cancel()  # MCP notifications/cancelled, or the bridge hung up
    with pytest.raises(asyncio.CancelledError):
        await ask
    await settle()

    assert_target_released(h, "Architect")
    assert h.row("Architect").progress == "(abandoned: CANCELLED)"
    assert h.row("Main").status is WorkStatus.WORKING
    assert h.lifecycle.terminal("Architect").written.count("\x1b") == 0  # the target is not interrupted

    second = await h.ask("Main", "Architect", "second")  # no phantom busy: it is delivered at once
    ticket = await h.begin_turn("Architect")
    await reply(h, "Architect", "ok", ticket)
    assert (await second).reply == "ok"
    await h.close()


async def test_cancelling_a_queued_ask_removes_it_and_leaves_the_head_alone() -> None:
    h = team()
    h.lifecycle.start("DevBackend")
    first = await h.ask("DevBackend", "Architect", "first")
    head = await h.begin_turn("Architect")
    queued = await h.ask("Main", "Architect", "second")
    assert len(h.queue("Architect").tickets) == 2

    queued.cancel()
    await settle()

    assert [t.ticket_id for t in h.queue("Architect").tickets] == [head]
    assert h.row("Architect").ticket == head and h.row("Architect").status is WorkStatus.WORKING
    await reply(h, "Architect", "r1", head)
    assert (await first).reply == "r1"
    assert "second" not in h.written("Architect")
    await h.close()


async def test_the_user_cancelling_a_delegation_tells_the_requester() -> None:
    h = team()
    ask = await h.ask("Main", "Architect", "task")
    ticket = await h.begin_turn("Architect")

    outcome = await h.service.dispatch(HUMAN, CancelTicket(ticket), Source.UI)

    error = await verdict_of(ask)
    assert outcome.detail == f"cancelled ticket {ticket}"
    assert (error.code, error.message, error.retryable) == (
        ErrorCode.CANCELLED,
        "the user cancelled this delegation to Architect",
        False,
    )
    assert h.row("Architect").status is WorkStatus.DONE and h.row("Main").status is WorkStatus.WORKING

    with pytest.raises(AppError) as closed:  # T10a: the late reply is recorded, not delivered
        await reply(h, "Architect", "late-10a", ticket)
    assert closed.value.message == "the delegation was cancelled; your result was saved"
    assert h.log.turns[-1].late
    await h.time.advance(10_000)
    assert "late-10a" not in h.written("Main")
    await h.close()


async def test_the_requester_exiting_cancels_its_asks() -> None:
    h = team()
    ask = await h.ask("Main", "Architect", "task")
    await h.begin_turn("Architect")

    h.lifecycle.terminal("Main").exit(0)
    await settle()

    assert (await verdict_of(ask)).code is ErrorCode.CANCELLED
    assert_target_released(h, "Architect")
    main = h.row("Main")
    assert (main.status, main.progress) == (WorkStatus.IDLE, "(exited: code 0)")
    assert h.row("Architect").status is WorkStatus.DONE
    await h.close()


async def test_stopping_the_requester_cancels_its_asks() -> None:
    h = team()
    h.lifecycle.start("DevBackend")
    ask = await h.ask("DevBackend", "Architect", "task")
    await h.begin_turn("Architect")

    await h.service.dispatch(h.agent("Main"), StopAgent("DevBackend"), Source.UI)

    assert (await verdict_of(ask)).message == "the delegation to Architect was cancelled because DevBackend stopped"
    assert_target_released(h, "Architect")
    await h.close()


async def test_a_new_prompt_of_the_requester_abandons_its_ask() -> None:
    h = team()
    ask = await h.ask("Main", "Architect", "task")
    await h.begin_turn("Architect")

    h.hook("Main", "UserPromptSubmit", prompt="[IdeA · task from you · ticket x] something")  # IdeA's own turn
    await settle()
    assert not ask.done()

    h.hook("Main", "UserPromptSubmit", prompt="forget it, do something else")  # Esc, then a new prompt
    await settle()

    error = await verdict_of(ask)
    assert error.code is ErrorCode.CANCELLED
    assert error.message == "the delegation to Architect was cancelled because Main started a new turn"
    assert h.row("Main").status is WorkStatus.WORKING and h.row("Architect").status is WorkStatus.DONE
    await h.close()


async def test_a_prompt_right_after_a_delivery_to_the_requester_is_not_a_cancellation() -> None:
    h = team()
    h.lifecycle.start("DevBackend")
    ask = await h.ask("Main", "Architect", "task")
    await h.begin_turn("Architect")
    late_task = await h.ask("DevBackend", "Main", "ping")  # a delivery into the waiting requester
    await h.deliver("Main")

    h.hook("Main", "UserPromptSubmit", prompt="ping")  # however the CLI reports it
    await settle()

    assert not ask.done()
    late_task.cancel()
    await h.close()


async def test_the_target_dying_ends_the_ask_at_once_and_a_retry_cold_starts_it() -> None:
    h = team()
    ask = await h.ask("Main", "Architect", "task")
    await h.begin_turn("Architect")

    h.lifecycle.terminal("Architect").exit(137)
    await settle()

    error = await verdict_of(ask)
    assert (error.code, error.retryable, error.message) == (
        ErrorCode.TARGET_DIED,
        True,
        "agent Architect exited (code 137) before replying",
    )
    row = h.row("Architect")
    assert (row.status, row.ticket, row.progress) == (WorkStatus.IDLE, None, "(exited: code 137)")
    assert h.row("Main").status is WorkStatus.WORKING

    retry = await h.ask("Main", "Architect", "task again")
    assert h.lifecycle.launches[-1][0] == h.id("Architect")
    retry.cancel()
    await h.close()


async def test_a_target_dying_with_asks_queued_takes_the_next_asks_once_it_is_back() -> None:
    # Ending the dead agent's tickets one after the other used to start a delivery of the next one, cancelled
    # before it ran: the lane kept that writer and never delivered again.
    h = team()
    first = await h.ask("Main", "Architect", "first")
    await h.begin_turn("Architect")
    queued = await h.ask("DevBackend", "Architect", "queued")

    h.lifecycle.terminal("Architect").exit(3)
    await settle()
    assert (await verdict_of(first)).code is ErrorCode.TARGET_DIED
    assert (await verdict_of(queued)).code is ErrorCode.TARGET_DIED

    h.lifecycle.start("Architect", "cell-2")  # back, started again
    again = await h.ask("Main", "Architect", "after the restart")
    await h.deliver("Architect")
    assert h.last_delivery("Architect").find("after the restart") >= 0
    again.cancel()
    await h.close()


async def test_stopping_the_target_ends_its_tickets_as_stopped() -> None:
    h = team()
    ask = await h.ask("Main", "Architect", "task")
    await h.begin_turn("Architect")

    outcome = await h.service.dispatch(HUMAN, StopAgent("Architect"), Source.UI)

    assert outcome.detail == "stopped Architect"
    error = await verdict_of(ask)
    assert (error.code, error.retryable) == (ErrorCode.TARGET_STOPPED, False)
    assert h.row("Architect").status is WorkStatus.IDLE
    await h.close()


async def test_a_stop_whose_exit_is_not_reported_still_ends_the_tickets() -> None:
    h = team()
    h.lifecycle.report_exit_on_stop = False
    ask = await h.ask("Main", "Architect", "task")
    await h.begin_turn("Architect")

    await h.service.dispatch(HUMAN, StopAgent("Architect"), Source.UI)

    assert (await verdict_of(ask)).code is ErrorCode.TARGET_STOPPED
    assert_target_released(h, "Architect")
    await h.close()


async def test_a_reply_without_ticket_after_the_requester_gave_up_is_a_late_reply() -> None:
    h = team()
    ask = await h.ask("Main", "Architect", "task")
    ticket = await h.begin_turn("Architect")
    await h.time.advance(2 * WINDOW)  # the prompt hook was a sign of life: one window more
    assert (await verdict_of(ask)).code is ErrorCode.RENDEZVOUS_TIMEOUT

    with pytest.raises(AppError) as closed:
        await reply(h, "Architect", "finally")
    assert closed.value.code is ErrorCode.TICKET_CLOSED
    assert h.log.turns[-1].ticket == ticket and h.log.turns[-1].late
    await h.close()


async def test_reply_refusals() -> None:
    h = team()
    h.lifecycle.start("DevBackend")
    ask = await h.ask("Main", "Architect", "task")
    ticket = await h.begin_turn("Architect")

    with pytest.raises(AppError) as unknown:
        await reply(h, "Architect", "r", "no-such-ticket")
    with pytest.raises(AppError) as foreign:
        await reply(h, "DevBackend", "r", ticket)
    with pytest.raises(AppError) as nothing:
        await reply(h, "DevBackend", "r")
    with pytest.raises(AppError) as person:
        await h.service.dispatch(HUMAN, Reply("r", ticket), Source.UI)

    assert (unknown.value.code, unknown.value.message) == (ErrorCode.NOT_FOUND, "unknown ticket no-such-ticket")
    assert foreign.value.code is ErrorCode.PERMISSION_DENIED
    assert foreign.value.message == f"ticket {ticket} is addressed to Architect, not to DevBackend"
    assert (nothing.value.code, nothing.value.message) == (
        ErrorCode.NO_PENDING_REQUEST,
        "no pending request to reply to for agent DevBackend",
    )
    assert person.value.code is ErrorCode.PERMISSION_DENIED
    assert not ask.done()
    await reply(h, "Architect", "fine")  # no ticket: the caller's head
    assert (await ask).reply == "fine"
    await h.close()


async def test_a_codex_turn_complete_ends_only_the_turn_that_carried_the_ticket() -> None:
    h = make_harness([("Main", claude_profile()), ("Coder", codex_profile())])
    h.lifecycle.start("Main")
    h.lifecycle.start("Coder")
    ask = await h.ask("Main", "Coder", "implement it")
    ticket = await h.deliver("Coder")
    coder = h.id("Coder")

    h.service.hook_event(coder, "codex", "agent-turn-complete", {"input-messages": ["an older request"]})
    await h.time.advance(10 * GRACE)
    assert not ask.done()

    h.service.hook_event(coder, "codex", "agent-turn-complete", {"input-messages": [h.last_delivery("Coder")]})
    await h.time.advance(GRACE)
    error = await verdict_of(ask)
    assert error.code is ErrorCode.TARGET_RETURNED_NO_REPLY and error.data["ticket"] == ticket
    await h.close()


async def test_without_a_turn_end_signal_a_quiet_target_is_released_conservatively() -> None:
    h = make_harness([("Main", claude_profile()), ("Gem", file_protocol_profile())])
    h.lifecycle.start("Main")
    h.lifecycle.start("Gem")
    gem = h.id("Gem")
    ask = await h.ask("Main", "Gem", "answer in prose")
    await h.deliver("Gem")
    assert "/work/demo/.ideai/requests/" in h.written("Gem") and "agent.reply" in h.written("Gem")

    for _ in range(5):
        h.activity.grow(gem)
        await h.time.advance(5_000)
    assert not ask.done()

    await h.time.run_until(ask.done, within_ms=120_000, step_ms=1_000)
    assert (await verdict_of(ask)).code is ErrorCode.TARGET_RETURNED_NO_REPLY
    await h.close()


async def test_two_parallel_asks_of_one_requester_get_distinct_answers() -> None:
    h = make_harness([("Main", claude_profile()), ("DevFrontend", claude_profile()), ("Git", claude_profile())])
    for name in ("Main", "DevFrontend", "Git"):
        h.lifecycle.start(name)
    alpha = await h.ask("Main", "DevFrontend", "reply alpha-8")
    beta = await h.ask("Main", "Git", "reply beta-8")
    t_alpha = await h.begin_turn("DevFrontend")
    t_beta = await h.begin_turn("Git")

    await reply(h, "Git", "beta-8", t_beta)
    assert h.row("Main").status is WorkStatus.WAITING  # still waiting on DevFrontend
    await reply(h, "DevFrontend", "alpha-8", t_alpha)

    assert ((await alpha).reply, (await beta).reply) == ("alpha-8", "beta-8")
    assert h.row("Main").status is WorkStatus.WORKING
    await h.close()


async def test_nested_asks_keep_the_outer_one_alive_while_the_innermost_works() -> None:
    h = team()
    h.lifecycle.start("DevBackend")
    outer = await h.ask("Main", "Architect", "ask DevBackend then relay")
    t_outer = await h.begin_turn("Architect")
    inner = await h.ask("Architect", "DevBackend", "15 minutes of work")
    t_inner = await h.begin_turn("DevBackend")

    cycle = await h.ask("DevBackend", "Main", "loop back")
    assert (await verdict_of(cycle)).code is ErrorCode.DELEGATION_CYCLE

    for _ in range(18):  # Main and Architect are frozen, only DevBackend's transcript grows
        h.activity.grow(h.id("DevBackend"), 1000)
        await h.time.advance(50_000)
    assert not outer.done() and not inner.done()

    await reply(h, "DevBackend", "gamma-9", t_inner)
    assert (await inner).reply == "gamma-9"
    await reply(h, "Architect", "relay:gamma-9:done", t_outer)
    assert (await outer).reply == "relay:gamma-9:done"

    after = await h.ask("DevBackend", "Main", "now allowed")  # the wait-for edges are gone
    assert not after.done()
    after.cancel()
    await h.close()


async def test_every_end_publishes_one_rendezvous_event() -> None:
    h = team()
    ask = await h.ask("Main", "Architect", "task")
    ticket = await h.begin_turn("Architect")
    await h.service.dispatch(HUMAN, CancelTicket(ticket), Source.UI)
    await verdict_of(ask)
    ask.cancel()
    await h.time.advance(WINDOW * 2)

    ended = h.events.of_type(RendezvousEnded)
    assert len(ended) == 1 and ended[0].ticket == ticket and ended[0].outcome == "cancelled"
    await h.close()


async def test_asking_with_an_ask_agent_command_from_the_person() -> None:
    h = team()
    ask = h.start(HUMAN, AskAgent("Architect", "summarise the plan"))
    await settle()
    ticket = await h.begin_turn("Architect")

    assert "[IdeA · task from you · ticket" in h.last_delivery("Architect")
    await reply(h, "Architect", "plan", ticket)
    assert (await ask).reply == "plan"
    assert h.log.turns[0].conversation == h.id("Architect")  # user<->agent conversation
    await h.close()
