"""Typing a ticket into a live terminal (spec 03 §8.2-§8.5, §8.7)."""

from __future__ import annotations

import asyncio

import pytest

from idea.domain.errors import AppError, ErrorCode
from idea.domain.orchestration.commands import Reply, Source, SubmitHumanInput
from idea.domain.orchestration.delivery import BRACKETED_PASTE_END, BRACKETED_PASTE_START, ERASE_CHAR
from idea.domain.orchestration.events import (
    DelegationDelivered,
    DelegationReady,
    DeliveryMayBeStuck,
    DeliveryWaiting,
)
from tests.fakes_orchestration import FakePortal, settle
from tests.world import HUMAN, Harness, claude_profile, file_protocol_profile, make_harness


def pair(target_profile=None) -> Harness:  # type: ignore[no-untyped-def]
    h = make_harness([("Main", claude_profile()), ("Architect", target_profile or claude_profile())])
    h.lifecycle.start("Main")
    h.lifecycle.start("Architect", "cell-2")
    return h


def record_write_times(h: Harness, name: str) -> list[tuple[int, str]]:
    terminal = h.lifecycle.terminal(name)
    original = terminal.write_text
    times: list[tuple[int, str]] = []

    async def write_text(text: str) -> None:
        times.append((h.time.monotonic_ms(), text))
        await original(text)

    terminal.write_text = write_text  # type: ignore[method-assign]
    return times


async def test_a_pending_human_line_holds_the_delivery_which_is_never_refused() -> None:
    h = pair()
    portal = h.portal("Architect")
    portal.type(5)
    ask = await h.ask("Main", "Architect", "the task")

    await h.time.advance(300_000)  # five minutes with a half-typed line
    assert h.written("Architect") == "" and not ask.done()
    assert len(h.events.of_type(DeliveryWaiting)) == 1  # the banner, once, after 30 s

    portal.press_enter()
    await h.time.advance(799)
    assert h.written("Architect") == ""  # no keystroke for 800 ms first
    await h.deliver("Architect", within_ms=1_000)
    assert "the task" in h.written("Architect")
    await h.close()


async def test_deliver_now_clears_the_person_s_line_with_backspaces() -> None:
    h = pair()
    portal = h.portal("Architect")
    portal.type(4)
    await h.ask("Main", "Architect", "the task")
    await h.time.advance(40_000)

    h.service.force_delivery(h.open_ticket("Architect"))
    await h.deliver("Architect")

    assert h.lifecycle.terminal("Architect").written[0] == ERASE_CHAR * 4
    await h.close()


async def test_keys_that_slip_in_while_suspending_are_erased_before_typing() -> None:
    h = pair()

    class SlippyPortal(FakePortal):
        async def suspend(self, banner: str) -> None:
            self.type(3)  # typed between the boundary check and the filter
            await super().suspend(banner)

    portal = SlippyPortal(h.time)
    h.portals.by_session[h.lifecycle.lives[h.id("Architect")].session_id] = portal
    await h.ask("Main", "Architect", "the task")
    await h.deliver("Architect")

    written = h.lifecycle.terminal("Architect").written
    assert written[0] == ERASE_CHAR * 3 and "the task" in written[1]
    await h.close()


async def test_text_then_submit_after_the_delay_and_the_overlay_stays_two_seconds() -> None:
    h = pair()
    portal = h.portal("Architect")
    times = record_write_times(h, "Architect")
    await h.ask("Main", "Architect", "the task")
    ticket = await h.begin_turn("Architect")  # the turn starts at once
    await h.time.advance(5_000)

    (text_at, text), (submit_at, submit) = times
    assert "the task" in text and not text.endswith(("\r", "\n"))
    assert submit == "\r" and submit_at - text_at == 350
    (_, suspended_at), (_, released_at) = portal.log
    assert suspended_at <= text_at and released_at - suspended_at == 2_000
    assert h.events.of_type(DelegationReady)[0].ticket == ticket
    assert h.events.of_type(DelegationDelivered)[0].ticket == ticket
    await h.close()


