"""The other commands of the dispatch (spec 03 §2, §5, §10, §11): authorization, names, listing, launching,
stopping, work state, human tickets, interrupts, reconciliation at open."""

from __future__ import annotations

import json

import pytest

from idea.application.orchestrator.timing import OrchestratorTimings
from idea.domain.errors import AppError, ErrorCode
from idea.domain.ids import conversation_for_pair
from idea.domain.orchestration.commands import (
    AskAgent,
    CancelTicket,
    Interrupt,
    LaunchAgent,
    ListAgents,
    ReadWorkState,
    Reply,
    SetWorkState,
    Source,
    StopAgent,
    SubmitHumanInput,
    UpdateAgentContext,
    Visibility,
    WorkStatus,
)
from idea.domain.orchestration.events import HumanReplyReceived
from idea.domain.orchestration.live_state import STALE_AT_RESTART_MARKER, LiveEntry, LiveState, LiveStateRow
from idea.domain.orchestration.tickets import AgentSource, HumanSource
from tests.fakes_orchestration import MemoryLiveStateStore, settle
from tests.world import HUMAN, Harness, bridgeless_profile, claude_profile, file_protocol_profile, make_harness


def team(store: MemoryLiveStateStore | None = None) -> Harness:
    h = make_harness(
        [
            ("Main", claude_profile()),
            ("Architect", claude_profile()),
            ("QA", claude_profile()),
            ("Gem", file_protocol_profile()),
            ("Custom", bridgeless_profile()),
        ],
        orchestrator="Main",
        store=store,
    )
    h.lifecycle.start("Main", "cell-1")
    return h


async def run(h: Harness, requester, command):  # type: ignore[no-untyped-def]
    return await h.service.dispatch(requester, command, Source.UI)


async def refused(h: Harness, requester, command) -> AppError:  # type: ignore[no-untyped-def]
    with pytest.raises(AppError) as failure:
        await run(h, requester, command)
    return failure.value


async def test_an_unknown_agent_lists_the_known_ones_and_names_ignore_case() -> None:
    h = team()
    error = await refused(h, h.agent("Main"), AskAgent("Archi", "x"))

    assert (error.code, error.message) == (
        ErrorCode.NOT_FOUND,
        "agent 'Archi' not found; known agents: Main, Architect, QA, Gem, Custom",
    )
    ask = await h.ask("Main", "aRCHITECT", "task")
    assert h.lifecycle.launches[0][0] == h.id("Architect")
    ask.cancel()
    await h.close()


async def test_asking_yourself_is_refused_before_anything_happens() -> None:
    h = team()
    error = await refused(h, h.agent("Main"), AskAgent("main", "x"))

    assert (error.code, error.message) == (
        ErrorCode.DELEGATION_CYCLE,
        "asking Main would create a delegation cycle: Main cannot ask itself",
    )
    assert h.lifecycle.launches == [] and h.log.turns == []
    await h.close()


async def test_a_profile_that_cannot_receive_delegations_is_refused_without_launch() -> None:
    h = team()
    error = await refused(h, h.agent("Main"), AskAgent("Custom", "x"))

    assert (error.code, error.message) == (
        ErrorCode.BRIDGE_UNSUPPORTED,
        "agent Custom (profile Custom MCP) cannot receive IdeA delegations",
    )
    assert h.lifecycle.launches == [] and h.queue("Custom").tickets == ()
    await h.close()


async def test_empty_arguments_are_invalid_arguments() -> None:
    h = team()
    assert (await refused(h, h.agent("Main"), AskAgent("QA", "  "))).code is ErrorCode.INVALID_ARGUMENTS
    assert (await refused(h, h.agent("Main"), AskAgent("", "x"))).code is ErrorCode.INVALID_ARGUMENTS
    await h.close()


async def test_an_agent_unknown_to_the_manifest_is_not_a_caller() -> None:
    h = team()
    from idea.domain.orchestration.commands import AgentCaller

    error = await refused(h, AgentCaller("ffffffff-0000-4000-8000-000000000000"), ListAgents())
    assert (error.code, error.message) == (ErrorCode.PERMISSION_DENIED, "unauthenticated caller")
    await h.close()


