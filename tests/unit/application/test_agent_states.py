"""The core's view of its agents beyond tickets: attention (hooks and screens), the asks told why, usage
limits and resumes (LR-10), liveness through the core (LR-11)."""

from __future__ import annotations

import asyncio

import pytest

from idea.domain.agent_states.attention import AttentionReason
from idea.domain.agent_states.events import (
    AgentAttentionCleared,
    AgentLivenessChanged,
    AgentNeedsAttention,
    AgentRateLimited,
    AgentResumed,
    AgentResumeScheduled,
)
from idea.domain.agent_states.liveness import Liveness
from idea.domain.agent_states.session_limit import HOUR_MS, RESUME_PROMPT
from idea.domain.agent_states.turn_failure import FailedTurn
from idea.domain.errors import AppError, ErrorCode
from idea.domain.orchestration.commands import Reply, Source
from idea.domain.profile import Profile
from tests.fakes_orchestration import settle
from tests.fakes_watching import FakeWatching
from tests.world import Harness, claude_profile, codex_profile, make_harness

TRUST = "Do you trust the files in this folder?"
NOTICE_MS = 10_000


def watched_team(
    target: str, profile: Profile, node: str | None, *, launched: bool = True
) -> tuple[Harness, FakeWatching]:
    """Main and `target` running (`target` in `node`, None: the background), the core watching `target`
    (once `launched`) through the fake watches."""
    holder: list[FakeWatching] = []

    def watching(time):  # type: ignore[no-untyped-def]
        holder.append(FakeWatching(time))
        return holder[0]

    h = make_harness([("Main", claude_profile()), (target, profile)], watching=watching)
    h.lifecycle.start("Main")
    h.lifecycle.start(target, node)
    if launched:
        h.service.agent_launched(h.id(target))
    return h, holder[0]


def rig(architect_node: str | None = None) -> tuple[Harness, FakeWatching]:
    return watched_team("Architect", claude_profile(blockingPrompts=[TRUST]), architect_node)


async def outcome_error(task: asyncio.Task) -> AppError:  # type: ignore[type-arg]
    with pytest.raises(AppError) as raised:
        await task
    return raised.value


async def test_a_background_agent_on_a_trust_dialog_raises_attention_and_its_asker_is_told_why() -> None:
    h, watching = rig(architect_node=None)
    watching.show("Architect", TRUST)  # its CLI starts on the dialog
    ask = await h.ask("Main", "Architect", "review the ports")
    await settle()
    [needs] = h.events.of_type(AgentNeedsAttention)
    assert (needs.agent_id, needs.reason, needs.visible) == (h.id("Architect"), AttentionReason.TRUST, False)

    await h.time.run_until(ask.done, within_ms=NOTICE_MS + 1_000)
    error = await outcome_error(ask)
    assert error.code is ErrorCode.TARGET_NEEDS_ATTENTION and error.retryable
    assert "trust its folder" in error.message and "background" in error.message
    assert "not delivered" in error.message
    assert h.written("Architect") == ""  # never typed into the dialog
    assert h.row("Architect") is None or h.row("Architect").ticket is None
    await h.close()