async def test_the_overlay_names_who_is_speaking() -> None:
    h = pair()
    portal = h.portal("Architect")
    ask = await h.ask("Main", "Architect", "the task")
    ticket = await h.begin_turn("Architect")
    await h.service.dispatch(h.agent("Architect"), Reply("done", ticket), Source.UI)
    assert (await ask).reply == "done"
    await h.time.advance(5_000)  # the overlay's floor passes: the next delivery raises it again
    h.start(HUMAN, SubmitHumanInput(target="Architect", text="and mine"))
    await settle()
    await h.time.run_until(lambda: len(portal.banners) == 2, within_ms=60_000)

    assert portal.banners == ["Main is speaking — input paused", "Typing your task — input paused"]
    await h.close()


async def test_back_to_back_deliveries_from_one_speaker_keep_the_overlay_as_it_is() -> None:
    h = pair()
    portal = h.portal("Architect")
    for text in ("one", "two"):
        h.start(HUMAN, SubmitHumanInput(target="Architect", text=text))
    await settle()
    await h.begin_turn("Architect")  # the first is taken at once: the second follows inside the floor
    h.hook("Architect", "Stop")
    await h.time.run_until(lambda: any("two" in w for w in h.lifecycle.terminal("Architect").written), within_ms=10_000)
    assert h.time.monotonic_ms() < 2_000
    await h.time.advance(15_000)

    assert portal.banners == ["Typing your task — input paused"]
    assert [event for event, _ in portal.log] == ["suspend", "release"]
    await h.close()


async def test_a_long_multi_line_task_goes_as_one_chunked_bracketed_paste() -> None:
    h = pair()
    h.lifecycle.terminal("Architect").bracketed = True
    task = "\n".join(f"line {n}: " + "x" * 90 for n in range(200))  # about 20 000 characters
    await h.ask("Main", "Architect", task)
    await h.begin_turn("Architect")

    written = h.lifecycle.terminal("Architect").written
    assert written[0].startswith(BRACKETED_PASTE_START)
    end = next(index for index, chunk in enumerate(written) if chunk.endswith(BRACKETED_PASTE_END))
    paste = "".join(written[: end + 1])[len(BRACKETED_PASTE_START) : -len(BRACKETED_PASTE_END)]
    assert all(len(chunk) <= 512 + len(BRACKETED_PASTE_START) for chunk in written[: end + 1])
    assert task in paste
    assert written[end + 1 :] == ["\r"]  # submitted alone, outside the paste
    assert "bracketed=true" in next(line for line in h.diagnostics.lines if "[delivery] write" in line)
    await h.close()


async def test_without_bracketed_paste_multi_line_text_is_flattened_and_logged() -> None:
    h = pair()
    await h.ask("Main", "Architect", "one\ntwo")
    await h.deliver("Architect")

    assert "\n" not in h.written("Architect")
    assert any("flattened multi-line text" in line for line in h.diagnostics.lines)
    await h.close()


async def test_an_unverified_submission_is_resubmitted_once_then_reported() -> None:
    h = pair()
    await h.ask("Main", "Architect", "the task")
    await h.deliver("Architect")

    await h.time.advance(4_999)
    assert h.lifecycle.terminal("Architect").written.count("\r") == 1
    await h.time.advance(1)
    assert h.lifecycle.terminal("Architect").written.count("\r") == 2
    assert any("[delivery] resubmit" in line for line in h.diagnostics.lines)
    await h.time.advance(60_000)
    assert h.lifecycle.terminal("Architect").written.count("\r") == 2
    assert len(h.events.of_type(DeliveryMayBeStuck)) == 1
    await h.close()


async def test_an_unverified_submission_is_not_resubmitted_into_a_dialog_the_cli_drew_since() -> None:
    """The CLI took the text and asks the person (its turn-start report late or lost): an Enter would answer
    its question — "Apply this change?" allowed by IdeA."""
    h = pair(claude_profile(blockingPrompts=["Apply this change?"]))
    await h.ask("Main", "Architect", "the task")
    await h.deliver("Architect")
    h.lifecycle.terminal("Architect").screen = "Apply this change?\n 1. Allow once"

    await h.time.advance(60_000)
    assert h.lifecycle.terminal("Architect").written.count("\r") == 1
    assert any("[delivery] no resubmit: a dialog is on the screen" in line for line in h.diagnostics.lines)
    assert not h.events.of_type(DeliveryMayBeStuck)
    await h.close()


