"""LR-11 through the monitor; the attention board; desktop alerts and their rules."""

from __future__ import annotations

import asyncio

import pytest

from idea.application.attention import AttentionBoard
from idea.application.desktop_alerts import DesktopAlerts
from idea.application.liveness import LivenessMonitor
from idea.application.notifications import DesktopNote, NotificationKind
from idea.domain.agent_states.attention import AttentionOrigin, AttentionReason
from idea.domain.agent_states.events import AgentAttentionCleared, AgentLivenessChanged, AgentNeedsAttention
from idea.domain.agent_states.liveness import HUMAN_NET_AFTER_STALL_MS, Liveness
from tests.fakes import FakeClock, RecordingDiagnostics, RecordingEvents

STALL = 300_000


class Ticks:
    """A Timer whose sleeps end when the test says."""

    def __init__(self) -> None:
        self.wake = asyncio.Event()
        self.sleeps = 0

    def monotonic_ms(self) -> int:
        return 0

    async def sleep(self, ms: int) -> None:
        self.sleeps += 1
        await self.wake.wait()
        self.wake.clear()


class MonitorRig:
    def __init__(self) -> None:
        self.clock = FakeClock()
        self.events = RecordingEvents()
        self.tokens: dict[str, int | None] = {}
        self.suspected: list[str] = []
        self.timer = Ticks()
        self.monitor = LivenessMonitor(
            clock=self.clock,
            timer=self.timer,
            events=self.events,
            diagnostics=RecordingDiagnostics(),
            threshold_of=lambda agent: None if agent == "blind" else STALL,
            token_of=lambda agent: self.tokens.get(agent),
            on_stall_suspected=self.suspected.append,
        )

    def changes(self) -> list[tuple[str, Liveness]]:
        return [(e.agent_id, e.liveness) for e in self.events.of_type(AgentLivenessChanged)]


def test_busy_without_beats_stalls_once_and_a_hook_beat_revives_once() -> None:
    rig = MonitorRig()
    rig.monitor.busy_changed("a", True)
    rig.clock.advance(STALL)
    rig.monitor.sweep()
    rig.clock.advance(5000)
    rig.monitor.sweep()
    assert rig.changes() == [("a", Liveness.STALLED)]
    rig.monitor.beat("a")
    rig.monitor.beat("a")
    assert rig.changes() == [("a", Liveness.STALLED), ("a", Liveness.ALIVE)]