async def test_a_dialog_answered_in_time_lets_the_delivery_through() -> None:
    h, watching = rig(architect_node="cell-2")
    watching.show("Architect", TRUST)
    ask = await h.ask("Main", "Architect", "review the ports")
    await h.time.advance(NOTICE_MS // 2)
    assert h.written("Architect") == ""
    watching.show("Architect", None)
    ticket = await h.deliver("Architect")
    assert h.events.of_type(AgentAttentionCleared)
    await h.time.advance(NOTICE_MS)
    assert not ask.done()
    h.hook("Architect", "UserPromptSubmit", prompt=h.last_delivery("Architect"))
    await h.service.dispatch(h.agent("Architect"), Reply("done", ticket), Source.MCP)
    assert "reply from Architect" in (await ask).detail
    await h.close()


async def test_a_permission_prompt_mid_task_tells_the_asker_and_the_reply_still_reaches_it_later() -> None:
    h, _ = rig(architect_node="cell-2")
    ask = await h.ask("Main", "Architect", "run the tests")
    ticket = await h.begin_turn("Architect")
    h.hook("Architect", "Notification", message="Claude needs your permission to use Bash")
    await h.time.run_until(ask.done, within_ms=NOTICE_MS + 1_000)
    error = await outcome_error(ask)
    assert error.code is ErrorCode.TARGET_NEEDS_ATTENTION
    assert "permission" in error.message and "delivered to you later" in error.message
    with pytest.raises(AppError) as late:
        await h.service.dispatch(h.agent("Architect"), Reply("tests pass", ticket), Source.MCP)
    assert late.value.code is ErrorCode.TICKET_CLOSED  # saved, and shown to Main as a late reply
    await h.close()


async def test_an_idle_prompt_notification_holds_nothing() -> None:
    h, _ = rig(architect_node="cell-2")
    h.hook("Architect", "Notification", message="Claude is waiting for your input")
    await h.ask("Main", "Architect", "the task")
    await h.deliver("Architect")
    assert not h.events.of_type(AgentNeedsAttention)
    await h.close()


async def test_claude_notification_types_say_what_needs_the_person_mid_task() -> None:
    """Claude Code 2.1 types its notifications: one that tells of something over needs nobody, even mid-task;
    an MCP server's question through the CLI does."""
    h, _ = rig(architect_node="cell-2")
    await h.ask("Main", "Architect", "migrate the schema")
    await h.begin_turn("Architect")
    h.hook("Architect", "Notification", message="Authentication successful", notification_type="auth_success")
    h.hook("Architect", "Notification", message="Claude received your answer", notification_type="elicitation_response")
    await h.time.advance(10)
    assert not h.events.of_type(AgentNeedsAttention)
    h.hook("Architect", "Notification", message="db server needs your input", notification_type="elicitation_dialog")
    await h.time.advance(10)
    [needs] = h.events.of_type(AgentNeedsAttention)
    assert needs.reason is AttentionReason.QUESTION and needs.message == "db server needs your input"
    await h.close()


async def test_a_turn_that_failed_on_its_sign_in_asks_the_person_to_sign_in() -> None:
    h, _ = rig(architect_node="cell-2")
    await h.ask("Main", "Architect", "the task")
    await h.begin_turn("Architect")
    h.hook("Architect", "StopFailure", error="overloaded")
    await h.time.advance(10)
    assert not h.events.of_type(AgentNeedsAttention)  # a passing overload needs no one
    await h.ask("Main", "Architect", "another task")
    await h.begin_turn("Architect")
    h.hook("Architect", "StopFailure", error="authentication_failed", last_assistant_message="Please run /login")
    await h.time.advance(10)
    [needs] = h.events.of_type(AgentNeedsAttention)
    assert (needs.reason, needs.message) == (AttentionReason.SIGN_IN, "Please run /login")
    await h.close()


async def test_a_turn_that_failed_on_a_usage_limit_ends_the_ask_as_limited() -> None:
    """`StopFailure` with `rate_limit`: the message says when the limit resets, ahead of any transcript read."""
    h, _ = rig(architect_node="cell-2")
    ask = await h.ask("Main", "Architect", "review the ports")
    await h.begin_turn("Architect")
    reset = h.time.now_ms() + HOUR_MS
    h.hook("Architect", "StopFailure", error="rate_limit", last_assistant_message="Opus is experiencing high load")
    await h.time.advance(10)
    assert not h.events.of_type(AgentRateLimited)  # the same error type, no limit
    await h.begin_turn("Architect")
    h.hook("Architect", "StopFailure", error="rate_limit", last_assistant_message=f"limit @{reset}")
    error = await outcome_error(ask)
    assert error.code is ErrorCode.TARGET_RATE_LIMITED and error.data is not None
    assert error.data["resetsAtMs"] == reset and error.data["autoResume"] is True
    assert h.events.of_type(AgentResumeScheduled)[0].fire_at_ms == reset
    await h.close()


def codex_rig() -> tuple[Harness, FakeWatching]:
    return watched_team("Coder", codex_profile(), "cell-2")


async def test_a_codex_turn_ended_by_an_api_error_is_read_from_its_records_once_its_screen_settles() -> None:
    """Codex runs neither `notify` nor a hook when an API error ends its turn; only its rollout tells."""
    h, watching = codex_rig()
    ask = await h.ask("Main", "Coder", "implement it")
    await h.deliver("Coder")
    coder = h.id("Coder")
    older = FailedTurn("model_not_found", "The model does not exist", "an older request")
    watching.fail_turn(coder, older, settled="Coder")
    await h.time.advance(10_000)
    assert not ask.done()  # a failed turn of another prompt ends nothing

    failed = FailedTurn("model_not_found", "The model does not exist", h.last_delivery("Coder"))
    watching.fail_turn(coder, failed, settled="Coder")
    await h.time.run_until(ask.done, within_ms=3_000)
    error = await outcome_error(ask)
    assert error.code is ErrorCode.TARGET_RETURNED_NO_REPLY and error.retryable
    assert error.message.startswith("agent Coder's turn ended on an error of its model's API (model_not_found)")
    await h.close()


async def test_a_codex_record_written_after_its_screen_settled_is_read_by_the_next_sweep() -> None:
    h, watching = codex_rig()
    ask = await h.ask("Main", "Coder", "implement it")
    await h.deliver("Coder")
    reset = h.time.now_ms() + HOUR_MS
    watching.fail_turn(h.id("Coder"), FailedTurn("rate_limit", f"limit @{reset}", h.last_delivery("Coder")))
    await h.time.run_until(ask.done, within_ms=5_500, step_ms=100)
    error = await outcome_error(ask)
    assert error.code is ErrorCode.TARGET_RATE_LIMITED and error.data is not None
    assert error.data["resetsAtMs"] == reset
    [limited] = h.events.of_type(AgentRateLimited)
    assert limited.agent_id == h.id("Coder")
    await h.close()


async def test_a_codex_turn_refused_its_credentials_asks_the_person_to_sign_in() -> None:
    h, watching = codex_rig()
    await h.ask("Main", "Coder", "implement it")
    await h.deliver("Coder")
    message = "unexpected status 401 Unauthorized: Incorrect API key provided"
    failed = FailedTurn("authentication_failed", message, h.last_delivery("Coder"))
    watching.fail_turn(h.id("Coder"), failed, settled="Coder")
    await h.time.advance(10)
    [needs] = h.events.of_type(AgentNeedsAttention)
    assert (needs.agent_id, needs.reason, needs.message) == (h.id("Coder"), AttentionReason.SIGN_IN, message)
    await h.close()


async def test_only_a_cli_that_records_its_failed_turns_alone_gets_them_read() -> None:
    claude, watching = rig(architect_node="cell-2")
    assert watching.watches["Architect"].on_settled is None  # Claude says so with `StopFailure`
    codex, watching = codex_rig()
    assert watching.watches["Coder"].on_settled is not None
    await claude.close()
    await codex.close()


async def test_a_usage_limit_ends_the_asks_holds_deliveries_and_resumes_the_running_cli() -> None:
    h, watching = rig(architect_node="cell-2")
    ask = await h.ask("Main", "Architect", "review the ports")
    await h.begin_turn("Architect")
    reset = h.time.now_ms() + HOUR_MS
    watching.limit("Architect", reset, "Claude usage limit reached ∙ resets 3pm")
    error = await outcome_error(ask)
    assert error.code is ErrorCode.TARGET_RATE_LIMITED and not error.retryable
    assert error.data is not None and error.data["resetsAtMs"] == reset and error.data["autoResume"] is True
    assert f"resume it at @{reset}" in error.message
    assert h.row("Architect").status.value == "blocked"
    assert h.events.of_type(AgentRateLimited)[0].resets_at_ms == reset
    assert h.events.of_type(AgentResumeScheduled)[0].fire_at_ms == reset

    second = await h.ask("Main", "Architect", "another task")
    watching.limit("Architect", reset, "still limited")  # the same episode: nothing new
    assert not second.done()
    written = h.written("Architect")
    await h.time.advance(HOUR_MS - 60_000)
    assert h.written("Architect") == written  # held while limited
    await h.time.run_until(lambda: RESUME_PROMPT in h.written("Architect"), within_ms=120_000)
    assert h.lifecycle.launches == []  # the CLI was still running: typed in, not relaunched
    await h.time.run_until(lambda: bool(h.events.of_type(AgentResumed)), within_ms=1_000)
    second.cancel()
    await h.close()


async def test_an_exited_cli_is_relaunched_in_its_cell_when_its_limit_lifts() -> None:
    h, watching = rig(architect_node="cell-2")
    h.lifecycle.conversations[h.id("Architect")] = "conv-architect-main"  # resumed earlier on that one
    reset = h.time.now_ms() + HOUR_MS
    watching.limit("Architect", reset)
    h.lifecycle.terminal("Architect").exit(0)
    await settle()
    assert h.lifecycle.live(h.id("Architect")) is None
    await h.time.run_until(lambda: bool(h.lifecycle.launches), within_ms=HOUR_MS + 60_000)
    assert h.lifecycle.launches[0][:3] == (h.id("Architect"), "cell-2", True)
    assert h.lifecycle.launch_conversations == ["conv-architect-main"]  # the conversation its CLI carried
    await h.time.run_until(lambda: RESUME_PROMPT in h.written("Architect"), within_ms=120_000)
    await h.close()


async def test_a_limit_without_a_reset_time_asks_the_person_and_arms_nothing() -> None:
    h, watching = rig(architect_node="cell-2")
    ask = await h.ask("Main", "Architect", "the task")
    await h.begin_turn("Architect")
    watching.limit("Architect", None)
    error = await outcome_error(ask)
    assert error.code is ErrorCode.TARGET_RATE_LIMITED and error.data is not None
    assert error.data["autoResume"] is False and "could not tell when it resets" in error.message
    assert not h.events.of_type(AgentResumeScheduled)
    await h.close()


async def test_a_busy_agent_without_beats_is_stalled_once_and_revived_by_a_hook() -> None:
    h, _ = rig(architect_node="cell-2")
    ask = await h.ask("Main", "Architect", "a long task")
    await h.begin_turn("Architect")
    await h.time.advance(300_000 + 10_000)
    changes = [(e.agent_id, e.liveness) for e in h.events.of_type(AgentLivenessChanged)]
    assert changes == [(h.id("Architect"), Liveness.STALLED)]
    h.hook("Architect", "SubagentStop")
    changes = [(e.agent_id, e.liveness) for e in h.events.of_type(AgentLivenessChanged)]
    assert changes[-1] == (h.id("Architect"), Liveness.ALIVE) and len(changes) == 2
    ask.cancel()
    await h.close()


async def test_a_limit_record_in_the_claude_transcript_is_a_structured_detection() -> None:
    h, watching = rig(architect_node="cell-2")
    transcript = "/home/ada/.claude/projects/x/s.jsonl"
    h.hook("Architect", "SessionStart", transcript_path=transcript)
    ask = await h.ask("Main", "Architect", "the task")
    await h.begin_turn("Architect")
    reset = h.time.now_ms() + HOUR_MS
    watching.transcripts[transcript].pending.append((reset, "Claude AI usage limit reached|1781370000"))
    h.hook("Architect", "Stop", transcript_path=transcript)
    error = await outcome_error(ask)
    assert error.code is ErrorCode.TARGET_RATE_LIMITED
    limits = h.service.states.limits
    assert limits is not None and limits.limit_of(h.id("Architect")).source.value == "structured"  # type: ignore[union-attr]
    await h.close()


async def test_enter_in_the_agent_cell_while_a_resume_is_armed_hands_control_to_the_person() -> None:
    from idea.domain.agent_states.events import AgentResumeCancelled, ResumeCancelReason

    h, watching = watched_team("Architect", claude_profile(), "cell-2", launched=False)
    pressed: list = []
    h.lifecycle.terminal("Architect").on_line_submitted = lambda callback: pressed.append(callback)  # type: ignore[attr-defined]
    h.service.agent_launched(h.id("Architect"))
    watching.limit("Architect", h.time.now_ms() + HOUR_MS)
    assert h.service.states.holding(h.id("Architect")) == "usage-limit"
    pressed[0](None)
    assert h.events.of_type(AgentResumeCancelled) == [
        AgentResumeCancelled(h.id("Architect"), ResumeCancelReason.USER_TOOK_OVER)
    ]
    assert h.service.states.holding(h.id("Architect")) is None
    await h.close()
