"""The conversation viewer on a real log (spec 04 §9): newest page first, older pages on scrolling up, each
turn once, a 40 000-character turn intact, search, copy, raw log, refresh on events."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from PySide6.QtGui import QGuiApplication
from pytestqt.qtbot import QtBot

from idea.domain.events import OrchestrationNews
from idea.domain.ids import conversation_for_pair
from idea.domain.knowledge.conversation_pages import PAGE_DEFAULT_LIMIT
from idea.domain.orchestration.events import RendezvousEnded
from idea.ui.knowledge.conversation_viewer import ConversationViewer
from idea.ui.knowledge.turn_list import FOLD_CHARS
from tests.knowledge_support import ARCHITECT, MAIN, KnowledgeWorld
from tests.ui.knowledge_support import NAMES, WAIT_MS, Core, conversation_turn, core, knowledge_world  # noqa: F401

PAIR = conversation_for_pair(ARCHITECT, MAIN)


def make_viewer(qtbot: QtBot, core: Core, world: KnowledgeWorld, opened: list[str] | None = None) -> ConversationViewer:
    viewer = ConversationViewer(
        core.client,
        world.knowledge.pages,
        agent_name=lambda agent_id: NAMES.get(agent_id, agent_id[:8]),
        raw_log_path=lambda conversation: str(world.stores.conversations.path(conversation)),
        open_file=(opened.append if opened is not None else lambda path: None),
    )
    qtbot.addWidget(viewer)
    viewer.resize(900, 700)
    viewer.show()
    return viewer


def record(core: Core, world: KnowledgeWorld, start: int, count: int, text: str | None = None) -> None:
    async def work() -> None:
        for index in range(start, start + count):
            await world.stores.conversations.append(conversation_turn(PAIR, index, text))

    core.run(work())


def test_opens_on_the_newest_page_and_loads_older_pages_when_scrolled_up(
    qtbot: QtBot, core: Core, knowledge_world: KnowledgeWorld
) -> None:
    record(core, knowledge_world, 0, 130)
    viewer = make_viewer(qtbot, core, knowledge_world)

    with qtbot.waitSignal(viewer.pageShown, timeout=WAIT_MS):
        viewer.show_conversation(PAIR, "Main ↔ Architect")
    assert [t.at_ms for t in viewer.model.turns][-1] == conversation_turn(PAIR, 129).at_ms
    assert len(viewer.model.turns) == PAGE_DEFAULT_LIMIT and viewer.has_older
    bar = viewer.view.verticalScrollBar()
    assert bar.value() == bar.maximum()  # scrolled to the bottom

    for expected in (100, 130):
        with qtbot.waitSignal(viewer.pageShown, timeout=WAIT_MS):
            bar.setValue(bar.minimum())
        assert len(viewer.model.turns) == expected
        assert bar.value() > bar.minimum()  # the turn that was at the top stays in view
    assert not viewer.has_older and viewer.beginning.text() == "Beginning of the conversation · 130 turns"
    assert [t.id for t in viewer.model.turns] == [conversation_turn(PAIR, i).id for i in range(130)]


def test_a_40000_character_turn_is_folded_shown_whole_on_request_and_copied_intact(
    qtbot: QtBot, core: Core, knowledge_world: KnowledgeWorld
) -> None:
    long_text = "\n".join(f"line {i:05d} " + "x" * 60 for i in range(560))  # about 40 000 characters
    assert len(long_text) > 40_000 - 1000
    record(core, knowledge_world, 0, 1, long_text)
    viewer = make_viewer(qtbot, core, knowledge_world)
    with qtbot.waitSignal(viewer.pageShown, timeout=WAIT_MS):
        viewer.show_conversation(PAIR, "Main ↔ Architect")

    index = viewer.model.index(0)
    folded = viewer.delegate.sizeHint(_option(viewer), index).height()
    viewer.model.toggle_expanded(0)
    expanded = viewer.delegate.sizeHint(_option(viewer), index).height()
    assert expanded > folded * 2
    viewer.view.selectionModel().select(index, viewer.view.selectionModel().SelectionFlag.Select)
    viewer.copy_selected()
    copied = QGuiApplication.clipboard().text()
    assert copied.endswith(long_text) and len(long_text) > FOLD_CHARS


def _option(viewer: ConversationViewer):  # noqa: ANN202
    from PySide6.QtWidgets import QStyleOptionViewItem

    option = QStyleOptionViewItem()
    option.initFrom(viewer.view)
    option.rect.setWidth(viewer.view.viewport().width())
    return option


def test_search_finds_text_in_older_pages_and_reports_when_absent(
    qtbot: QtBot, core: Core, knowledge_world: KnowledgeWorld
) -> None:
    record(core, knowledge_world, 0, 3, "the needle is here")
    record(core, knowledge_world, 3, 200)
    viewer = make_viewer(qtbot, core, knowledge_world)
    with qtbot.waitSignal(viewer.pageShown, timeout=WAIT_MS):
        viewer.show_conversation(PAIR, "Main ↔ Architect")

    viewer.find_field.setText("NEEDLE")
    viewer.search.find_next()
    qtbot.waitUntil(lambda: viewer.selected_row() is not None, timeout=WAIT_MS)
    row = viewer.selected_row()
    assert row is not None and viewer.model.turns[row].id == conversation_turn(PAIR, 2).id
    assert not viewer.has_older

    viewer.find_field.setText("absent words")
    viewer.search.find_next()
    assert viewer.status.text() == "“absent words” is not in this conversation above the selection."


def test_refresh_on_an_event_loads_new_turns_and_raw_log_opens_the_file(
    qtbot: QtBot, core: Core, knowledge_world: KnowledgeWorld
) -> None:
    record(core, knowledge_world, 0, 5)
    opened: list[str] = []
    viewer = make_viewer(qtbot, core, knowledge_world, opened)
    with qtbot.waitSignal(viewer.pageShown, timeout=WAIT_MS):
        viewer.show_conversation(PAIR, "Main ↔ Architect")
    record(core, knowledge_world, 5, 2)

    with qtbot.waitSignal(viewer.pageShown, timeout=WAIT_MS):
        viewer.on_event(OrchestrationNews("p", RendezvousEnded("t", MAIN, ARCHITECT, "replied", 5)))
    assert len(viewer.model.turns) == 7
    viewer.open_raw_log()
    assert opened == [str(Path(knowledge_world.root) / ".ideai" / "conversations" / PAIR / "log.jsonl")]


def test_an_empty_conversation_says_so(qtbot: QtBot, core: Core, knowledge_world: KnowledgeWorld) -> None:
    viewer = make_viewer(qtbot, core, knowledge_world)
    with qtbot.waitSignal(viewer.pageShown, timeout=WAIT_MS):
        viewer.show_conversation(PAIR, "Main ↔ Architect")
    assert viewer.beginning.text() == "No turn recorded in this conversation yet."



def test_short_turns_that_do_not_fill_the_view_bring_older_pages_by_themselves(
    qtbot: QtBot, core: Core, knowledge_world: KnowledgeWorld
) -> None:
    record(core, knowledge_world, 0, 400, "ok")
    viewer = make_viewer(qtbot, core, knowledge_world)
    viewer.resize(900, 4000)  # taller than 50 one-line turns

    viewer.show_conversation(PAIR, "Main ↔ Architect")

    qtbot.waitUntil(lambda: viewer.view.verticalScrollBar().maximum() > 0, timeout=WAIT_MS)
    qtbot.wait(200)
    assert 100 <= len(viewer.model.turns) < 400 and viewer.has_older  # filled, then the rest waits for a scroll


def test_opened_for_a_late_reply_the_viewer_selects_it(qtbot: QtBot, core: Core, knowledge_world: KnowledgeWorld) -> None:
    ticket = "30000000-0000-4000-8000-000000000001"
    record(core, knowledge_world, 0, 8)
    late = replace(conversation_turn(PAIR, 8, "build green after 12 min"), ticket=ticket, late=True)
    core.run(knowledge_world.stores.conversations.append(late))
    record(core, knowledge_world, 9, 3)
    viewer = make_viewer(qtbot, core, knowledge_world)

    with qtbot.waitSignal(viewer.pageShown, timeout=WAIT_MS):
        viewer.show_conversation(PAIR, "Main ↔ Architect", reveal_late_reply=ticket)

    [selected] = viewer.view.selectionModel().selectedRows()
    assert viewer.model.turns[selected.row()].id == late.id

    with qtbot.waitSignal(viewer.pageShown, timeout=WAIT_MS):
        viewer.show_conversation(PAIR, "Main ↔ Architect", reveal_late_reply="30000000-0000-4000-8000-000000000002")
    assert viewer.view.selectionModel().selectedRows() == []
    assert viewer.status.text() == "That late reply is older than the turns shown: scroll up to find it."
    bar = viewer.view.verticalScrollBar()
    assert bar.value() == bar.maximum()
