"""End to end (real PTYs, real socket, real bridges and hook relays): an agent that waits for the person is
seen within seconds, wherever it runs, and whoever waits on it learns why instead of waiting 600 s."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from idea.application.orchestrator import timing
from idea.domain.agent_states.attention import AttentionReason
from idea.domain.agent_states.events import AgentAttentionCleared, AgentNeedsAttention
from idea.domain.events import OrchestrationNews
from tests.integration.scenario_support import (
    ScenarioFactory,
    error_code,
    eventually,
    fake_profile,
    requester_client,
    result_text,
    scenario_factory,
)

TRUST = "Do you trust the files in this folder?"
ATTENTION_WITHIN_S = 5.0
NOTICE_MS = 2_000


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[ScenarioFactory]:
    yield from scenario_factory(tmp_path, monkeypatch)


class Seen:
    """The attention events of the app, with the time each arrived."""

    def __init__(self) -> None:
        self.events: list[tuple[float, object]] = []
        self._lock = threading.Lock()

    def __call__(self, event: object) -> None:
        if isinstance(event, OrchestrationNews) and isinstance(
            event.event, AgentNeedsAttention | AgentAttentionCleared
        ):
            with self._lock:
                self.events.append((time.monotonic(), event.event))

    def needs(self) -> list[tuple[float, AgentNeedsAttention]]:
        with self._lock:
            return [(at, e) for at, e in self.events if isinstance(e, AgentNeedsAttention)]


def trusting_profile():  # type: ignore[no-untyped-def]
    base = fake_profile("Fake Claude (asks for trust)")
    return base.with_changes({"args": [*base.args, "--trust-dialog"], "blockingPrompts": [TRUST]})


def test_a_background_delegated_agent_on_a_trust_dialog_is_seen_and_its_asker_learns_why(
    world: ScenarioFactory,
) -> None:
    scenario = world.open(warm=(), cold=(), timings={timing.ATTENTION_NOTICE_ENV: NOTICE_MS})
    scenario.add_agent("Architect", trusting_profile())
    seen = Seen()
    scenario.app.events.subscribe(seen)

    async def ask() -> tuple[object, float]:
        async with requester_client(scenario) as client:
            started = time.monotonic()
            result = await client.call_tool("idea_ask_agent", {"target": "Architect", "task": "reply hello"})
            return result, started

    result, asked_at = asyncio.run(ask())
    needs = seen.needs()
    assert needs, "no attention was raised"
    at, event = needs[0]
    assert event.agent_id == scenario.id_of("Architect")
    assert event.reason is AttentionReason.TRUST and event.visible is False  # cold-started in the background
    assert at - asked_at < ATTENTION_WITHIN_S
    assert error_code(result) == "TARGET_NEEDS_ATTENTION"
    text = result_text(result)
    assert "trust its folder" in text and "background" in text and "retry once they have answered" in text
    assert "ticket" not in scenario.screen("Architect")  # nothing was typed into the dialog
    assert scenario.live("Architect") is not None and scenario.live("Architect").node_id is None  # type: ignore[union-attr]

    # The person answers the dialog: the attention ends, and the next ask goes through.
    scenario.on_core(scenario.live("Architect").terminal.write_text("\r"))  # type: ignore[union-attr]
    eventually(lambda: any(isinstance(e, AgentAttentionCleared) for _, e in seen.events), "the attention to clear")
    scenario.wait_bridge("Architect")

    async def ask_again() -> object:
        async with requester_client(scenario) as client:
            return await client.call_tool("idea_ask_agent", {"target": "Architect", "task": "reply hello"})

    again = asyncio.run(ask_again())
    assert error_code(again) is None and result_text(again) == "hello"