def test_transcript_growth_is_a_beat() -> None:
    rig = MonitorRig()
    rig.tokens["a"] = 100
    rig.monitor.busy_changed("a", True)
    for step in range(1, 8):
        rig.clock.advance(STALL // 2)
        rig.tokens["a"] = 100 + step
        rig.monitor.sweep()
    assert rig.changes() == []
    rig.clock.advance(STALL)
    rig.monitor.sweep()  # no growth for a whole threshold
    assert rig.changes() == [("a", Liveness.STALLED)]
    rig.tokens["a"] = 200
    rig.monitor.sweep()
    assert rig.changes()[-1] == ("a", Liveness.ALIVE)


def test_idle_agents_and_agents_without_a_source_never_stall() -> None:
    rig = MonitorRig()
    rig.monitor.beat("idle")
    rig.monitor.busy_changed("blind", True)
    rig.clock.advance(10 * STALL)
    rig.monitor.sweep()
    assert rig.changes() == []


def test_a_long_stall_asks_the_person_once_and_an_exit_revives() -> None:
    rig = MonitorRig()
    rig.monitor.busy_changed("a", True)
    rig.clock.advance(STALL)
    rig.monitor.sweep()
    rig.clock.advance(HUMAN_NET_AFTER_STALL_MS)
    rig.monitor.sweep()
    rig.clock.advance(5000)
    rig.monitor.sweep()
    assert rig.suspected == ["a"]
    rig.monitor.agent_exited("a")
    assert rig.changes() == [("a", Liveness.STALLED), ("a", Liveness.ALIVE)]


async def test_run_sweeps_every_interval_and_survives_a_broken_probe() -> None:
    rig = MonitorRig()

    def broken(_agent: str) -> int | None:
        raise OSError("gone")

    rig.monitor._token_of = broken  # noqa: SLF001
    rig.monitor.busy_changed("a", True)
    rig.clock.advance(STALL)
    task = asyncio.create_task(rig.monitor.run())
    await asyncio.sleep(0)
    rig.timer.wake.set()
    for _ in range(20):
        await asyncio.sleep(0)
    task.cancel()
    assert rig.changes() == [("a", Liveness.STALLED)]


# --- attention ---------------------------------------------------------------------------------------------


class BoardRig:
    def __init__(self) -> None:
        self.clock = FakeClock()
        self.events = RecordingEvents()
        self.visible = {"a": False}
        self.board = AttentionBoard(
            clock=self.clock,
            events=self.events,
            diagnostics=RecordingDiagnostics(),
            name_of=lambda agent: {"a": "Architect"}.get(agent, agent),
            visible_of=lambda agent: self.visible.get(agent, True),
        )
        self.told: list[tuple[str, object]] = []
        self.board.subscribe(lambda agent, attention: self.told.append((agent, attention)))


def test_attention_is_published_once_per_change_and_told_to_listeners() -> None:
    rig = BoardRig()
    trust = "Do you trust the files in this folder?"
    assert rig.board.raise_attention("a", AttentionReason.TRUST, trust, AttentionOrigin.SCREEN)
    assert not rig.board.raise_attention("a", AttentionReason.TRUST, trust, AttentionOrigin.SCREEN)
    assert rig.events.events == [AgentNeedsAttention("a", AttentionReason.TRUST, trust, visible=False)]
    assert rig.board.holds_delivery("a")
    [entry] = rig.board.entries()
    assert (entry.agent_name, entry.visible) == ("Architect", False)
    rig.board.turn_moved("a")  # a turn does not clear what the screen shows
    assert rig.board.current("a") is not None
    rig.board.screen_clear("a")
    assert rig.events.events[-1] == AgentAttentionCleared("a")
    assert [attention is None for _, attention in rig.told] == [False, True]
    assert not rig.board.holds_delivery("a")


def test_hook_attention_ends_with_the_next_turn_and_idea_notices_do_not_hold_deliveries() -> None:
    rig = BoardRig()
    rig.board.raise_attention("a", AttentionReason.PERMISSION, "needs your permission", AttentionOrigin.HOOK)
    rig.board.screen_clear("a")
    assert rig.board.current("a") is not None
    rig.board.turn_moved("a")
    assert rig.board.current("a") is None
    rig.board.raise_attention("a", AttentionReason.DELIVERY_STUCK, "", AttentionOrigin.CORE)
    assert rig.board.current("a") is not None and not rig.board.holds_delivery("a")


def test_a_dialog_on_screen_is_not_replaced_by_idea_guess() -> None:
    rig = BoardRig()
    rig.board.raise_attention("a", AttentionReason.SIGN_IN, "Sign in with ChatGPT", AttentionOrigin.SCREEN)
    assert not rig.board.raise_attention("a", AttentionReason.NOT_STARTED, "", AttentionOrigin.CORE)
    attention = rig.board.current("a")
    assert attention is not None and attention.reason is AttentionReason.SIGN_IN


# --- desktop alerts ----------------------------------------------------------------------------------------


class FakeNotifications:
    def __init__(self, available: bool = True) -> None:
        self.available = available
        self.shown: list[DesktopNote] = []
        self.withdrawn: list[str] = []

    async def show(self, note: DesktopNote) -> bool:
        self.shown.append(note)
        return self.available

    async def withdraw(self, key: str) -> None:
        self.withdrawn.append(key)


def alerts(notifications: FakeNotifications) -> tuple[DesktopAlerts, list[tuple[str, str]], list[DesktopNote]]:
    focused: list[tuple[str, str]] = []
    tray: list[DesktopNote] = []
    return (
        DesktopAlerts(
            notifications=notifications,
            diagnostics=RecordingDiagnostics(),
            focus_agent=lambda project, agent: focused.append((project, agent)),
            tray_fallback=tray.append,
            format_time=lambda ms: "15:00",
        ),
        focused,
        tray,
    )


async def settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


@pytest.mark.parametrize("window_active", [True, False])
async def test_alerts_only_when_the_window_is_not_active(window_active: bool) -> None:
    notifications = FakeNotifications()
    desktop, focused, _ = alerts(notifications)
    desktop.window_active = window_active
    board = BoardRig()
    board.board.raise_attention("a", AttentionReason.TRUST, "Do you trust…", AttentionOrigin.SCREEN)
    desktop.attention("p", "a", "Architect", board.board.current("a"), visible=False)
    await settle()
    assert len(notifications.shown) == (0 if window_active else 1)
    if not window_active:
        note = notifications.shown[0]
        assert note.title == "Architect asks whether you trust its folder"
        assert "background" in note.body
        assert note.on_click is not None
        note.on_click()
        assert focused == [("p", "a")]


async def test_each_kind_can_be_turned_off_and_cleared_attention_is_withdrawn() -> None:
    notifications = FakeNotifications()
    desktop, _, _ = alerts(notifications)
    desktop.window_active = False
    desktop.enabled = frozenset({NotificationKind.ATTENTION})
    desktop.limited("p", "a", "Architect", 1)
    desktop.human_net("p", "a", "Architect seems blocked by a usage limit")
    await settle()
    assert notifications.shown == []
    desktop.enabled = frozenset(NotificationKind)
    desktop.limited("p", "a", "Architect", 1)
    desktop.attention("p", "a", "Architect", None, visible=True)
    await settle()
    assert notifications.shown[0].title == "Architect hit its usage limit until 15:00"
    assert notifications.withdrawn == ["attention:p:a"]


async def test_without_a_desktop_service_the_tray_shows_the_note() -> None:
    notifications = FakeNotifications(available=False)
    desktop, _, tray = alerts(notifications)
    desktop.window_active = False
    desktop.resumed("p", "a", "Architect")
    await settle()
    assert [note.title for note in tray] == ["Architect was resumed"]
