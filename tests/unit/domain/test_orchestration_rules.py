"""Overrides, exact error messages (spec 03 §9.3, §9.7, 00 §9), tickets and conversation-log records."""

from __future__ import annotations

import json

import pytest

from idea.domain.errors import ErrorCode
from idea.domain.knowledge.conversation_log import ConversationTurn, TurnRole
from idea.domain.orchestration import rules
from idea.domain.orchestration.tickets import (
    AgentSource,
    CancelSource,
    HumanSource,
    Ticket,
    TicketEnd,
    TicketEndKind,
    TicketKind,
    preview,
)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("1234", 1234),
        (" 90000 ", 90000),
        ("0", None),
        ("-5", None),
        ("", None),
        ("abc", None),
        ("1.5", None),
        ("١٢", None),
        (None, None),
    ],
)
def test_only_a_positive_integer_overrides_a_duration(raw: str | None, expected: int | None) -> None:
    assert rules.parse_override_ms(raw) == expected


def verdict(kind: TicketEndKind, **end: object) -> tuple[str, ErrorCode, bool]:
    error = rules.verdict_error(
        TicketEnd(kind, **end),  # type: ignore[arg-type]
        "Architect",
        "Main",
        ticket_id="t1",
        elapsed_ms=23410,
        window_ms=600_000,
    )
    assert error.data == {"ticket": "t1", "target": "Architect", "elapsedMs": 23410}
    return error.message, error.code, error.retryable


def test_no_reply_verdict() -> None:
    assert verdict(TicketEndKind.NO_REPLY) == (
        (
            "agent Architect returned to its prompt without calling idea_reply (no answer was rendered); retry the "
            "request and ensure the agent replies via idea_reply"
        ),
        ErrorCode.TARGET_RETURNED_NO_REPLY,
        True,
    )


def test_timeout_verdict_names_the_window_in_seconds() -> None:
    assert verdict(TicketEndKind.TIMED_OUT) == (
        "agent Architect showed no activity for 600 s and did not reply; retry or check it",
        ErrorCode.RENDEZVOUS_TIMEOUT,
        True,
    )


def test_ceiling_verdict_is_not_retryable() -> None:
    assert verdict(TicketEndKind.CEILING_REACHED) == (
        (
            "target Architect is still actively working but the rendezvous ceiling was reached; do not retry "
            "blindly — check the target's in-progress work/branch (it may still finish and call idea_reply), then "
            "re-solicit lightly if needed"
        ),
        ErrorCode.RENDEZVOUS_CEILING_ACTIVE,
        False,
    )


def test_death_stop_and_cancellation_verdicts() -> None:
    assert verdict(TicketEndKind.TARGET_DIED, exit_code=137) == (
        "agent Architect exited (code 137) before replying",
        ErrorCode.TARGET_DIED,
        True,
    )
    assert verdict(TicketEndKind.TARGET_STOPPED)[1:] == (ErrorCode.TARGET_STOPPED, False)
    assert verdict(TicketEndKind.CANCELLED, cancel_source=CancelSource.USER) == (
        "the user cancelled this delegation to Architect",
        ErrorCode.CANCELLED,
        False,
    )


def test_a_served_ticket_has_no_verdict() -> None:
    with pytest.raises(ValueError):
        verdict(TicketEndKind.REPLIED, result="ok")


def test_refusals_name_the_agent() -> None:
    assert rules.agent_not_found("Archi", ["Main", "Architect"]).message == (
        "agent 'Archi' not found; known agents: Main, Architect"
    )
    assert rules.delegation_cycle("Architect", ["Architect", "Main"]).message == (
        "asking Architect would create a delegation cycle: Architect is waiting on Main"
    )
    assert rules.delegation_cycle("C", ["C", "B", "A"]).message == (
        "asking C would create a delegation cycle: C is waiting on B, which is waiting on A"
    )
    assert rules.delegation_cycle("Main", ["Main"]).message == (
        "asking Main would create a delegation cycle: Main cannot ask itself"
    )
    assert rules.bridge_unsupported("Gem", "Custom MCP").message == (
        "agent Gem (profile Custom MCP) cannot receive IdeA delegations"
    )
    assert rules.no_pending_request("QA").message == "no pending request to reply to for agent QA"


def test_ticket_closed_says_whether_the_result_will_be_shown() -> None:
    late = rules.ticket_closed("t1", "Main", TicketEnd(TicketEndKind.TIMED_OUT))
    cancelled = rules.ticket_closed("t1", "Main", TicketEnd(TicketEndKind.CANCELLED, cancel_source=CancelSource.USER))

    assert late.code is ErrorCode.TICKET_CLOSED
    assert late.message == (
        "the requester is no longer waiting for ticket t1; your result was saved and will be shown to Main"
    )
    assert cancelled.message == "the delegation was cancelled; your result was saved"


def test_a_human_ticket_is_correlated_by_its_text_and_others_by_their_id() -> None:
    human = Ticket("t1", "b", HumanSource(), "you", "c", "look  at\nline 12", False, 0, TicketKind.HUMAN)
    late = Ticket("t2", "b", AgentSource("a"), "A", "c", "done", False, 0, TicketKind.LATE_REPLY, about_ticket="t0")

    assert human.correlation_key == "look at line 12"
    assert late.correlation_key == "t0"
    assert late.requester_agent == "a" and human.requester_agent is None


def test_previews_collapse_whitespace_and_cut_without_ellipsis() -> None:
    assert preview("  a\n\nb   c  ", 3) == "a b"


def test_a_conversation_record_has_the_original_keys_in_order_and_compact_form() -> None:
    turn = ConversationTurn(
        id="88f405da-f9c9-44bb-96c9-7e1b0e5af557",
        conversation="6ffc1f69-77a5-0da1-1965-ef26d1df72f5",
        at_ms=1781368615582,
        source=AgentSource("c932c770-cf36-4fb2-a966-71bb1644e4b4"),
        role=TurnRole.RESPONSE,
        text="(1) Confirmation: message reçu …",
    )

    assert turn.to_line() == (
        '{"id":"88f405da-f9c9-44bb-96c9-7e1b0e5af557","conversation":"6ffc1f69-77a5-0da1-1965-ef26d1df72f5",'
        '"atMs":1781368615582,"source":{"kind":"agent","agentId":"c932c770-cf36-4fb2-a966-71bb1644e4b4"},'
        '"role":"response","text":"(1) Confirmation: message reçu …"}\n'
    )


def test_optional_record_fields_appear_only_when_set() -> None:
    turn = ConversationTurn("i", "c", 1, HumanSource(), TurnRole.PROMPT, "multi\nline", ticket="t", target="b")
    late = ConversationTurn("j", "c", 2, AgentSource("b"), TurnRole.RESPONSE, "r", ticket="t", late=True)

    assert list(json.loads(turn.to_line())) == [
        "id",
        "conversation",
        "atMs",
        "source",
        "role",
        "text",
        "ticket",
        "target",
    ]
    assert json.loads(late.to_line())["late"] is True
    assert turn.to_line().count("\n") == 1
