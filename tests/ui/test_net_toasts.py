"""The human net in the window (spec 05 §10): non-modal toasts over the grid, one per agent, besides the
entries under Needs you; never a modal dialog, however many agents ask at once. On a real bootstrap, with
agents running a fake CLI in the background."""

from __future__ import annotations

from PySide6.QtCore import QDateTime
from PySide6.QtWidgets import QApplication, QDialog, QPushButton, QWidget
from pytestqt.qtbot import QtBot

from idea.domain.agent_states.events import AgentRateLimitSuspected, SuspicionReason
from idea.domain.events import OrchestrationNews
from idea.ui.agents.net_toast_overlay import NetToastCard, NetToastOverlay
from tests.ui.test_agent_queue import (  # noqa: F401 - fixtures reused as they are
    Setup,
    alert,
    launch_in_background,
    new_agent,
    quick_delivery,
    setup,
    wait,
    world,
)


def press(card: NetToastCard, text: str) -> None:
    next(b for b in card.findChildren(QPushButton) if b.text() == text).click()


def overlay_on(s: Setup, qtbot: QtBot) -> tuple[QWidget, NetToastOverlay]:
    host = QWidget()
    qtbot.addWidget(host)
    host.resize(900, 600)
    host.show()
    return host, s.panel.attach_toasts(host)


def test_two_agents_at_a_limit_without_a_reset_get_two_toasts_and_no_modal_dialog(
    setup: Setup, qtbot: QtBot
) -> None:
    s = setup
    host, toasts = overlay_on(s, qtbot)
    scout = new_agent(s, qtbot, "Scout")
    launch_in_background(s, qtbot, scout)
    builder = new_agent(s, qtbot, "Builder")
    launch_in_background(s, qtbot, builder)
    states = s.runtime.orchestrator.states
    assert not toasts.isVisible()

    s.world.sync(lambda: states.limit_seen(scout, None, "usage limit reached"))
    wait(qtbot, lambda: len(toasts.cards()) == 1)
    s.world.sync(lambda: states.limit_seen(builder, None, "usage limit reached"))
    wait(qtbot, lambda: len(toasts.cards()) == 2)
    newest, oldest = toasts.cards()
    assert newest.toast.agent_id == builder and oldest.toast.agent_id == scout
    assert "Scout seems blocked by a usage limit, but IdeA could not read when it resets." in oldest.label.text()
    assert "in the background" in oldest.title.text()
    assert toasts.isVisible() and host.rect().contains(toasts.geometry())
    assert toasts.geometry().bottom() > host.height() // 2  # in the bottom-right corner, over the grid
    assert QApplication.activeModalWidget() is None and not host.findChildren(QDialog)
    assert len(s.panel.needs_you.entry_texts()) == 2  # listed under Needs you as well

    # Closed: the toast goes, the net stays under Needs you.
    newest.close_button.click()
    wait(qtbot, lambda: [c.toast.agent_id for c in toasts.cards()] == [scout])
    assert not toasts.more.isVisible() and len(s.panel.needs_you.entry_texts()) == 2

    # Answered from the toast: the resume is armed at the time given, and the net closes everywhere.
    card = toasts.cards()[0]
    at = s.runtime.clock.now_ms() + 2 * 3_600_000
    card.time_edit.setDateTime(QDateTime.fromMSecsSinceEpoch(at))
    press(card, "Resume at this time")
    wait(qtbot, lambda: not toasts.cards())
    wait(qtbot, lambda: "resumes in" in alert(s))
    limit = s.world.sync(lambda: states.limits.limit_of(scout))  # type: ignore[union-attr]
    assert limit is not None and abs(limit.resets_at_ms - at) < 60_000
    assert len(s.panel.needs_you.entry_texts()) == 1

    # "Not a limit — dismiss" under Needs you closes Builder's net; nothing is left to show.
    dismiss = next(b for b in s.panel.needs_you.findChildren(QPushButton) if b.text() == "Not a limit — dismiss")
    dismiss.click()
    wait(qtbot, lambda: not s.panel.needs_you.entry_texts())
    assert not toasts.isVisible()
    assert s.world.sync(lambda: states.limits.limit_of(builder)) is None  # type: ignore[union-attr]


