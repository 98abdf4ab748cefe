"""The conversation viewer (spec 04 §9): a person reads any conversation, newest turns first at the bottom,
older pages loaded as they scroll up, never the whole log. Read-only; a human surface only.

Search looks through the loaded turns and, when asked, keeps loading older pages until it finds the text or
reaches the beginning. A turn can be copied whole (never truncated), as can everything loaded; "Open raw log"
opens the active `log.jsonl`. Refreshes come from events (`on_event`), debounced; nothing polls the disk.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any, Protocol

from PySide6.QtCore import QItemSelectionModel, QUrl, Qt, Signal
from PySide6.QtGui import QAction, QDesktopServices, QGuiApplication, QKeySequence, QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QLabel,
    QListView,
    QMenu,
    QVBoxLayout,
    QWidget,
)

from idea.domain.knowledge.conversation_log import ConversationTurn
from idea.domain.knowledge.conversation_pages import TurnPage
from idea.domain.ids import ConversationId, TicketId
from idea.domain.orchestration.events import (
    AgentQueueChanged,
    DelegationDelivered,
    DelegationReady,
    HumanReplyReceived,
    LateReplyAvailable,
    RendezvousEnded,
)
from idea.domain.orchestration.tickets import AgentSource
from idea.domain.wording import counted
from idea.ui.knowledge.common import Caller, StatusLine, call_for, clock_time, tool_button, unwrapped
from idea.ui.knowledge.turn_list import TurnDelegate, TurnListModel
from idea.ui.knowledge.turn_search import TurnSearch
from idea.ui.widgets.timers import single_shot_timer

REFRESH_DEBOUNCE_MS = 500
LOAD_OLDER_AT_PX = 40
_REFRESHING = (DelegationReady, DelegationDelivered, RendezvousEnded, AgentQueueChanged, LateReplyAvailable, HumanReplyReceived)


class ConversationPagesPort(Protocol):
    """`ConversationPages` of the application layer."""

    def read(
        self, conversation: ConversationId, anchor: str | None = None, direction: str | None = None, limit: int | None = None
    ) -> Coroutine[Any, Any, TurnPage]: ...

    def open(self, conversation: ConversationId, limit: int | None = None) -> Coroutine[Any, Any, TurnPage]: ...


def _open_file(path: str) -> None:
    QDesktopServices.openUrl(QUrl.fromLocalFile(path))


def viewer_shortcuts() -> tuple[tuple[str, QKeySequence], ...]:
    """The viewer's keys (while it has the focus), as it makes them and Help ▸ Keyboard shortcuts lists them."""
    return (
        ("Copy turn", QKeySequence(QKeySequence.StandardKey.Copy)),
        ("Find", QKeySequence(QKeySequence.StandardKey.Find)),
        ("Back to the grid", QKeySequence(Qt.Key.Key_Escape)),
    )