async def test_activity_after_the_submit_verifies_it() -> None:
    h = pair()
    await h.ask("Main", "Architect", "the task")
    await h.deliver("Architect")
    h.activity.grow(h.id("Architect"))
    await h.time.advance(20_000)

    assert h.lifecycle.terminal("Architect").written.count("\r") == 1
    await h.close()


async def test_an_attention_state_holds_deliveries_until_the_turn_moves_on() -> None:
    h = pair()
    h.hook("Architect", "Notification", message="Claude needs your permission to use Bash")
    await h.ask("Main", "Architect", "the task")
    await h.time.advance(9_000)  # within the time the asker waits before it is told (attention_notice_ms)
    assert h.written("Architect") == ""

    h.hook("Architect", "Stop")
    await h.deliver("Architect")
    await h.close()


async def test_a_blocking_prompt_on_screen_holds_deliveries() -> None:
    h = pair(claude_profile(blockingPrompts=["Do you trust the files in this folder?"]))
    terminal = h.lifecycle.terminal("Architect")
    terminal.screen = "Do you trust the files in this folder?\n 1. Yes, proceed"
    await h.ask("Main", "Architect", "the task")
    await h.time.advance(30_000)
    assert h.written("Architect") == ""

    terminal.screen = "> "
    await h.deliver("Architect")
    await h.close()


async def test_a_background_agent_gets_the_same_delivery_without_overlay() -> None:
    h = make_harness([("Main", claude_profile()), ("Git", claude_profile())])
    h.lifecycle.start("Main")
    h.lifecycle.start("Git", node_id=None)
    ask = await h.ask("Main", "Git", "reply pong-bg")
    ticket = await h.begin_turn("Git")
    await h.service.dispatch(h.agent("Git"), Reply("pong-bg", ticket), Source.UI)

    assert (await ask).reply == "pong-bg"
    assert not any("[delivery] suspend" in line for line in h.diagnostics.lines)
    await h.close()


async def test_a_refused_write_ends_the_ask_as_target_died_and_gives_the_keyboard_back() -> None:
    h = pair()
    portal = h.portal("Architect")

    async def refuse(text: str) -> None:
        raise AppError(ErrorCode.PROCESS, "the terminal's process has exited")

    h.lifecycle.terminal("Architect").write_text = refuse  # type: ignore[method-assign]
    ask = await h.ask("Main", "Architect", "the task")
    await h.time.run_until(ask.done, within_ms=5_000)

    with pytest.raises(AppError) as died:
        await ask
    assert died.value.code is ErrorCode.TARGET_DIED
    assert not portal.suspended
    await h.close()


async def test_a_file_protocol_target_without_a_portal_is_typed_into_directly() -> None:
    h = pair(file_protocol_profile())
    await h.ask("Main", "Architect", "the task")
    await h.deliver("Architect")
    await settle()

    assert h.written("Architect").startswith("[IdeA · task from Main · ticket ")
    await h.close()


async def test_deliveries_to_one_terminal_never_interleave() -> None:
    h = make_harness([("Main", claude_profile()), ("QA", claude_profile()), ("Architect", claude_profile())])
    for name in ("Main", "QA", "Architect"):
        h.lifecycle.start(name)
    portal = h.portal("Architect")
    first = await h.ask("Main", "Architect", "first")
    second = await h.ask("QA", "Architect", "second")
    ticket = await h.begin_turn("Architect")
    await h.service.dispatch(h.agent("Architect"), Reply("r", ticket), Source.UI)
    times = record_write_times(h, "Architect")
    await h.deliver("Architect")

    # The second is typed once the first was taken, without waiting for the first overlay's floor, which is
    # only visual: the overlay stays up from the first delivery through the second (its words now naming the
    # second's requester), then ends on its own.
    assert times and times[0][0] < 2_000
    assert [event for event, _ in portal.log] == ["suspend", "suspend"]
    assert portal.banners == ["Main is speaking — input paused", "QA is speaking — input paused"]
    await h.time.advance(15_000)  # the second's submission check (no turn hook here), then its floor
    assert [event for event, _ in portal.log] == ["suspend", "suspend", "release"]
    assert portal.log[-1][1] >= times[-1][0]
    await asyncio.gather(first, return_exceptions=True)
    second.cancel()
    await h.close()