def test_a_toast_answers_not_a_limit_and_a_new_raising_shows_it_again(setup: Setup, qtbot: QtBot) -> None:
    s = setup
    _host, toasts = overlay_on(s, qtbot)
    scout = new_agent(s, qtbot, "Scout")
    launch_in_background(s, qtbot, scout)
    states = s.runtime.orchestrator.states
    s.world.sync(lambda: states.limit_seen(scout, None, "usage limit reached"))
    wait(qtbot, lambda: len(toasts.cards()) == 1)
    press(toasts.cards()[0], "Not a limit — dismiss")
    wait(qtbot, lambda: not toasts.isVisible())
    wait(qtbot, lambda: alert(s) == "")  # the limit badge goes with the net
    assert not s.panel.needs_you.entry_texts()

    s.world.sync(lambda: states.limit_seen(scout, None, "usage limit reached, again"))
    wait(qtbot, lambda: len(toasts.cards()) == 1)


def test_a_failed_automatic_resume_is_a_toast_that_says_why(setup: Setup, qtbot: QtBot) -> None:
    s = setup
    _host, toasts = overlay_on(s, qtbot)
    scout = new_agent(s, qtbot, "Scout")  # not running: its relaunch failed
    failed = AgentRateLimitSuspected(scout, None, SuspicionReason.RESUME_FAILED, "Codex is not signed in")
    s.panel.on_event(OrchestrationNews(s.runtime.id, failed))
    wait(qtbot, lambda: len(toasts.cards()) == 1)
    (card,) = toasts.cards()
    assert card.label.text() == "IdeA could not resume Scout after its usage limit: Codex is not signed in"
    texts = [b.text() for b in card.findChildren(QPushButton)]
    assert texts == ["Resume at this time", "Dismiss"]
    assert abs(card.time_edit.dateTime().toMSecsSinceEpoch() - s.runtime.clock.now_ms()) < 120_000  # try now
    assert any("could not resume Scout" in t for t in s.panel.needs_you.entry_texts())
    press(card, "Dismiss")
    wait(qtbot, lambda: not toasts.isVisible() and not s.panel.needs_you.entry_texts())


def test_the_nets_are_shown_again_after_the_panel_followed_another_project(setup: Setup, qtbot: QtBot) -> None:
    """Switching tabs drops what the panel knew of a project; its open nets come back from the core."""
    s = setup
    _host, toasts = overlay_on(s, qtbot)
    scout = new_agent(s, qtbot, "Scout")
    launch_in_background(s, qtbot, scout)
    builder = new_agent(s, qtbot, "Builder")
    launch_in_background(s, qtbot, builder)
    states = s.runtime.orchestrator.states
    s.world.sync(lambda: states.limit_seen(scout, None, "usage limit reached"))
    s.world.sync(lambda: states.limit_seen(builder, None, "usage limit reached"))
    wait(qtbot, lambda: len(toasts.cards()) == 2)
    closed = next(card for card in toasts.cards() if card.toast.agent_id == builder)
    closed.close_button.click()
    wait(qtbot, lambda: len(toasts.cards()) == 1)

    s.panel.set_project(None)  # another tab
    wait(qtbot, lambda: not toasts.isVisible() and not s.panel.needs_you.entry_texts())
    s.panel.set_project(s.runtime)  # back
    wait(qtbot, lambda: len(s.panel.needs_you.entry_texts()) == 2)
    wait(qtbot, lambda: [card.toast.agent_id for card in toasts.cards()] == [scout])  # the closed one stays closed
    assert "usage limit" in alert(s)  # the limit badge is back too