async def test_list_agents_describes_the_team_from_the_caller_s_point_of_view() -> None:
    h = team()
    h.lifecycle.start("QA", node_id=None)
    h.service.bridge_connected(h.id("QA"))
    await run(h, h.agent("QA"), SetWorkState(WorkStatus.WORKING, intent="review of the storage ports"))
    ask = await h.ask("Main", "QA", "task")

    outcome = await run(h, h.agent("Main"), ListAgents())

    assert json.loads(outcome.text) == outcome.data
    assert outcome.data["you"] == "Main"
    qa = outcome.data["agents"][2]
    assert qa == {
        "name": "QA",
        "agentId": h.id("QA"),
        "profile": "Claude Code",
        "orchestrator": False,
        "running": True,
        "visible": False,
        "busy": True,
        "queueDepth": 1,
        "status": "working",
        "intent": "review of the storage ports",
        "reachable": True,
        "bridgeConnected": True,
    }
    main, architect, _, gem, custom = outcome.data["agents"]
    assert main["orchestrator"] and main["visible"] and main["status"] == "waiting"
    assert (architect["running"], architect["status"], architect["intent"]) == (False, None, None)
    assert gem["reachable"] and not custom["reachable"]
    assert (await run(h, HUMAN, ListAgents())).data["you"] == "you"
    ask.cancel()
    await h.close()


async def test_an_agent_stays_bridge_connected_while_one_of_its_connections_is_open() -> None:
    # `claude mcp list` in the run dir opens a second connection and closes it; a restarted CLI's old
    # bridge can hang up after the new one connected.
    h = team()
    h.lifecycle.start("QA", node_id=None)
    qa = h.id("QA")
    h.service.bridge_connected(qa)
    h.service.bridge_connected(qa)
    h.service.bridge_disconnected(qa)

    listed = (await run(h, h.agent("Main"), ListAgents())).data["agents"][2]
    assert listed["name"] == "QA" and listed["bridgeConnected"]
    h.service.bridge_disconnected(qa)
    assert not (await run(h, h.agent("Main"), ListAgents())).data["agents"][2]["bridgeConnected"]
    await h.close()


async def test_only_the_orchestrator_or_the_user_stops_agents_and_never_itself() -> None:
    h = team()
    h.lifecycle.start("QA")
    h.lifecycle.start("Architect")

    not_orchestrator = await refused(h, h.agent("Architect"), StopAgent("QA"))
    itself = await refused(h, h.agent("Main"), StopAgent("main"))
    assert (not_orchestrator.code, itself.code) == (ErrorCode.PERMISSION_DENIED, ErrorCode.INVALID)

    assert (await run(h, h.agent("Main"), StopAgent("qa"))).detail == "stopped QA"
    assert (await run(h, HUMAN, StopAgent("Architect"))).detail == "stopped Architect"
    assert (await run(h, HUMAN, StopAgent("Architect"))).detail == "Architect is not running"
    assert h.lifecycle.stops == [h.id("QA"), h.id("Architect")]
    await h.close()


async def test_context_updates_by_the_agent_itself_the_orchestrator_or_the_user() -> None:
    h = team()
    assert (await run(h, h.agent("QA"), UpdateAgentContext("QA", "# QA v2"))).detail == (
        "updated context of QA (applies at next launch)"
    )
    await run(h, h.agent("Main"), UpdateAgentContext("Architect", "# Architect v2"))
    await run(h, HUMAN, UpdateAgentContext("Gem", "# Gem v2"))
    error = await refused(h, h.agent("QA"), UpdateAgentContext("Architect", "# hijack"))

    assert error.code is ErrorCode.PERMISSION_DENIED
    assert h.lifecycle.personas == {h.id("QA"): "# QA v2", h.id("Architect"): "# Architect v2", h.id("Gem"): "# Gem v2"}
    await h.close()


async def test_work_state_is_set_on_the_caller_s_own_row_only() -> None:
    h = team()
    outcome = await run(h, h.agent("QA"), SetWorkState(WorkStatus.BLOCKED, intent="x" * 300, progress="1/3"))

    assert outcome.detail == "work state updated"
    row = h.row("QA")
    assert (row.status, row.intent, row.progress) == (WorkStatus.BLOCKED, "x" * 200, "1/3")
    assert row.updated_at_ms == h.time.now_ms()
    assert (await refused(h, HUMAN, SetWorkState(WorkStatus.IDLE))).code is ErrorCode.PERMISSION_DENIED
    oversize = await refused(h, h.agent("QA"), SetWorkState(WorkStatus.IDLE, intent="é" * 3000))
    assert oversize.code is ErrorCode.INVALID and h.row("QA").status is WorkStatus.BLOCKED
    await h.close()


