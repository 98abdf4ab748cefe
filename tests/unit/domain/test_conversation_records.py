"""`log.jsonl` records, page rules and the rotation policy (spec 04 §3, §7, §8; KN-1, KN-5, KN-7)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from idea.domain.knowledge.conversation_log import ConversationTurn, TurnRole, UnreadableTurn, parse_turn
from idea.domain.knowledge.conversation_pages import (
    Direction,
    PageCursor,
    TurnPage,
    clamp_limit,
    cursor_from,
    page_of,
    parse_direction,
)
from idea.domain.knowledge.log_rotation import (
    Archive,
    RotationThresholds,
    Skip,
    archive_name,
    archive_number,
    archives_beyond_backstop,
    next_archive_number,
    rotation_plan,
)
from idea.domain.orchestration.tickets import AgentSource, HumanSource

# Line 2 of the original's log (003_01c39438a6ce3029.txt), text shortened.
ORIGINAL_LINE = (
    '{"id":"88f405da-f9c9-44bb-96c9-7e1b0e5af557","conversation":"6ffc1f69-77a5-0da1-1965-ef26d1df72f5",'
    '"atMs":1781368615582,"source":{"kind":"agent","agentId":"c932c770-cf36-4fb2-a966-71bb1644e4b4"},'
    '"role":"response","text":"(1) Confirmation : message bien reçu … ✅"}'
)
CONVERSATION = "6ffc1f69-77a5-0da1-1965-ef26d1df72f5"


def test_kn1_a_record_of_the_original_log_parses_and_is_written_back_identically() -> None:
    turn = parse_turn(ORIGINAL_LINE)

    assert turn.source == AgentSource("c932c770-cf36-4fb2-a966-71bb1644e4b4")
    assert turn.role is TurnRole.RESPONSE and turn.at_ms == 1781368615582
    assert turn.to_line() == ORIGINAL_LINE + "\n"
    assert list(json.loads(turn.to_line())) == ["id", "conversation", "atMs", "source", "role", "text"]


def test_idea_fields_come_after_the_original_keys_and_unknown_keys_are_ignored() -> None:
    turn = ConversationTurn("t", CONVERSATION, 5, HumanSource(), TurnRole.PROMPT, "x", ticket="k", target="a", late=True)
    assert list(json.loads(turn.to_line())) == [
        "id", "conversation", "atMs", "source", "role", "text", "ticket", "target", "late",
    ]
    record = json.loads(turn.to_line()) | {"newKey": {"nested": 1}}
    assert parse_turn(json.dumps(record)) == turn


@pytest.mark.parametrize(
    "line",
    [
        '{"id":"88f405da","conversation":"c","atMs":1,"source":{"kind":"human"},"role":"prom',  # torn
        "[1, 2]",
        '{"id":"x","conversation":"c","atMs":"soon","source":{"kind":"human"},"role":"prompt","text":""}',
        '{"id":"x","conversation":"c","atMs":1,"source":{"kind":"robot"},"role":"prompt","text":""}',
        '{"id":"x","conversation":"c","atMs":1,"source":{"kind":"human"},"role":"shout","text":""}',
    ],
)
def test_lines_that_are_not_turns_say_why(line: str) -> None:
    with pytest.raises(UnreadableTurn):
        parse_turn(line)


def turns(count: int) -> list[ConversationTurn]:
    return [
        ConversationTurn(f"00000000-0000-4000-8000-{i:012d}", CONVERSATION, i, HumanSource(), TurnRole.PROMPT, f"t{i}")
        for i in range(count)
    ]


def test_kn7_limits_default_to_50_and_are_clamped() -> None:
    assert [clamp_limit(value) for value in (None, 0, -5, 1, 77, 200, 201, 10_000)] == [50, 50, 1, 1, 77, 200, 200, 200]


def test_kn7_directions_and_anchors_parse_leniently() -> None:
    assert parse_direction("FORWARD") is Direction.FORWARD
    assert parse_direction("forwards") is Direction.BACKWARD
    assert parse_direction(None) is Direction.BACKWARD
    assert cursor_from("not-a-uuid", "forward") == PageCursor(None, Direction.FORWARD)
    assert cursor_from("00000000-0000-4000-8000-00000000000A", None).anchor == "00000000-0000-4000-8000-00000000000a"


def test_kn7_pages_in_both_directions_with_and_without_anchors() -> None:
    all_turns = turns(120)
    newest = page_of(all_turns, PageCursor(), None)
    assert [t.at_ms for t in newest.turns] == list(range(70, 120)) and newest.has_more

    before = page_of(all_turns, PageCursor(all_turns[70].id), 50)
    assert [t.at_ms for t in before.turns] == list(range(20, 70)) and before.has_more
    oldest = page_of(all_turns, PageCursor(all_turns[20].id), 50)
    assert [t.at_ms for t in oldest.turns] == list(range(0, 20)) and not oldest.has_more

    first = page_of(all_turns, PageCursor(direction=Direction.FORWARD), 30)
    assert [t.at_ms for t in first.turns] == list(range(0, 30)) and first.has_more
    after = page_of(all_turns, PageCursor(all_turns[100].id, Direction.FORWARD), 30)
    assert [t.at_ms for t in after.turns] == list(range(101, 120)) and not after.has_more

    unknown = page_of(all_turns, PageCursor("00000000-0000-4000-8000-999999999999"), 10)
    assert unknown == page_of(all_turns, PageCursor(), 10)  # the thread-end page


def test_the_page_a_viewer_receives_carries_full_texts_and_the_last_turn_as_next_anchor() -> None:
    long_turn = ConversationTurn("a", CONVERSATION, 1, HumanSource(), TurnRole.PROMPT, "é" * 40_000)
    page = TurnPage((long_turn,), has_more=False).to_json()
    assert page["turns"][0]["text"] == "é" * 40_000 and page["turns"][0]["textLen"] == 40_000
    assert page["nextAnchor"] == "a" and page["hasMore"] is False
    assert TurnPage((), False).to_json() == {"turns": [], "hasMore": False, "nextAnchor": None}


THRESHOLDS = RotationThresholds()


def test_kn5_rotation_at_500_turns_or_1_mib_and_never_past_the_handoff_cursor() -> None:
    assert rotation_plan(499, 10, 400, THRESHOLDS) == Skip("below both thresholds")
    assert rotation_plan(500, 10, 400, THRESHOLDS) == Archive(keep_from=400)
    assert rotation_plan(3, 1024 * 1024, 2, THRESHOLDS) == Archive(keep_from=2)
    assert isinstance(rotation_plan(900, 10, None, THRESHOLDS), Skip)  # no handoff: skip
    assert isinstance(rotation_plan(900, 10, 0, THRESHOLDS), Skip)  # the cursor is the first turn


@given(st.integers(0, 2000), st.integers(0, 3 * 1024 * 1024), st.one_of(st.none(), st.integers(0, 2000)))
def test_inv_ls6_a_plan_never_archives_the_cursor_turn_or_later(turns_: int, size: int, floor: int | None) -> None:
    if floor is not None and floor >= turns_:
        floor = None if turns_ == 0 else turns_ - 1
    decision = rotation_plan(turns_, size, floor, THRESHOLDS)
    if isinstance(decision, Archive):
        assert floor is not None and 0 < decision.keep_from <= floor


def test_archives_are_numbered_in_creation_order_and_the_backstop_drops_the_oldest() -> None:
    assert archive_name(3) == "log.3.jsonl" and archive_number("log.3.jsonl") == 3
    assert [archive_number(n) for n in ("log.jsonl", "log.03.jsonl", "log.x.jsonl", "log.3.jsonl.tmp")] == [None] * 4
    assert next_archive_number([2, 5, 3]) == 6 and next_archive_number([]) == 1
    assert archives_beyond_backstop(range(1, 22)) == [1]  # the 21st archive drops the oldest
    assert archives_beyond_backstop(range(5, 25), 20) == []
