"""The Agents panel and the orchestration core on a real bootstrap: tasks the person sends, the queue of the
selected agent, cancelling, interrupting, replies, calls for attention and late replies.

The agent runs a fake CLI that never answers and reports no end of turn (its profile declares the Claude
hooks, which never fire), so its tickets stay open for as long as a test looks at them.
"""

from __future__ import annotations

import sys
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox, QPushButton
from pytestqt.qtbot import QtBot

from idea.application.agents.agent_activity import ActivityBook
from idea.application.agents.agent_rows import AgentRow
from idea.application.projects import ProjectRuntime
from idea.domain.errors import AppError, ErrorCode
from idea.domain.events import OrchestrationNews
from idea.domain.ids import AgentId, TicketId
from idea.domain.orchestration.commands import AgentCaller, AskAgent, Reply, Source
from idea.domain.orchestration.events import (
    AgentAttention,
    AgentQueueChanged,
    AgentQueueSnapshot,
    BusyState,
    DelegationDelivered,
    DeliveryWaiting,
    QueuedTicketView,
)
from idea.domain.profile import Profile
from idea.domain.orchestration.tickets import HumanSource, TicketPhase
from idea.ui.agents.agents_panel import AgentsPanel
from idea.ui.theme import palette_colors
from idea.ui.widgets.list_row_delegate import ListRowDelegate
from tests.ui.agent_support import FIXTURES, WAIT_MS, RecordingHost, BootstrappedApp, bootstrapped_app

SILENT_CLI = FIXTURES / "silent_agent_cli.py"
READY = "Silent agent CLI ready"


@pytest.fixture
def quick_delivery(monkeypatch: pytest.MonkeyPatch) -> None:
    """No real CLI reports a turn here: the check that one started gives up early instead of after 5 s."""
    monkeypatch.setenv("IDEA_SUBMIT_VERIFY_MS", "200")
    monkeypatch.setenv("IDEA_COLD_START_SETTLE_MS", "50")


@pytest.fixture
def short_window(monkeypatch: pytest.MonkeyPatch) -> None:
    """An ask without activity from its target ends after 1 s (before the core starts: ask it first)."""
    monkeypatch.setenv("IDEA_ASK_RENDEZVOUS_TIMEOUT_MS", "1000")


@pytest.fixture
def world(qtbot: QtBot, tmp_path: Path, quick_delivery: None) -> Iterator[BootstrappedApp]:
    yield from bootstrapped_app(qtbot, tmp_path)


class Setup:
    def __init__(self, world: BootstrappedApp, runtime: ProjectRuntime, profile: Profile, panel: AgentsPanel) -> None:
        self.world = world
        self.runtime = runtime
        self.profile = profile
        self.panel = panel
        self.messages: list[str] = []
        panel.statusMessage.connect(self.messages.append)


@pytest.fixture
def setup(world: BootstrappedApp, qtbot: QtBot) -> Iterator[Setup]:
    profile = Profile.from_json(
        {
            "id": str(uuid.uuid4()),
            "name": "Silent CLI",
            "command": sys.executable,
            "args": [str(SILENT_CLI)],
            "contextInjection": {"strategy": "conventionFile", "target": "AGENTS.md"},
            "hooks": "claude",
            "promptReadyPattern": READY,
            "submitDelayMs": 50,
        }
    )
    world.sync(lambda: world.app.profiles.save_profile(profile))
    runtime = world.open_project()
    panel = AgentsPanel(world.client, world.app.profiles, world.app.templates, RecordingHost())
    qtbot.addWidget(panel)
    world.relay.published.connect(panel.on_event)
    panel.set_project(runtime)
    panel.resize(360, 640)
    panel.show()
    yield Setup(world, runtime, profile, panel)
    assert not panel.findChildren(QMessageBox), "an error was shown to the user"


def wait(qtbot: QtBot, condition: Callable[[], bool]) -> None:
    qtbot.waitUntil(condition, timeout=WAIT_MS)


def new_agent(s: Setup, qtbot: QtBot, name: str) -> AgentId:
    agent = s.world.create_agent(s.runtime, name, s.profile)
    wait(qtbot, lambda: s.panel.row(agent.agent_id) is not None)
    s.panel.select_agent(agent.agent_id)
    return agent.agent_id