async def test_a_declared_intent_names_the_next_delivered_task_for_ten_minutes() -> None:
    h = team()
    h.lifecycle.start("QA")
    await run(h, h.agent("QA"), SetWorkState(WorkStatus.IDLE, intent="hardening the parser"))
    first = await h.ask("Main", "QA", "run the fuzzers")
    ticket = await h.begin_turn("QA")
    assert h.row("QA").intent == "hardening the parser"
    await run(h, h.agent("QA"), Reply("done", ticket))
    await first

    await h.time.advance(601_000)
    second = await h.ask("Main", "QA", "now look   at\nthe lexer")
    await h.begin_turn("QA")
    assert h.row("QA").intent == "task from Main: now look at the lexer"
    second.cancel()
    await h.close()


async def test_reading_the_work_state_is_lean_named_and_pruned() -> None:
    old = LiveEntry("ghost", WorkStatus.WORKING, "gone", None, None, None, 0)
    h = team(MemoryLiveStateStore(LiveState((old,))))
    await run(h, h.agent("QA"), SetWorkState(WorkStatus.WORKING, intent="tests", progress="secret detail"))

    outcome = await run(h, h.agent("Main"), ReadWorkState())

    assert outcome.data == {
        "entries": [
            {
                "agentId": h.id("QA"),
                "name": "QA",
                "status": "working",
                "intent": "tests",
                "ticket": None,
                "lastDelegation": None,
            }
        ]
    }
    assert "secret detail" not in outcome.text
    assert (await h.saved()).row("ghost") is None  # the prune is persisted
    await h.close()


async def test_an_agent_s_convention_file_lists_the_others_rows_in_manifest_order() -> None:
    ghost = LiveEntry("ghost", WorkStatus.WORKING, "gone", None, None, None, 0)
    h = team(MemoryLiveStateStore(LiveState((ghost,))))
    await run(h, h.agent("QA"), SetWorkState(WorkStatus.BLOCKED, intent="waiting for review"))
    await run(h, h.agent("Architect"), SetWorkState(WorkStatus.WORKING))
    await run(h, h.agent("Main"), SetWorkState(WorkStatus.WORKING, intent="planning"))

    rows = h.service.work_state_rows(excluding=h.id("Main"))

    assert rows == (
        LiveStateRow(h.id("Architect"), "Architect", "working", "", None),
        LiveStateRow(h.id("QA"), "QA", "blocked", "waiting for review", None),
    )
    assert (await h.saved()).row("ghost") is None  # pruned on read, as for the agents' own reads
    await h.close()


async def test_launching_is_idempotent_and_says_where_the_agent_runs() -> None:
    h = team()
    h.lifecycle.empty_cells = ["cell-4"]
    first = await run(h, h.agent("Main"), LaunchAgent("Architect"))
    again = await run(h, h.agent("Main"), LaunchAgent("architect"))
    background = await run(h, HUMAN, LaunchAgent("QA", visibility=Visibility.BACKGROUND))
    no_cell = await run(h, HUMAN, LaunchAgent("Gem"))

    assert first.detail == "launched Architect in cell cell-4"
    assert again.detail == "Architect is already running in cell cell-4"
    assert background.detail == "launched QA in the background"
    assert no_cell.detail == "launched Gem in the background (no empty cell)"
    assert len(h.lifecycle.launches) == 3
    await h.close()


async def test_a_launch_task_expects_no_reply_and_ends_with_the_turn() -> None:
    h = team()
    outcome = await run(h, h.agent("Main"), LaunchAgent("Architect", task="warm the caches"))
    ticket = outcome.data["ticket"]
    h.service.bridge_initialized(h.id("Architect"))
    await h.begin_turn("Architect")

    assert (
        h.last_delivery("Architect") == f"[IdeA · task from Main · ticket {ticket} · no reply expected] warm the caches"
    )
    assert "ticket" in outcome.detail and ticket in outcome.detail
    assert h.row("Main") is None  # nobody waits
    h.hook("Architect", "Stop")
    await settle()
    assert h.queue("Architect").tickets == ()
    assert h.row("Architect").status is WorkStatus.DONE
    await h.close()


