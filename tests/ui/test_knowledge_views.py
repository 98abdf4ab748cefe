"""The work panel, and the Memory, Skills and Context views, on a real core loop and real files (spec 04
§11-§15)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QLabel, QMessageBox
from pytestqt.qtbot import QtBot

from idea.domain.events import OrchestrationNews
from idea.domain.ids import conversation_for_pair
from idea.domain.knowledge.events import MemorySaved
from idea.domain.orchestration.events import AgentQueueSnapshot, LateReplyView, QueuedTicketView, RendezvousEnded
from idea.domain.orchestration.tickets import AgentSource, HumanSource, TicketPhase
from idea.domain.knowledge.work_state import (
    AgentWork,
    LiveSession,
    Liveness,
    NoticeLevel,
    ProjectWorkState,
    RateLimit,
    WorkNotice,
)
from idea.ui.knowledge.context_view import ContextView
from idea.ui.knowledge.memory_view import MemoryView
from idea.ui.knowledge.skills_view import SkillsView
from idea.ui.knowledge.common import clock_time
from idea.ui.knowledge.work_panel import LATE_REPLIES_SHOWN, WorkPanel
from idea.ui.widgets.list_row_delegate import ListRowDelegate
from tests.knowledge_support import ARCHITECT, MAIN, QA, KnowledgeWorld
from tests.ui.knowledge_support import WAIT_MS, Core, conversation_turn, core, knowledge_world  # noqa: F401

PAIR = conversation_for_pair(ARCHITECT, MAIN)
LATE = LateReplyView("30000000-0000-4000-8000-000000000001", conversation_for_pair(ARCHITECT, QA), "Architect", 1_781_370_000_000)
NAMES = {MAIN: "Main", ARCHITECT: "Architect", QA: "QA"}


def queued(conversation: str, position: int, phase: TicketPhase, source: object, label: str, task: str) -> QueuedTicketView:
    return QueuedTicketView(
        f"10000000-0000-4000-8000-{position:012d}", conversation, position,
        "inProgress" if position == 0 else "queued", phase, source, label, task[:160], len(task), position == 0,  # type: ignore[arg-type]
    )


def make_panel(qtbot: QtBot, core: Core, world: KnowledgeWorld, reads: list[int] | None = None) -> WorkPanel:
    async def read() -> ProjectWorkState:
        if reads is not None:
            reads.append(1)
        return await world.knowledge.work.read()

    panel = WorkPanel(
        core.client, read, agent_name=lambda agent_id: NAMES.get(agent_id, "?"), refreshes_on=world.knowledge.work.refreshes_on
    )
    qtbot.addWidget(panel)
    panel.resize(520, 700)
    return panel


def test_the_work_panel_shows_agents_tickets_and_conversations_and_acts_through_signals(
    qtbot: QtBot, core: Core, knowledge_world: KnowledgeWorld
) -> None:
    world = knowledge_world
    core.run(world.knowledge.record.append(conversation_turn(PAIR, 0, "Review the storage ports")))
    human = conversation_for_pair(QA, None)
    world.team.live[ARCHITECT] = LiveSession("5b0c7f3e-2a41-4d8e-9c1b-6e7f8a9b0c1d", "s1", "pty")
    world.team.live[QA] = LiveSession(None, "s2", "pty")
    world.team.queues = (
        AgentQueueSnapshot(ARCHITECT, None, (queued(PAIR, 0, TicketPhase.AWAITING_REPLY, AgentSource(MAIN), "Main", "Review the storage ports"),), (), True),
        AgentQueueSnapshot(QA, None, (queued(human, 0, TicketPhase.DELIVERING, HumanSource(), "you", "run the tests"),), (LATE,), False),
    )
    reads: list[int] = []
    panel = make_panel(qtbot, core, world, reads)
    with qtbot.waitSignal(panel.rendered, timeout=WAIT_MS):
        panel.show()

    assert [card.agent_id for card in panel.agent_cards] == [MAIN, ARCHITECT, QA]
    assert [card.title for card in panel.conversation_cards] == ["Main ↔ Architect", "You ↔ QA"]
    assert "Review the storage ports" in panel.agent_cards[1].tickets[0].preview.text()
    with qtbot.waitSignal(panel.viewConversationRequested, timeout=WAIT_MS) as viewed:
        _click(panel.conversation_cards[0], "View conversation")
    assert viewed.args == [PAIR, "Main ↔ Architect"]
    with qtbot.waitSignal(panel.attachRequested, timeout=WAIT_MS) as attach:
        _click(panel.agent_cards[2], "Attach")
    assert attach.args == [QA]
    with qtbot.waitSignal(panel.deliverNowRequested, timeout=WAIT_MS) as deliver:
        _click(panel.agent_cards[2], "Deliver now")
    assert deliver.args == ["10000000-0000-4000-8000-000000000000"]
    [late] = panel.agent_cards[2].late_replies
    assert any(label.text() == f"Late reply from Architect at {clock_time(LATE.at_ms)}" for label in late.findChildren(QLabel))
    with qtbot.waitSignal(panel.lateReplyRequested, timeout=WAIT_MS) as show_late:
        late.show_button.click()
    assert show_late.args == [LATE.conversation_id, LATE.ticket_id, "QA ↔ Architect"]
    _click(panel.conversation_cards[0], "Copy summary")
    assert QApplication.clipboard().text().startswith("**Objective:** Review the storage ports")

    count = len(reads)
    qtbot.wait(600)
    assert len(reads) == count  # nothing polls
    with qtbot.waitSignal(panel.rendered, timeout=WAIT_MS):
        for _ in range(5):  # a burst of events is one recomputation
            panel.on_event(OrchestrationNews("p", RendezvousEnded("t", MAIN, ARCHITECT, "replied", 3)))
    qtbot.wait(400)
    assert len(reads) == count + 1


def _click(card: object, text: str) -> None:
    from PySide6.QtWidgets import QToolButton

    button = next(b for b in card.findChildren(QToolButton) if b.text() == text)  # type: ignore[attr-defined]
    button.click()


def test_a_corrupt_handoff_shows_partial_and_a_failing_read_keeps_the_last_state(
    qtbot: QtBot, core: Core, knowledge_world: KnowledgeWorld
) -> None:
    world = knowledge_world
    core.run(world.stores.conversations.append(conversation_turn(PAIR, 0, "question")))
    world.stores.handoffs.path(PAIR).write_bytes(b"\xff\xfe")
    world.team.queues = (
        AgentQueueSnapshot(ARCHITECT, None, (queued(PAIR, 0, TicketPhase.QUEUED, AgentSource(MAIN), "Main", "question"),), (), False),
    )
    panel = make_panel(qtbot, core, world)
    with qtbot.waitSignal(panel.rendered, timeout=WAIT_MS):
        panel.show()
    assert panel.state is not None and panel.state.conversations[0].status.value == "partial"
    assert "could not be read" in panel.status.text()

    def broken() -> tuple[AgentQueueSnapshot, ...]:
        raise RuntimeError("the core is gone")

    async def fail() -> ProjectWorkState:
        raise OSError("disk unplugged")

    panel._read = fail  # type: ignore[method-assign]
    panel.refresh()
    qtbot.waitUntil(lambda: "disk unplugged" in panel.status.text(), timeout=WAIT_MS)
    assert len(panel.agent_cards) == 3  # the last state stays on screen


def test_the_memory_view_lists_edits_creates_and_deletes_notes(
    qtbot: QtBot, core: Core, knowledge_world: KnowledgeWorld
) -> None:
    memory = knowledge_world.knowledge.memory
    core.run(memory.write("alpha", "Alpha links to [[beta]] and [[ghost]]."))
    core.run(memory.write("beta", "Beta body."))
    view = MemoryView(core.client, memory)
    qtbot.addWidget(view)
    view.show()
    with qtbot.waitSignal(view.loaded, timeout=WAIT_MS):
        view.reload()

    assert view.notes.count() == 2 and view.current == "alpha"
    assert "Broken links: ghost" in view.links.text()
    view.select("beta")
    assert "Linked from" in view.links.text() and "alpha" in view.links.text()

    view.description.setText("A better description")
    view.body.setPlainText("Beta, rewritten.")
    with qtbot.waitSignal(view.loaded, timeout=WAIT_MS):
        view.save()
    assert "description: A better description" in (knowledge_world.memory_dir / "beta.md").read_text()

    view.new_note()
    view.slug.setText("Bad Slug")
    view.body.setPlainText("x")
    view.save()
    assert "slug" in view.status.text()
    view.slug.setText("gamma")
    with qtbot.waitSignal(view.loaded, timeout=WAIT_MS):
        view.save()
    assert (knowledge_world.memory_dir / "gamma.md").exists() and view.current == "gamma"

    view.confirm_delete()
    box = next(w for w in QApplication.topLevelWidgets() if isinstance(w, QMessageBox) and w.isVisible())
    with qtbot.waitSignal(view.loaded, timeout=WAIT_MS):
        next(b for b in box.buttons() if b.text() == "Delete").click()
    assert not (knowledge_world.memory_dir / "gamma.md").exists()
    assert "gamma" not in (knowledge_world.memory_dir / "MEMORY.md").read_text()
    with qtbot.waitSignal(view.loaded, timeout=WAIT_MS):
        view.on_event(OrchestrationNews("p", MemorySaved("alpha")))


def test_the_skills_view_creates_edits_assigns_and_deletes(
    qtbot: QtBot, core: Core, knowledge_world: KnowledgeWorld
) -> None:
    world = knowledge_world
    view = SkillsView(core.client, world.knowledge.skills, world.team.manifest)
    qtbot.addWidget(view)
    view.show()
    with qtbot.waitSignal(view.loaded, timeout=WAIT_MS):
        view.reload()
    view.new_skill()
    assert view.agents.count() == 0 and view.agents_hint.isVisible()  # says why no agent can be ticked yet
    assert view.agents_hint.text().startswith("Save the skill first")
    view.name.setText("build-appimage")
    view.scope.setCurrentIndex(view.scope.findData("global"))
    view.body.setPlainText("# Build the AppImage\n\nRun the packaging script.")
    with qtbot.waitSignal(view.loaded, timeout=WAIT_MS):
        view.save()
    assert view.current is not None and view.current.scope == "global"
    first = view.list.item(0)
    assert first.text() == "build-appimage" and first.data(ListRowDelegate.NOTE_ROLE) == "global"
    assert first.data(ListRowDelegate.SUBTITLE_ROLE).startswith("Build the AppImage")

    assert view.agents.count() > 0 and not view.agents_hint.isVisible()
    qa_item = next(view.agents.item(r) for r in range(view.agents.count()) if view.agents.item(r).text() == "QA")
    qa_item.setCheckState(Qt.CheckState.Checked)
    qtbot.waitUntil(lambda: "applies at its next launch" in view.status.text(), timeout=WAIT_MS)
    assert world.team.manifest().by_id(QA).skills[0].skill_id == view.current.record.id

    view.description.setText("Package IdeA for Linux")
    with qtbot.waitSignal(view.loaded, timeout=WAIT_MS):
        view.save()
    assert view.list.item(0).data(ListRowDelegate.SUBTITLE_ROLE) == "Package IdeA for Linux"
    with qtbot.waitSignal(view.loaded, timeout=WAIT_MS):
        view.delete(view.current)
    assert view.list.count() == 0 and world.team.manifest().by_id(QA).skills == ()


def test_the_context_view_saves_and_reviews_proposals(
    qtbot: QtBot, core: Core, knowledge_world: KnowledgeWorld
) -> None:
    context = knowledge_world.knowledge.context
    core.run(context.write("# Context\n\nPython 3.11\n"))
    core.run(context.propose(QA, "# Context\n\nPython 3.12\n"))
    view = ContextView(core.client, context)
    qtbot.addWidget(view)
    view.show()
    with qtbot.waitSignal(view.loaded, timeout=WAIT_MS):
        view.reload()

    assert view.proposals.count() == 1 and view.proposals.item(0).text() == "QA"
    assert "Python 3.12" in view.diff.toPlainText() and view.accept_button.isEnabled()
    assert view.warning.text() == ""
    view.editor.setPlainText("# Context\n\nPython 3.11, typed.\n")
    assert view.save_button.isEnabled()
    qtbot.waitUntil(lambda: view.save_button.isEnabled(), timeout=WAIT_MS)
    view.save()
    qtbot.waitUntil(lambda: not view.save_button.isEnabled(), timeout=WAIT_MS)
    with qtbot.waitSignal(view.loaded, timeout=WAIT_MS):
        view.reload()
    assert "outdated" in view.proposals.item(0).data(ListRowDelegate.SUBTITLE_ROLE) and "accepting it undoes" in view.warning.text()

    with qtbot.waitSignal(view.loaded, timeout=WAIT_MS):
        view.accept_selected()
    assert view.editor.toPlainText() == "# Context\n\nPython 3.12\n" and view.proposals.count() == 0
    assert (knowledge_world.root / ".ideai" / "CONTEXT.md").read_text() == "# Context\n\nPython 3.12\n"


def showing_one_agent(qtbot: QtBot, core: Core, agent: AgentWork) -> WorkPanel:
    """A work panel shown on a state of that one agent."""

    async def read() -> ProjectWorkState:
        return ProjectWorkState((agent,), ())

    panel = WorkPanel(core.client, read, agent_name=lambda agent_id: agent.name, refreshes_on=lambda event: False)
    qtbot.addWidget(panel)
    with qtbot.waitSignal(panel.rendered, timeout=WAIT_MS):
        panel.show()
    return panel


def test_what_other_features_say_of_an_agent_shows_on_its_card(qtbot: QtBot, core: Core) -> None:
    agent = AgentWork(
        QA, "QA", "p", LiveSession(None, "s", "pty"), None, liveness=Liveness.STALLED,
        rate_limit=RateLimit(1_781_370_000_000, 1_781_370_060_000),
        notices=(WorkNotice("Permission asked: Bash(git push)", NoticeLevel.WARNING),),
    )

    panel = showing_one_agent(qtbot, core, agent)

    texts = [label.text() for label in panel.agent_cards[0].findChildren(QLabel)]
    assert "No sign of activity for a while: its turn may be stuck" in texts
    assert any(text.startswith("Session limit reached; resets at ") and "IdeA resumes it at" in text for text in texts)
    assert "Permission asked: Bash(git push)" in texts


def test_the_latest_late_replies_are_listed_and_the_rest_counted(qtbot: QtBot, core: Core) -> None:
    replies = tuple(
        LateReplyView(f"30000000-0000-4000-8000-00000000000{n}", PAIR, f"Helper{n}", 1_781_370_000_000 + n * 60_000)
        for n in range(5)
    )
    queue = AgentQueueSnapshot(MAIN, None, (), replies, True)
    agent = AgentWork(MAIN, "Main", "p", LiveSession(None, "s", "pty"), queue)

    card = showing_one_agent(qtbot, core, agent).agent_cards[0]
    assert [line.ticket_id for line in card.late_replies] == [reply.ticket_id for reply in replies[-LATE_REPLIES_SHOWN:]]
    assert "5 late replies to its asks; the latest:" in [label.text() for label in card.findChildren(QLabel)]