class ConversationViewer(QWidget):
    """`backRequested`: the person wants the layout grid back; `openTicketRequested(ticket_id)`."""

    backRequested = Signal()
    openTicketRequested = Signal(str)
    pageShown = Signal()  # a page was loaded and laid out (tests, benchmarks)

    def __init__(
        self,
        caller: Caller,
        pages: ConversationPagesPort,
        *,
        agent_name: Callable[[str], str],
        raw_log_path: Callable[[ConversationId], str],
        open_file: Callable[[str], None] = _open_file,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._caller = caller
        self._pages = pages
        self._agent_name = agent_name
        self._raw_log_path = raw_log_path
        self._open_file = open_file
        self.conversation: ConversationId | None = None
        self.has_older = False
        self._loading = False
        self._generation = 0  # pages of a conversation closed meanwhile are dropped
        self._reveal: TicketId | None = None  # the late reply to select once the conversation is open

        self.back_button = tool_button("← Back", "Back to the terminals (Esc)", self.backRequested.emit)
        self.title = QLabel()
        title_font = self.title.font()
        title_font.setBold(True)
        self.title.setFont(title_font)
        self.search = TurnSearch(self)
        self.find_field = self.search.field
        self.refresh_button = tool_button("Refresh", "Load turns recorded since", self.refresh)
        self.raw_button = tool_button("Open raw log", "Open log.jsonl, the active segment of the transcript", self.open_raw_log)
        header = QHBoxLayout()
        header.setContentsMargins(6, 4, 6, 4)
        header.addWidget(self.back_button)
        header.addWidget(self.title, 1)
        header.addWidget(self.find_field, 1)
        header.addWidget(self.refresh_button)
        header.addWidget(self.raw_button)

        self.beginning = QLabel()
        self.beginning.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.beginning.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.model = TurnListModel(self)
        self.view = QListView()
        self.view.setAccessibleName("Turns")
        self.view.setModel(self.model)
        self.delegate = TurnDelegate(self._author, self.view)
        self.view.setItemDelegate(self.delegate)
        self.view.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.view.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        # A scroll bar that appears would change the width and lay every loaded turn out again.
        self.view.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOn)
        self.view.setResizeMode(QListView.ResizeMode.Adjust)
        self.view.setWordWrap(True)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.view.customContextMenuRequested.connect(self._menu)
        self.view.verticalScrollBar().valueChanged.connect(self._scrolled)
        self.status = StatusLine()

        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        column.addLayout(header)
        column.addWidget(self.beginning)
        column.addWidget(self.view, 1)
        column.addWidget(self.status)

        self._refresh_timer = single_shot_timer(self, REFRESH_DEBOUNCE_MS, self.refresh)
        slots = {
            "Copy turn": self.copy_selected, "Find": self.find_field.setFocus, "Back to the grid": self.backRequested.emit,
        }
        for text, keys in viewer_shortcuts():
            action = QAction(text, self)
            action.setShortcut(keys)
            action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            action.triggered.connect(slots[text])
            self.addAction(action)

    # ------------------------------------------------------------------ opening and paging

    def show_conversation(
        self, conversation: ConversationId, title: str, reveal_late_reply: TicketId | None = None
    ) -> None:
        """The newest page, scrolled to the bottom (or to the late reply to `reveal_late_reply`, selected); the
        conversation's rotation starts in the background."""
        self._generation += 1
        self._reveal = reveal_late_reply
        self.conversation = conversation
        self.title.setText(title)
        self.model.reset()
        self.delegate.clear()
        self.has_older = False
        self.beginning.setText("Loading…")
        self.status.say("")
        self._request(self._pages.open(conversation), self._opened)

    def _opened(self, page: TurnPage) -> None:
        self.model.reset(page.turns)
        self.has_older = page.has_more
        self._update_beginning()
        reveal, self._reveal = self._reveal, None
        rows = [row for row, turn in enumerate(page.turns) if reveal is not None and turn.ticket == reveal and turn.late]
        if reveal is not None and not rows:
            self.status.say("That late reply is older than the turns shown: scroll up to find it.")
            self.layout().activate()  # the line shown takes its height before the view scrolls
        self.view.doItemsLayout()
        self.view.scrollToBottom()
        if rows:
            self.select_row(rows[-1])
        self.pageShown.emit()
        self._fill_view()

    def _fill_view(self) -> None:
        """Short turns that do not fill the view leave nothing to scroll: older pages come by themselves."""
        if self.has_older and self.view.verticalScrollBar().maximum() <= 0:
            self.load_older()

    def load_older(self) -> None:
        if self.conversation is None or self._loading or not self.has_older or not self.model.turns:
            return
        oldest = self.model.turns[0].id
        self._request(self._pages.read(self.conversation, anchor=oldest, direction="backward"), self._older_loaded)

    def _older_loaded(self, page: TurnPage) -> None:
        bar = self.view.verticalScrollBar()
        before_max, before_value = bar.maximum(), bar.value()
        added = self.model.prepend(page.turns)
        self.has_older = page.has_more and added > 0
        self._update_beginning()
        self.view.doItemsLayout()
        bar.setValue(before_value + (bar.maximum() - before_max))  # the turn being read stays in place
        self.pageShown.emit()
        if self.search.searching:
            self.search.older_loaded(added)
        else:
            self._fill_view()

    def refresh(self) -> None:
        """Turns recorded since the newest loaded one (a forward page)."""
        if self.conversation is None or self._loading:
            return
        if not self.model.turns:
            self.show_conversation(self.conversation, self.title.text())
            return
        newest = self.model.turns[-1].id
        self._request(self._pages.read(self.conversation, anchor=newest, direction="forward"), self._newer_loaded)

    def _newer_loaded(self, page: TurnPage) -> None:
        bar = self.view.verticalScrollBar()
        at_bottom = bar.value() >= bar.maximum() - 4
        self.model.append(page.turns)
        self.view.doItemsLayout()
        if at_bottom:
            self.view.scrollToBottom()
        self.pageShown.emit()
        if page.has_more:
            self.refresh_soon()

    def refresh_soon(self) -> None:
        self._refresh_timer.start()

    def on_event(self, event: object) -> None:
        """Project events: anything that may have recorded a turn refreshes the open conversation."""
        if self.conversation is not None and isinstance(unwrapped(event), _REFRESHING) and self.isVisible():
            self.refresh_soon()

    def _request(self, work: Coroutine[Any, Any, TurnPage], done: Callable[[TurnPage], None]) -> None:
        generation = self._generation
        self._loading = True

        def finished(page: TurnPage) -> None:
            if generation == self._generation:
                self._loading = False
                done(page)

        def failed(error: BaseException) -> None:
            if generation == self._generation:
                self._loading = False
                self.search.stop()
                self.beginning.setText("")
                self.status.fail(error)

        call_for(self, self._caller, work, finished, failed)

    def _scrolled(self, value: int) -> None:
        if value <= self.view.verticalScrollBar().minimum() + LOAD_OLDER_AT_PX:
            self.load_older()

    def _update_beginning(self) -> None:
        self.raw_button.setEnabled(bool(self.model.turns))  # no turn recorded: no log to open yet
        if not self.model.turns:
            self.beginning.setText("No turn recorded in this conversation yet.")
        elif self.has_older:
            self.beginning.setText("Scroll up for older turns")
        else:
            self.beginning.setText(f"Beginning of the conversation · {counted(len(self.model.turns), 'turn')}")

    # ------------------------------------------------------------------ selection

    def repaint_turns(self) -> None:
        self.view.viewport().update()

    def selected_row(self) -> int | None:
        rows = self.view.selectionModel().selectedRows()
        return min(index.row() for index in rows) if rows else None

    def select_row(self, row: int | None) -> None:
        selection = self.view.selectionModel()
        selection.clearSelection()
        if row is None:
            return
        index = self.model.index(row)
        selection.select(index, QItemSelectionModel.SelectionFlag.ClearAndSelect)
        selection.setCurrentIndex(index, QItemSelectionModel.SelectionFlag.NoUpdate)
        self.view.scrollTo(index, QAbstractItemView.ScrollHint.PositionAtCenter)

    # ------------------------------------------------------------------ copy, raw log, menu

    def copy_selected(self) -> None:
        rows = sorted(index.row() for index in self.view.selectionModel().selectedRows())
        if rows:
            QGuiApplication.clipboard().setText(self._as_text([self.model.turns[row] for row in rows]))
            self.status.say(f"Copied {counted(len(rows), 'turn')}.")

    def copy_all(self) -> None:
        QGuiApplication.clipboard().setText(self._as_text(self.model.turns))
        self.status.say(f"Copied the {len(self.model.turns)} loaded turns.")

    def open_raw_log(self) -> None:
        if self.conversation is not None:
            self._open_file(self._raw_log_path(self.conversation))

    def _as_text(self, turns: Any) -> str:
        return "\n\n".join(f"{self._author(turn)} — {clock_time(turn.at_ms)}\n{turn.text}" for turn in turns)

    def _menu(self, position: Any) -> None:
        index = self.view.indexAt(position)
        menu = QMenu(self)
        if index.isValid():
            if not self.view.selectionModel().isSelected(index):
                self.select_row(index.row())
            menu.addAction("Copy turn", self.copy_selected)
            turn: ConversationTurn = self.model.turns[index.row()]
            if turn.ticket:
                menu.addAction("Open the ticket in the work panel", lambda: self.openTicketRequested.emit(turn.ticket))
        menu.addAction("Copy all loaded turns", self.copy_all)
        menu.popup(self.view.viewport().mapToGlobal(position))

    def _author(self, turn: ConversationTurn) -> str:
        if isinstance(turn.source, AgentSource):
            return self._agent_name(turn.source.agent_id)
        return "You"
