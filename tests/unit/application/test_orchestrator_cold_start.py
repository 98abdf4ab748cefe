"""Waking a stopped agent: the cold-start gate (spec 03 §8.6, failures #5, #6, #19)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from idea.domain.errors import AppError, ErrorCode
from idea.domain.orchestration.commands import Reply, Source
from idea.domain.orchestration.events import ColdStartDegraded
from tests.fakes_orchestration import settle
from tests.world import Harness, claude_profile, file_protocol_profile, make_harness

SETTLE = 500


def cold(profile=None) -> Harness:  # type: ignore[no-untyped-def]
    h = make_harness([("Main", claude_profile()), ("Architect", profile or claude_profile())])
    h.lifecycle.start("Main")
    return h


def by_bridge(h: Harness) -> None:
    h.service.bridge_initialized(h.id("Architect"))


def by_session_start(h: Harness) -> None:
    h.hook("Architect", "SessionStart", session_id="s", transcript_path="/home/dev/.claude/projects/x/s.jsonl")


def by_prompt_in_output(h: Harness) -> None:
    h.lifecycle.terminal("Architect").emit_output(b"\x1b[2K\x1b[1m? for\x1b[0m shortcuts")


@pytest.mark.parametrize("signal", [by_bridge, by_session_start, by_prompt_in_output])
async def test_the_first_task_waits_for_the_first_ready_signal_then_the_settle(
    signal: Callable[[Harness], None],
) -> None:
    h = cold(claude_profile(promptReadyPattern="? for shortcuts"))
    ask = await h.ask("Main", "Architect", "reply pong-cold")
    assert h.lifecycle.live(h.id("Architect")) is not None
    await h.time.advance(20_000)
    assert h.written("Architect") == ""  # nothing typed before the CLI is ready

    signal(h)
    await h.time.advance(SETTLE - 1)
    assert h.written("Architect") == ""
    await h.time.advance(1)
    assert h.written("Architect").startswith("[IdeA · task from Main · ticket ")  # the first turn, intact

    ticket = await h.begin_turn("Architect")
    await h.service.dispatch(h.agent("Architect"), Reply("pong-cold", ticket), Source.UI)
    assert (await ask).reply == "pong-cold"
    assert any("[cold-start] released" in line and "after_ms=20000" in line for line in h.diagnostics.lines)
    await h.close()


async def test_the_first_task_waits_until_the_cli_stops_drawing_after_its_prompt() -> None:
    """Gemini CLI resuming a session draws its input box, then "Resuming session…" and the conversation, and
    drops what is typed meanwhile: the settle counts from the CLI's last drawing."""
    h = cold(claude_profile(promptReadyPattern="Type your message"))
    await h.ask("Main", "Architect", "task")
    terminal = h.lifecycle.terminal("Architect")
    terminal.emit_output(b" >   Type your message or @path/to/file")
    await h.time.advance(400)
    terminal.emit_output(b"Resuming session...")
    await h.time.advance(300)
    terminal.emit_output(b"\x1b[2J> earlier prompt\r\n >   Type your message or @path/to/file")
    await h.time.advance(SETTLE - 1)
    assert h.written("Architect") == ""
    await h.time.advance(1)
    assert h.written("Architect").startswith("[IdeA · task from Main")
    assert any("[delivery] settled after_ms=1200 (the CLI drew on)" in line for line in h.diagnostics.lines)
    await h.close()


async def test_a_cli_that_keeps_drawing_gets_its_first_task_three_seconds_after_its_prompt() -> None:
    h = cold(claude_profile(promptReadyPattern="Type your message"))
    await h.ask("Main", "Architect", "task")
    terminal = h.lifecycle.terminal("Architect")
    terminal.emit_output(b" >   Type your message")
    for _ in range(29):  # a spinner, every 100 ms
        await h.time.advance(100)
        assert h.written("Architect") == ""
        terminal.emit_output(b"\r-")
    await h.time.advance(100)
    assert h.written("Architect").startswith("[IdeA · task from Main")
    await h.close()


async def test_a_prompt_already_on_screen_releases_the_gate() -> None:
    h = cold(claude_profile(promptReadyPattern="? for shortcuts"))
    h.lifecycle.initial_screen = "  ? for shortcuts"
    await h.ask("Main", "Architect", "task")
    await h.deliver("Architect", within_ms=SETTLE + 350 + 100)
    await h.close()


