"""Live-state rows and their rules (spec 03 §10)."""

from __future__ import annotations

import json

import pytest

from idea.domain.errors import AppError, ErrorCode
from idea.domain.orchestration.commands import WorkStatus
from idea.domain.orchestration.live_state import (
    FIELD_MAX_BYTES,
    LIVE_STATE_MAX_ENTRIES,
    LIVE_STATE_TTL_MS,
    STALE_AT_RESTART_MARKER,
    LiveEntry,
    LiveState,
    abandoned_marker,
    exited_marker,
)

NOW = 1_781_368_615_582
ORIGINAL_ROW = {
    "agentId": "dce19c75-9669-4e45-b8de-9950025157da",
    "status": "working",
    "intent": "review of the storage ports",
    "ticket": "3f2a9c1e-5d7b-4c1a-9e0f-2b6d8a4c7e11",
    "progress": "2/5 ports reviewed",
    "lastDelegation": None,
    "updatedAtMs": 1781368615582,
}


def test_the_spec_document_round_trips_with_explicit_nulls() -> None:
    document = {"version": 1, "entries": [ORIGINAL_ROW]}

    state = LiveState.from_json(document)

    assert state.to_json() == document
    assert json.dumps(state.to_json()).count("null") == 1


def test_empty_optionals_are_written_as_null() -> None:
    state = LiveState().with_row("a", NOW, status=WorkStatus.IDLE, intent="")

    assert state.to_json()["entries"][0] == {
        "agentId": "a",
        "status": "idle",
        "intent": None,
        "ticket": None,
        "progress": None,
        "lastDelegation": None,
        "updatedAtMs": NOW,
    }


def test_intent_and_progress_are_softly_truncated_to_200_characters() -> None:
    state = LiveState().with_row("a", NOW, status=WorkStatus.WORKING, intent="x" * 500, progress="é" * 300)

    row = state.row("a")
    assert row is not None and row.intent == "x" * 200 and row.progress == "é" * 200


def test_a_field_over_4096_bytes_is_rejected_as_invalid() -> None:
    with pytest.raises(AppError) as refused:
        LiveState().with_row("a", NOW, status=WorkStatus.WORKING, intent="é" * (FIELD_MAX_BYTES // 2 + 1))

    assert refused.value.code is ErrorCode.INVALID


def test_fields_left_out_of_a_change_keep_their_value_and_the_stamp_is_never_negative() -> None:
    state = LiveState().with_row("a", NOW, status=WorkStatus.WORKING, intent="build", ticket="t1")
    state = state.with_row("a", -5, status=WorkStatus.DONE)

    assert state.row("a") == LiveEntry("a", WorkStatus.DONE, "build", "t1", None, None, 0)


def test_prune_drops_rows_older_than_six_hours_then_keeps_the_64_most_recent() -> None:
    state = LiveState()
    state = state.with_row("old", NOW - LIVE_STATE_TTL_MS - 1, status=WorkStatus.IDLE)
    for index in range(70):
        state = state.with_row(f"agent-{index}", NOW - 1000 + index, status=WorkStatus.IDLE)

    pruned = state.pruned(NOW)

    kept = [entry.agent_id for entry in pruned.entries]
    assert len(kept) == LIVE_STATE_MAX_ENTRIES
    assert "old" not in kept and "agent-5" not in kept and kept[0] == "agent-6" and kept[-1] == "agent-69"


def test_the_lean_projection_never_shows_progress_nor_timestamps() -> None:
    entry = LiveEntry.from_json(ORIGINAL_ROW)

    assert entry.lean("Architect") == {
        "agentId": ORIGINAL_ROW["agentId"],
        "name": "Architect",
        "status": "working",
        "intent": "review of the storage ports",
        "ticket": ORIGINAL_ROW["ticket"],
        "lastDelegation": None,
    }


def test_reboot_reconciliation_marks_active_rows_of_dead_agents_stale() -> None:
    state = LiveState(
        (
            LiveEntry("main", WorkStatus.WORKING, "T10b orphan", "t1", None, "t0", 10),
            LiveEntry("waiting", WorkStatus.WAITING, None, None, None, "t2", 10),
            LiveEntry("blocked", WorkStatus.BLOCKED, "limit", "t3", "(usage limit)", None, 10),
            LiveEntry("live", WorkStatus.WORKING, "busy", "t4", None, None, 10),
            LiveEntry("done", WorkStatus.DONE, None, None, None, "t5", 10),
            LiveEntry("idle", WorkStatus.IDLE, None, None, None, None, 10),
        )
    )

    reconciled = state.reconciled(lambda agent: agent == "live", NOW)

    assert reconciled.row("main") == LiveEntry(
        "main", WorkStatus.IDLE, "T10b orphan", None, STALE_AT_RESTART_MARKER, None, NOW
    )
    assert STALE_AT_RESTART_MARKER == "(stale — session not running at restart)"
    assert reconciled.row("waiting").status is WorkStatus.IDLE  # type: ignore[union-attr]
    assert reconciled.row("blocked").progress == STALE_AT_RESTART_MARKER  # type: ignore[union-attr]
    for untouched in ("live", "done", "idle"):
        assert reconciled.row(untouched) == state.row(untouched)


def test_markers_name_the_code() -> None:
    assert abandoned_marker("TARGET_RETURNED_NO_REPLY") == "(abandoned: TARGET_RETURNED_NO_REPLY)"
    assert exited_marker(137) == "(exited: code 137)"
    assert exited_marker(None) == "(exited: code unknown)"


@pytest.mark.parametrize(
    "document",
    [[], {"entries": "x"}, {"entries": [{"status": "working"}]}, {"entries": [{**ORIGINAL_ROW, "status": "busy"}]}],
)
def test_an_unreadable_document_is_refused_whole(document: object) -> None:
    with pytest.raises((ValueError, TypeError)):
        LiveState.from_json(document)