async def test_human_input_is_delivered_verbatim_and_ends_at_the_next_turn_end() -> None:
    h = team()
    h.lifecycle.start("Architect")
    outcome = await run(h, HUMAN, SubmitHumanInput("Architect", "please look at line 12"))
    await h.begin_turn("Architect")

    assert h.last_delivery("Architect") == "please look at line 12"
    assert h.row("Architect").intent == "please look at line 12"
    assert h.log.turns[-1].source == HumanSource() and h.log.turns[-1].conversation == h.id("Architect")
    answered = await run(h, h.agent("Architect"), Reply("line 12 is fine"))
    assert answered.detail == "reply recorded for the user"
    assert h.events.of_type(HumanReplyReceived)[0].text == "line 12 is fine"

    h.hook("Architect", "Stop")
    await settle()
    assert h.queue("Architect").tickets == () and outcome.data["ticket"]
    await h.close()


async def test_human_input_to_a_cli_without_turn_signal_ends_right_after_submission() -> None:
    h = team()
    h.lifecycle.start("Gem")
    await run(h, HUMAN, SubmitHumanInput("Gem", "hello"))
    await run(h, HUMAN, SubmitHumanInput("Gem", "and again"))

    await h.time.run_until(lambda: h.queue("Gem").tickets == (), within_ms=30_000)
    assert h.written("Gem").count("hello") == 1 and "and again" in h.written("Gem")
    await h.close()


async def test_user_only_commands_are_refused_to_agents() -> None:
    h = team()
    for command in (SubmitHumanInput("QA", "x"), Interrupt("QA"), CancelTicket("t")):
        assert (await refused(h, h.agent("Main"), command)).code is ErrorCode.PERMISSION_DENIED
    await h.close()


async def test_interrupt_writes_escape_and_nothing_else() -> None:
    h = team()
    h.lifecycle.start("QA")
    assert (await run(h, HUMAN, Interrupt("qa"))).detail == "interrupted QA"
    assert h.lifecycle.terminal("QA").written == ["\x1b"]
    assert (await refused(h, HUMAN, Interrupt("Architect"))).code is ErrorCode.INVALID
    assert (await refused(h, HUMAN, Interrupt("Nobody"))).code is ErrorCode.NOT_FOUND
    await h.close()


async def test_cancelling_an_unknown_or_ended_ticket() -> None:
    h = team()
    h.lifecycle.start("QA")
    ask = await h.ask("Main", "QA", "task")
    ticket = await h.begin_turn("QA")
    await run(h, h.agent("QA"), Reply("ok", ticket))
    await ask

    assert (await refused(h, HUMAN, CancelTicket("nope"))).code is ErrorCode.NOT_FOUND
    assert (await run(h, HUMAN, CancelTicket(ticket))).detail == f"ticket {ticket} had already ended (replied)"
    await h.close()


async def test_reconciliation_at_open_marks_orphans_stale_including_the_orchestrator() -> None:
    rows = (
        LiveEntry("a0000000-0000-4000-8000-000000000001", WorkStatus.WORKING, "T10b-ORPHAN-MAIN", "t1", None, "t0", 5),
        LiveEntry("a0000000-0000-4000-8000-000000000002", WorkStatus.WAITING, None, None, None, "t2", 5),
        LiveEntry("a0000000-0000-4000-8000-000000000003", WorkStatus.DONE, None, None, None, None, 5),
    )
    h = make_harness(
        [("Main", claude_profile()), ("Architect", claude_profile()), ("QA", claude_profile())],
        store=MemoryLiveStateStore(LiveState(rows)),
    )

    h.service.reconcile_at_open()

    main = h.row("Main")
    assert (main.status, main.intent, main.ticket, main.last_delegation, main.progress, main.updated_at_ms) == (
        WorkStatus.IDLE,
        "T10b-ORPHAN-MAIN",
        None,
        None,
        STALE_AT_RESTART_MARKER,
        h.time.now_ms(),
    )
    assert h.row("Architect").status is WorkStatus.IDLE
    assert h.row("QA") == rows[2]
    await h.close()