def send_task(s: Setup, qtbot: QtBot, text: str) -> TicketId:
    """Through the dialog, sent with Ctrl+Enter; returns the ticket the core queued."""
    dialog = s.panel.run_gestures.send_task()
    assert dialog is not None and not dialog.send_button.isEnabled()
    dialog.text.setPlainText(text)
    with qtbot.waitSignal(dialog.sent, timeout=WAIT_MS) as sent:
        qtbot.keyClick(dialog.text, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    return sent.args[0]


def screen(s: Setup, agent_id: AgentId) -> str:
    live = s.runtime.runner.live(agent_id)
    return s.world.on_core(live.terminal.screen_text()) if live is not None else ""


def row(s: Setup, agent_id: AgentId) -> AgentRow:
    found = s.panel.row(agent_id)
    assert found is not None
    return found


def queue_states(s: Setup) -> list[tuple[str, str]]:
    return [(row.ticket_id, row.state_text) for row in s.panel.team.queue.ticket_rows()]


def launch_in_background(s: Setup, qtbot: QtBot, agent_id: AgentId) -> None:
    s.panel.agent_actions.launch_background_action.trigger()
    wait(qtbot, lambda: READY in screen(s, agent_id))


def test_two_tasks_queue_in_order_the_first_is_typed_and_the_second_can_be_cancelled(
    setup: Setup, qtbot: QtBot
) -> None:
    s = setup
    scout = new_agent(s, qtbot, "Scout")
    assert s.panel.team.queue.title.full_text == "Queue of Scout" and "not running" in s.panel.team.queue.empty.text()

    first = send_task(s, qtbot, "Review the storage ports")  # Scout was stopped: the core starts it
    wait(qtbot, lambda: "received: Review the storage ports" in screen(s, scout))
    wait(qtbot, lambda: queue_states(s) == [(first, "delivered")])
    second = send_task(s, qtbot, "Then write the\nrelease notes")
    wait(qtbot, lambda: queue_states(s) == [(first, "delivered"), (second, "queued")])

    rows = s.panel.team.queue.ticket_rows()
    assert [row.requester.text() for row in rows] == ["from <b>you</b>", "from <b>you</b>"]
    assert [row.preview.full_text for row in rows] == ["Review the storage ports", "Then write the release notes"]
    assert row(s, scout).is_busy and row(s, scout).queue_depth == 2
    item = s.panel.team.list.item(0)
    note = item.data(ListRowDelegate.NOTE_ROLE)
    assert note.startswith("busy ") and note.endswith(" · queue 2")
    assert "Busy since" in item.toolTip() and "with a task from you" in item.toolTip()
    # The live-state row the core wrote at delivery reaches the row's third line.
    wait(qtbot, lambda: s.panel.team.list.item(0).data(ListRowDelegate.ACTIVITY_ROLE) == "working: Review the storage ports")

    qtbot.mouseClick(rows[1].cancel_button, Qt.MouseButton.LeftButton)
    wait(qtbot, lambda: queue_states(s) == [(first, "delivered")])
    assert [t.ticket_id for t in s.world.sync(s.runtime.orchestrator.queue_snapshots)[0].tickets] == [first]
    assert row(s, scout).queue_depth == 1
    assert s.panel.team.list.item(0).data(ListRowDelegate.NOTE_ROLE).endswith(" · queue 1")
    assert "release notes" not in screen(s, scout)
    wait(qtbot, lambda: "Cancelled the ticket from you to Scout" in s.messages)


def test_interrupt_sends_esc_and_leaves_the_queue_alone(setup: Setup, qtbot: QtBot) -> None:
    s = setup
    scout = new_agent(s, qtbot, "Scout")
    assert not s.panel.agent_actions.interrupt_action.isEnabled()
    launch_in_background(s, qtbot, scout)
    wait(qtbot, lambda: s.panel.agent_actions.interrupt_action.isEnabled())
    assert s.panel.team.list.item(0).data(ListRowDelegate.NOTE_ROLE).startswith("idle ")
    ticket = send_task(s, qtbot, "Count the tests")
    wait(qtbot, lambda: queue_states(s) == [(ticket, "delivered")])

    s.panel.agent_actions.interrupt_action.trigger()
    wait(qtbot, lambda: "received: <Esc>" in screen(s, scout))
    wait(qtbot, lambda: "Esc sent to Scout" in s.messages)
    assert queue_states(s) == [(ticket, "delivered")]  # Esc is no cancellation


def test_a_reply_to_the_persons_task_is_a_notice_and_a_status_message(setup: Setup, qtbot: QtBot) -> None:
    s = setup
    scout = new_agent(s, qtbot, "Scout")
    launch_in_background(s, qtbot, scout)
    ticket = send_task(s, qtbot, "How many ports are there?")
    wait(qtbot, lambda: queue_states(s) == [(ticket, "delivered")])

    reply = Reply(result="Four ports:\nstorage, clock, ids, events.", ticket=ticket)
    s.world.on_core(s.runtime.orchestrator.dispatch(AgentCaller(scout), reply, Source.MCP))
    wait(qtbot, lambda: len(s.panel.replies.notices()) == 1)
    notice = s.panel.replies.notices()[0]
    assert notice.agent_name == "Scout" and notice.reply == reply.result
    assert s.panel.replies.isVisible()
    assert "Scout replied: Four ports: storage, clock, ids, events." in s.messages
    qtbot.mouseClick(notice.dismiss_button, Qt.MouseButton.LeftButton)
    wait(qtbot, lambda: not s.panel.replies.notices() and not s.panel.replies.isVisible())


def test_a_call_for_attention_marks_the_row_until_the_person_goes_to_the_agent(
    setup: Setup, qtbot: QtBot
) -> None:
    s = setup
    scout = new_agent(s, qtbot, "Scout")
    launch_in_background(s, qtbot, scout)

    notification = {"message": "Claude needs your permission to use Bash"}
    s.world.sync(lambda: s.runtime.orchestrator.hook_event(scout, "claude", "Notification", notification))
    wait(qtbot, lambda: s.panel.team.list.item(0).data(ListRowDelegate.ALERT_ROLE) == "needs you: waits for your permission")
    assert "Scout needs you: permission" in s.messages
    assert s.panel.team.list.item(0).data(ListRowDelegate.NOTE_ROLE) == "waiting for you"  # not "idle"
    assert s.panel.team.list.item(0).data(ListRowDelegate.NOTE_COLOR_ROLE) == palette_colors(s.panel).warn
    assert "Claude needs your permission to use Bash" in s.panel.team.list.item(0).toolTip()

    s.panel.agent_focused(scout)
    assert not s.panel.team.list.item(0).data(ListRowDelegate.ALERT_ROLE)
    assert row(s, scout).attention_text == ""


def test_deliver_now_asks_the_core_to_stop_waiting_for_the_persons_line(
    setup: Setup, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    s = setup
    scout = new_agent(s, qtbot, "Scout")
    launch_in_background(s, qtbot, scout)
    first = send_task(s, qtbot, "First task")
    second = send_task(s, qtbot, "Second task")
    wait(qtbot, lambda: queue_states(s) == [(first, "delivered"), (second, "queued")])
    forced: list[TicketId] = []
    monkeypatch.setattr(s.runtime.orchestrator, "force_delivery", forced.append)
    assert not s.panel.team.queue.waiting_banner.isVisible()

    # Headless terminals have no human line, so the banner event a write portal's long wait publishes is
    # published here.
    s.world.app.events.publish(OrchestrationNews(s.runtime.id, DeliveryWaiting(scout, second, "Main")))
    wait(qtbot, lambda: s.panel.team.queue.waiting_banner.isVisible())
    assert "A task from Main is waiting" in s.panel.team.queue.waiting_text.text()
    qtbot.mouseClick(s.panel.team.queue.deliver_now_button, Qt.MouseButton.LeftButton)
    wait(qtbot, lambda: forced == [second])
    assert not s.panel.team.queue.waiting_banner.isVisible()
    wait(qtbot, lambda: "Typing the waiting task into Scout's terminal" in s.messages)


def test_a_reply_after_the_requester_stopped_waiting_marks_the_requester(
    short_window: None, setup: Setup, qtbot: QtBot
) -> None:
    s = setup
    main = new_agent(s, qtbot, "Main")
    scout = new_agent(s, qtbot, "Scout")
    launch_in_background(s, qtbot, scout)

    ask = AskAgent(target="Scout", task="Map the ports")
    with pytest.raises(AppError) as timed_out:
        s.world.on_core(s.runtime.orchestrator.dispatch(AgentCaller(main), ask, Source.MCP))
    assert timed_out.value.code is ErrorCode.RENDEZVOUS_TIMEOUT
    with pytest.raises(AppError) as closed:
        s.world.on_core(s.runtime.orchestrator.dispatch(AgentCaller(scout), Reply(result="Four ports"), Source.MCP))
    assert closed.value.code is ErrorCode.TICKET_CLOSED

    wait(qtbot, lambda: row(s, main).late_reply_text == "late reply")
    assert s.panel.team.list.item(0).data(ListRowDelegate.MARK_ROLE) == "late reply"
    assert "Scout answered Main after it stopped waiting: late reply available" in s.messages


def queued(ticket_id: str, phase: TicketPhase) -> QueuedTicketView:
    return QueuedTicketView(
        ticket_id=ticket_id, conversation_id="c", position=0, status="queued", phase=phase, source=HumanSource(),
        requester_label="you", task_preview="task", task_len=4,
        delivered=phase in (TicketPhase.DELIVERED, TicketPhase.AWAITING_REPLY),
    )


def test_an_attention_mark_lasts_until_a_new_prompt_is_submitted_and_a_banner_until_its_ticket_goes() -> None:
    book = ActivityBook()

    def queue_of_scout(*tickets: QueuedTicketView, busy: BusyState | None = None) -> AgentQueueChanged:
        return AgentQueueChanged(AgentQueueSnapshot("scout", busy, tickets, late=(), bridge_connected=True))

    busy = BusyState("t1", since_ms=1_000)
    book.apply(queue_of_scout(queued("t1", TicketPhase.DELIVERED), queued("t2", TicketPhase.QUEUED), busy=busy), 1_000)
    book.apply(AgentAttention("scout", "permission", "Claude needs your permission to use Bash"), 2_000)
    book.apply(DeliveryWaiting("scout", "t2", "Main"), 2_000)
    # The end of t1's delivery is reported after the turn asked for permission: the mark stays.
    book.apply(DelegationDelivered("scout", "t1", at_ms=2_500), 2_500)
    assert book.of("scout").attention == "permission" and book.of("scout").waiting is not None

    book.apply(queue_of_scout(queued("t2", TicketPhase.DELIVERING), busy=BusyState("t2", 3_000)), 3_000)
    assert book.of("scout").attention == "permission"
    book.apply(queue_of_scout(queued("t2", TicketPhase.DELIVERED), busy=BusyState("t2", 3_000)), 3_500)
    activity = book.of("scout")
    assert activity.attention is None and activity.waiting is None

    book.apply(queue_of_scout(), 9_000)
    assert book.of("scout").busy is None and book.of("scout").idle_since_ms == 9_000


def alert(s: Setup) -> str:
    return s.panel.team.list.item(0).data(ListRowDelegate.ALERT_ROLE) or ""


def test_a_usage_limit_shows_its_reset_and_countdown_and_the_resume_can_be_cancelled(setup: Setup, qtbot: QtBot) -> None:
    s = setup
    scout = new_agent(s, qtbot, "Scout")
    launch_in_background(s, qtbot, scout)
    resets = s.runtime.clock.now_ms() + 2 * 3_600_000 + 10 * 60_000
    s.world.sync(lambda: s.runtime.orchestrator.states.limit_seen(scout, resets, "usage limit reached"))
    wait(qtbot, lambda: "resumes in 2 h 10" in alert(s))
    assert alert(s).startswith("limited until ")
    assert s.panel.agent_actions.cancel_resume_action.isEnabled()
    s.panel.agent_actions.cancel_resume_action.trigger()
    wait(qtbot, lambda: "automatic resume cancelled" in alert(s))
    wait(qtbot, lambda: "Automatic resume of Scout cancelled" in s.messages)
    assert not s.panel.agent_actions.cancel_resume_action.isEnabled()
    assert s.panel.agent_actions.resume_now_action.isEnabled()


def test_a_dialog_and_the_human_net_are_listed_under_needs_you(setup: Setup, qtbot: QtBot) -> None:
    s = setup
    scout = new_agent(s, qtbot, "Scout")
    launch_in_background(s, qtbot, scout)
    states = s.runtime.orchestrator.states
    s.world.sync(lambda: states.prompt_seen(scout, "Do you trust the files in this folder?"))
    wait(qtbot, lambda: any("Scout asks whether you trust its folder (in the background)" in t
                            for t in s.panel.needs_you.entry_texts()))
    assert s.panel.needs_you.isVisibleTo(s.panel)
    s.world.sync(lambda: states.prompt_seen(scout, None))
    wait(qtbot, lambda: not s.panel.needs_you.entry_texts())

    s.world.sync(lambda: states.limit_seen(scout, None, "usage limit reached"))
    wait(qtbot, lambda: any("could not read when it resets" in t for t in s.panel.needs_you.entry_texts()))
    dismiss = next(b for b in s.panel.needs_you.findChildren(QPushButton) if b.text() == "Not a limit — dismiss")
    dismiss.click()
    wait(qtbot, lambda: not s.panel.needs_you.entry_texts())
    assert s.world.sync(lambda: states.limits.limit_of(scout)) is None  # type: ignore[union-attr]