async def test_an_empty_submit_sequence_still_submits_with_carriage_return() -> None:
    h = pair(claude_profile(submitSequence=""))
    await h.ask("Main", "Architect", "the task")
    await h.deliver("Architect")

    assert h.lifecycle.terminal("Architect").written[-1] == "\r"
    await h.close()


async def test_the_prompt_pattern_on_screen_never_ends_a_turn() -> None:
    h = pair(claude_profile(promptReadyPattern="? for shortcuts"))
    terminal = h.lifecycle.terminal("Architect")
    terminal.screen = "> \n  ? for shortcuts"  # Claude's banner is always there
    ask = await h.ask("Main", "Architect", "the task")
    ticket = await h.begin_turn("Architect")

    for _ in range(20):
        terminal.emit_output(b"\r\n> \r\n  ? for shortcuts")
        await h.time.advance(5_000)
    assert not ask.done()

    await h.service.dispatch(h.agent("Architect"), Reply("done", ticket), Source.UI)
    assert (await ask).reply == "done"
    await h.close()


async def test_the_turn_start_hook_wakes_the_delivery_at_once_and_frees_the_lane() -> None:
    """Back to back: when the first ask's turn starts and its reply comes at once, the next ask is typed at
    that same moment (no polling interval, no overlay floor in between)."""
    h = make_harness([("Main", claude_profile()), ("QA", claude_profile()), ("Architect", claude_profile())])
    for name in ("Main", "QA", "Architect"):
        h.lifecycle.start(name)
    h.portal("Architect")
    first = await h.ask("Main", "Architect", "first")
    second = await h.ask("QA", "Architect", "second")
    ticket = await h.deliver("Architect")
    times = record_write_times(h, "Architect")
    replied_at = h.time.monotonic_ms()
    h.hook("Architect", "UserPromptSubmit", prompt=h.last_delivery("Architect"))
    await h.service.dispatch(h.agent("Architect"), Reply("r", ticket), Source.UI)
    await settle()
    assert times and times[0][0] == replied_at  # the second's text, without any time passing
    assert "second" in times[0][1]
    await asyncio.gather(first, return_exceptions=True)
    second.cancel()
    await h.close()


async def test_a_cli_that_cannot_report_a_turn_is_not_resubmitted_nor_called_stuck() -> None:
    h = pair(file_protocol_profile(submitDelayMs=0))
    await h.ask("Main", "Architect", "the task")
    await h.deliver("Architect")
    await h.time.advance(20_000)

    assert h.lifecycle.terminal("Architect").written.count("\r") == 1
    assert not h.events.of_type(DeliveryMayBeStuck)
    await h.close()


async def test_output_after_the_submit_rereads_the_activity_token() -> None:
    """A CLI whose turn shows only in its transcript (Codex) is seen as soon as it prints something."""
    h = pair(claude_profile(hooks=None))
    h.activity.grow(h.id("Architect"), 10)
    await h.ask("Main", "Architect", "the task")
    await h.deliver("Architect")
    terminal = h.lifecycle.terminal("Architect")
    submitted_at = h.time.monotonic_ms()
    h.activity.grow(h.id("Architect"), 500)
    terminal.emit_output(b"\x1b[2K Working")
    await settle()
    await h.time.advance(1)
    assert terminal.written.count("\r") == 1
    assert h.time.monotonic_ms() - submitted_at < 100
    await h.close()