async def test_a_live_agent_s_row_survives_reconciliation() -> None:
    row = LiveEntry("a0000000-0000-4000-8000-000000000001", WorkStatus.WORKING, "busy", "t1", None, None, 5)
    h = make_harness([("Main", claude_profile())], store=MemoryLiveStateStore(LiveState((row,))))
    h.lifecycle.start("Main")
    h.service.reconcile_at_open()
    assert h.row("Main") == row
    await h.close()


async def test_a_corrupt_live_state_file_starts_an_empty_board() -> None:
    store = MemoryLiveStateStore()
    store.corrupt = True
    h = team(store)
    await run(h, h.agent("QA"), SetWorkState(WorkStatus.WORKING))
    assert (await h.saved()).row(h.id("QA")) is not None
    assert any("[live-state]" in line and "starting empty" in line for line in h.diagnostics.lines)
    await h.close()


async def test_authentication_needs_a_known_agent_and_its_launch_secret() -> None:
    h = team()
    h.lifecycle.tokens[h.id("Main")] = "s3cret"
    assert h.service.authenticate(h.id("Main"), "s3cret")
    assert not h.service.authenticate(h.id("Main"), "guess")
    assert not h.service.authenticate("ffffffff-0000-4000-8000-000000000000", "s3cret")
    await h.close()


async def test_the_conversation_log_keeps_raw_prompts_and_responses_of_the_pair() -> None:
    h = team()
    h.lifecycle.start("QA")
    ask = await h.ask("Main", "QA", "raw task text")
    ticket = await h.begin_turn("QA")
    await run(h, h.agent("QA"), Reply("the answer", ticket))
    await ask

    prompt, response = h.log.turns
    pair = conversation_for_pair(h.id("QA"), h.id("Main"))
    assert (prompt.conversation, prompt.role.value, prompt.text, prompt.source, prompt.target, prompt.ticket) == (
        pair,
        "prompt",
        "raw task text",
        AgentSource(h.id("Main")),
        h.id("QA"),
        ticket,
    )
    assert (response.conversation, response.role.value, response.text, response.source, response.late) == (
        pair,
        "response",
        "the answer",
        AgentSource(h.id("QA")),
        False,
    )
    await h.close()


async def test_a_failing_conversation_log_never_fails_the_delegation() -> None:
    h = team()
    h.lifecycle.start("QA")
    h.log.fail = True
    ask = await h.ask("Main", "QA", "task")
    ticket = await h.begin_turn("QA")
    await run(h, h.agent("QA"), Reply("ok", ticket))

    assert (await ask).reply == "ok"
    assert any("[conversation] append failed" in line for line in h.diagnostics.lines)
    await h.close()


async def test_a_closed_service_refuses_commands_and_ends_its_tickets() -> None:
    h = team()
    h.lifecycle.start("QA")
    ask = await h.ask("Main", "QA", "task")
    await h.deliver("QA")

    await h.service.close()

    with pytest.raises(AppError) as failure:
        await ask
    assert failure.value.code is ErrorCode.CANCELLED
    assert (await refused(h, h.agent("Main"), ListAgents())).code is ErrorCode.INVALID


def test_timings_come_from_the_environment_with_garbage_ignored() -> None:
    timings = OrchestratorTimings.from_env(
        {
            "IDEA_ASK_RENDEZVOUS_TIMEOUT_MS": "3000",
            "IDEA_ASK_RENDEZVOUS_CEILING_MS": "0",
            "IDEA_NO_REPLY_GRACE_MS": "200",
            "IDEA_SUBMIT_VERIFY_MS": "-1",
            "IDEA_OVERLAY_FLOOR_MS": "50",
            "IDEA_COLD_START_SETTLE_MS": "ten",
            "IDEA_NO_REPLY_QUIET_MS": "1500",
            "IDEA_KEYSTROKE_QUIET_MS": "100",
        }
    )

    assert (timings.window_ms, timings.ceiling_ms, timings.no_reply_grace_ms, timings.submit_verify_ms) == (
        3000,
        14_400_000,
        200,
        5000,
    )
    assert (timings.overlay_floor_ms, timings.cold_start_settle_ms, timings.no_reply_quiet_ms) == (50, 500, 1500)
    assert timings.keystroke_quiet_ms == 100
    assert timings.mcp_safety_net_ms() == 14_400_000 + 3000 + 60_000
    assert OrchestratorTimings.from_env({}) == OrchestratorTimings()
