"""LR-11 (the pure part): busy agents without a beat become stalled once; a beat makes them alive once; idle
agents never stall; the stall that turns into the human net."""

from __future__ import annotations

from idea.domain.agent_states.liveness import (
    DEFAULT_STALL_AFTER_MS,
    HUMAN_NET_AFTER_STALL_MS,
    Liveness,
    LivenessBook,
    LivenessChange,
    stall_after_ms,
)
from idea.domain.profile import Profile

T0 = 1_781_368_615_582
STALL = 300_000


def threshold(_agent: str) -> int | None:
    return STALL


def profile(**extra: object) -> Profile:
    return Profile.from_json(
        {
            "id": "664cc20c-47b8-53ad-9351-dce3c09c0de4",
            "name": "Claude Code",
            "command": "claude",
            "contextInjection": {"strategy": "conventionFile", "target": "CLAUDE.md"},
            **extra,
        }
    )


def test_threshold_from_profile_else_default_only_with_an_activity_source() -> None:
    assert stall_after_ms(profile(liveness={"stallAfterMs": 90_000}), has_activity_source=False) == 90_000
    assert stall_after_ms(profile(), has_activity_source=True) == DEFAULT_STALL_AFTER_MS
    assert stall_after_ms(profile(), has_activity_source=False) is None


def test_busy_without_beat_stalls_once_and_a_beat_revives_once() -> None:
    book = LivenessBook()
    book.set_busy("a", True, T0)
    assert book.sweep(T0 + STALL - 1, threshold) == []
    assert book.sweep(T0 + STALL, threshold) == [LivenessChange("a", Liveness.STALLED, STALL)]
    assert book.sweep(T0 + STALL + 5000, threshold) == []
    assert book.liveness("a") is Liveness.STALLED
    assert book.beat("a", T0 + STALL + 6000) == LivenessChange("a", Liveness.ALIVE, STALL + 6000)
    assert book.beat("a", T0 + STALL + 7000) is None
    assert book.liveness("a") is Liveness.ALIVE


def test_beats_keep_a_busy_agent_alive() -> None:
    book = LivenessBook()
    book.set_busy("a", True, T0)
    for n in range(1, 10):
        book.beat("a", T0 + n * 200_000)
        assert book.sweep(T0 + n * 200_000 + 5000, threshold) == []


def test_idle_agents_never_stall_and_going_idle_revives() -> None:
    book = LivenessBook()
    book.beat("idle", T0)
    assert book.sweep(T0 + 10 * STALL, threshold) == []
    book.set_busy("a", True, T0)
    book.sweep(T0 + STALL, threshold)
    assert book.set_busy("a", False, T0 + STALL + 1) == LivenessChange("a", Liveness.ALIVE, STALL + 1)


def test_a_new_task_counts_silence_from_its_start() -> None:
    book = LivenessBook()
    book.beat("a", T0)
    book.set_busy("a", True, T0 + 10 * STALL)
    assert book.sweep(T0 + 10 * STALL + 1000, threshold) == []


def test_no_threshold_means_no_stall_detection() -> None:
    book = LivenessBook()
    book.set_busy("a", True, T0)
    assert book.sweep(T0 + 100 * STALL, lambda _a: None) == []


def test_human_net_once_per_stall_after_the_extra_minute() -> None:
    book = LivenessBook()
    book.set_busy("a", True, T0)
    book.sweep(T0 + STALL, threshold)
    assert book.due_for_human_net(T0 + STALL + HUMAN_NET_AFTER_STALL_MS - 1, threshold) == []
    assert book.due_for_human_net(T0 + STALL + HUMAN_NET_AFTER_STALL_MS, threshold) == ["a"]
    assert book.due_for_human_net(T0 + 3 * STALL, threshold) == []
    book.beat("a", T0 + 4 * STALL)
    book.sweep(T0 + 5 * STALL, threshold)
    assert book.due_for_human_net(T0 + 5 * STALL + HUMAN_NET_AFTER_STALL_MS, threshold) == ["a"]


def test_forget_revives_a_stalled_agent() -> None:
    book = LivenessBook()
    book.set_busy("a", True, T0)
    book.sweep(T0 + STALL, threshold)
    assert book.forget("a") == LivenessChange("a", Liveness.ALIVE, 0)
    assert book.forget("a") is None
