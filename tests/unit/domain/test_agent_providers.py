"""Spec 02 §14 (AG-11) and spec 01 §5.1: conversation ids, providers.json and running.json."""

from __future__ import annotations

from idea.domain.ids import conversation_for_pair
from idea.domain.providers import ProviderSessions, RunningAgent, RunningAgents

MAIN = "a6ced819-b893-4213-b003-9e9dc79b9641"
ARCHITECT = "dce19c75-9669-4e45-b8de-9950025157da"
PAIR = "7a2f446c-2efa-0c56-08dd-07cdc5cac19b"
ENGINE = "4b8e0c1a-7a32-4d2c-9a37-1c3e6f0b9d21"


def test_agent_pair_conversation_is_the_xor_of_both_ids_in_either_order() -> None:
    assert conversation_for_pair(MAIN, ARCHITECT) == PAIR
    assert conversation_for_pair(ARCHITECT, MAIN) == PAIR


def test_user_conversation_is_the_agent_id() -> None:
    assert conversation_for_pair(MAIN, None) == MAIN


def test_providers_document_shape() -> None:
    data = {
        "version": 1,
        "entries": [
            {"conversationId": MAIN, "provider": "claude", "engineSessionId": ENGINE, "updatedAtMs": 1781368615582}
        ],
    }

    sessions = ProviderSessions.from_json(data)

    assert sessions.to_json() == data
    assert sessions.engine_session_for(MAIN, "claude") == ENGINE
    assert sessions.engine_session_for(MAIN, "codex") is None
    assert sessions.engine_session_for(PAIR, "claude") is None


def test_recording_an_engine_id_replaces_the_entry_of_the_same_key_in_place() -> None:
    sessions = (
        ProviderSessions()
        .with_entry(MAIN, "claude", "11111111-1111-4111-8111-111111111111", 1)
        .with_entry(PAIR, "claude", "22222222-2222-4222-8222-222222222222", 2)
        .with_entry(MAIN, "codex", "33333333-3333-4333-8333-333333333333", 3)
        .with_entry(MAIN, "claude", ENGINE, 4)
    )

    assert [(e.conversation_id, e.provider, e.engine_session_id, e.updated_at_ms) for e in sessions.entries] == [
        (MAIN, "claude", ENGINE, 4),
        (PAIR, "claude", "22222222-2222-4222-8222-222222222222", 2),
        (MAIN, "codex", "33333333-3333-4333-8333-333333333333", 3),
    ]


def test_running_document_writes_a_background_agent_with_a_null_node() -> None:
    data = {
        "version": 1,
        "updatedAtMs": 1781368615582,
        "agents": [{"agentId": ARCHITECT, "nodeId": None, "conversationId": PAIR, "sinceMs": 1781368000000}],
    }

    assert RunningAgents.from_json(data).to_json() == data


def test_running_agents_are_replaced_and_removed_with_a_fresh_timestamp() -> None:
    running = RunningAgents().with_agent(RunningAgent(agent_id=MAIN, node_id="leaf-1", since_ms=10), now_ms=10)
    moved = running.with_agent(RunningAgent(agent_id=MAIN, node_id=None, since_ms=10), now_ms=20)

    assert moved.to_json() == {
        "version": 1,
        "updatedAtMs": 20,
        "agents": [{"agentId": MAIN, "nodeId": None, "sinceMs": 10}],
    }
    assert moved.without(MAIN, now_ms=30).to_json() == {"version": 1, "updatedAtMs": 30, "agents": []}


def test_running_agent_notes_its_usage_limit_and_omits_it_otherwise() -> None:
    running = RunningAgents().with_agent(RunningAgent(agent_id=MAIN, node_id=None, since_ms=10), now_ms=10)
    assert "limitedUntilMs" not in running.to_json()["agents"][0]
    limited = running.with_limit(MAIN, 1_781_370_000_000, now_ms=20)
    assert limited.to_json()["agents"][0]["limitedUntilMs"] == 1_781_370_000_000
    assert RunningAgents.from_json(limited.to_json()).by_agent(MAIN).limited_until_ms == 1_781_370_000_000  # type: ignore[union-attr]
    assert limited.with_limit("someone-else", 1, now_ms=30) is limited
    assert "limitedUntilMs" not in limited.with_limit(MAIN, None, now_ms=40).to_json()["agents"][0]