async def test_a_cli_that_never_signals_is_released_at_its_cold_start_limit() -> None:
    h = cold(file_protocol_profile(coldStartMaxMs=60_000))
    await h.ask("Main", "Architect", "task")
    await h.time.advance(59_999)
    assert h.written("Architect") == ""

    await h.time.advance(1 + SETTLE)

    assert h.written("Architect") != ""
    assert h.events.of_type(ColdStartDegraded)[0].agent_id == h.id("Architect")
    assert any("by=timeout" in line for line in h.diagnostics.lines)
    await h.close()


async def test_a_ready_signal_during_the_launch_itself_counts() -> None:
    h = cold()
    h.lifecycle.launch_hold = asyncio.Event()
    await h.ask("Main", "Architect", "task")
    by_bridge(h)  # the bridge initialised before the launch call returned
    h.lifecycle.launch_hold.set()
    await h.deliver("Architect", within_ms=SETTLE + 350 + 100)
    await h.close()


async def test_concurrent_asks_to_a_stopped_agent_launch_it_once() -> None:
    h = make_harness([("Main", claude_profile()), ("QA", claude_profile()), ("Architect", claude_profile())])
    h.lifecycle.start("Main")
    h.lifecycle.start("QA")
    h.lifecycle.launch_hold = asyncio.Event()
    first = await h.ask("Main", "Architect", "first")
    second = await h.ask("QA", "Architect", "second")
    h.lifecycle.launch_hold.set()
    await settle()
    by_bridge(h)

    await h.deliver("Architect")

    assert len(h.lifecycle.launches) == 1
    assert "first" in h.last_delivery("Architect") and "second" not in h.written("Architect")
    first.cancel()
    second.cancel()
    await h.close()


async def test_a_delegation_wakes_its_target_in_the_first_empty_cell() -> None:
    h = cold()
    h.lifecycle.empty_cells = ["cell-7"]
    await h.ask("Main", "Architect", "task")

    ((agent_id, node_id, visible, reason),) = h.lifecycle.launches
    assert (agent_id, node_id, visible, reason) == (h.id("Architect"), None, True, "ask from Main")
    assert h.lifecycle.live(h.id("Architect")).node_id == "cell-7"  # type: ignore[union-attr]
    await h.close()


async def test_a_failed_launch_is_a_process_error_with_no_ticket_and_no_wait() -> None:
    h = cold()
    h.lifecycle.fail_launch = AppError(ErrorCode.PROCESS, "Codex is not signed in")
    ask = await h.ask("Main", "Architect", "task")

    with pytest.raises(AppError) as failure:
        await ask
    assert (failure.value.code, failure.value.message) == (ErrorCode.PROCESS, "Codex is not signed in")
    assert h.queue("Architect").tickets == () and h.row("Main") is None and h.log.turns == []

    h.lifecycle.fail_launch = None
    reverse = await h.ask("Architect", "Main", "allowed: Main waits on nobody")
    assert not reverse.done()
    reverse.cancel()
    await h.close()


async def test_a_warm_agent_has_no_gate() -> None:
    h = cold()
    h.lifecycle.start("Architect")
    await h.ask("Main", "Architect", "task")
    await h.deliver("Architect", within_ms=360)
    assert h.lifecycle.launches == []
    await h.close()


async def test_the_gate_is_armed_even_for_a_profile_without_prompt_pattern() -> None:
    h = cold(claude_profile())  # the original armed no gate here, and the first task was lost
    await h.ask("Main", "Architect", "task")
    await h.time.advance(30_000)
    assert h.written("Architect") == ""

    by_bridge(h)
    await h.deliver("Architect", within_ms=SETTLE + 350 + 100)
    await h.close()


async def test_an_agent_the_person_just_launched_gets_its_first_task_once_ready() -> None:
    # The launch service reports every launch, the person's included: a task arriving before the CLI is
    # ready waits at the gate (the original typed it before the prompt existed and lost it).
    h = cold()
    h.service.agent_launching(h.id("Architect"))
    h.lifecycle.start("Architect")
    h.service.agent_launched(h.id("Architect"))
    await h.ask("Main", "Architect", "task")
    await h.time.advance(5_000)
    assert h.written("Architect") == "" and h.lifecycle.launches == []

    by_session_start(h)
    await h.deliver("Architect", within_ms=SETTLE + 350 + 100)
    await h.close()


async def test_a_launch_nobody_delegated_to_is_not_reported_as_a_degraded_start() -> None:
    h = cold(file_protocol_profile(coldStartMaxMs=1_000))
    h.service.agent_launching(h.id("Architect"))
    h.lifecycle.start("Architect")
    await h.time.advance(5_000)
    assert h.events.of_type(ColdStartDegraded) == []  # released by its limit, but no task waited

    await h.ask("Main", "Architect", "task")
    await h.deliver("Architect", within_ms=350 + 100)  # the gate is open: no second wait
    await h.close()
