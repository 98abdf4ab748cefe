"""The Agents panel's view: a page for "no project", one for an empty team, and the team itself — one row
per agent (state dot, name, what it does, where it runs, what it needs) above the selected agent's queue."""

from __future__ import annotations

import html
from collections.abc import Sequence

from PySide6.QtCore import QPoint, Qt, Signal
from PySide6.QtGui import QAction, QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from idea.application.agents.agent_activity import AgentActivity
from idea.application.agents.agent_rows import AgentRow, AgentState
from idea.application.agents.templates import TemplateLink
from idea.domain.ids import AgentId
from idea.domain.wording import counted
from idea.infrastructure.agent_watching import format_local_time
from idea.ui.agents.queue_section import QueueSection
from idea.ui.theme import Colors, palette_colors
from idea.ui.widgets.list_row_delegate import ListRowDelegate

NO_PROJECT_PAGE, EMPTY_TEAM_PAGE, LIST_PAGE = 0, 1, 2
AGENT_ID_ROLE = Qt.ItemDataRole.UserRole + 1


class AgentList(QStackedWidget):
    """`activated(agent_id)`: a double-click or Enter on a row; `selectionChanged()`; `menuRequested(point)`
    in the list's viewport coordinates; `newAgentRequested()` from the empty team's button."""

    activated = Signal(str)
    selectionChanged = Signal()
    menuRequested = Signal(QPoint)
    newAgentRequested = Signal()

    def __init__(self, send_action: QAction, interrupt_action: QAction, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.list = QListWidget()
        self.list.setAccessibleName("Agents")
        self._drawn: dict[AgentId, tuple[object, ...]] = {}  # what each row shows, as `_item_look` gives it
        self.list.setItemDelegate(ListRowDelegate(self.list))
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.list.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.list.customContextMenuRequested.connect(self.menuRequested)
        self.list.itemActivated.connect(lambda item: self.activated.emit(item.data(AGENT_ID_ROLE)))
        self.list.currentItemChanged.connect(lambda _c, _p: self.selectionChanged.emit())
        self.list.setFrameShape(QListWidget.Shape.NoFrame)
        # Rows take the panel's width and elide their texts: never a sideways scroll.
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.queue = QueueSection(send_action, interrupt_action)
        team = QSplitter(Qt.Orientation.Vertical)
        team.setChildrenCollapsible(False)
        team.addWidget(self.list)
        team.addWidget(self.queue)
        team.setStretchFactor(0, 1)
        team.setStretchFactor(1, 1)
        self.addWidget(_message_page("Open a project to manage its agents."))
        self.addWidget(self._empty_team_page())
        self.addWidget(team)

    def selected_agent(self) -> AgentId | None:
        item = self.list.currentItem()
        return item.data(AGENT_ID_ROLE) if item is not None else None

    def select(self, agent_id: AgentId) -> bool:
        """Select the agent's row; False when it is not listed (yet)."""
        for index in range(self.list.count()):
            if self.list.item(index).data(AGENT_ID_ROLE) == agent_id:
                self.list.setCurrentRow(index)
                return True
        return False

    def show_nothing(self) -> None:
        self.list.clear()
        self._drawn.clear()
        self.setCurrentIndex(NO_PROJECT_PAGE)

    def show_rows(self, rows: Sequence[AgentRow], now_ms: int, selected: AgentId | None) -> None:
        """Draw the rows (items are kept while the agents stay the same) and select `selected`, else keep
        the selection, else select the first row."""
        ids = [row.agent_id for row in rows]
        listed = [self.list.item(i).data(AGENT_ID_ROLE) for i in range(self.list.count())]
        self.list.blockSignals(True)
        rebuilt = ids != listed
        if rebuilt:
            self.list.clear()
            self._drawn.clear()
            for row in rows:
                item = QListWidgetItem()
                item.setData(AGENT_ID_ROLE, row.agent_id)
                self.list.addItem(item)
        relaid = rebuilt
        colors = palette_colors(self)
        for index, row in enumerate(rows):
            look = _item_look(row, now_ms, colors)
            before = self._drawn.get(row.agent_id)
            if look == before:
                continue  # an ask publishes a dozen events; most leave most rows as they are
            relaid = relaid or before is None or _lines_of(look) != _lines_of(before)
            _paint_item(self.list.item(index), look)
            self._drawn[row.agent_id] = look
        self.list.blockSignals(False)
        if relaid:
            self.list.doItemsLayout()  # a row grows a line when its agent has something to say
        if selected in ids:
            self.list.setCurrentRow(ids.index(selected))
        elif self.list.currentItem() is None and ids:
            self.list.setCurrentRow(0)
        if rebuilt:
            self.list.viewport().update()  # otherwise each changed item repaints its own rectangle
        self.setCurrentIndex(LIST_PAGE if rows else EMPTY_TEAM_PAGE)

    def show_queue(self, row: AgentRow | None, activity: AgentActivity | None) -> None:
        self.queue.show_agent(row.name if row else None, activity, running=row is not None and row.is_live)

    def _empty_team_page(self) -> QWidget:
        page = QWidget()
        column = QVBoxLayout(page)
        column.addStretch(1)
        title = QLabel("<b>No agents yet</b>")
        title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        hint = QLabel("Create one from a starter template (Orchestrator, Architect, Developer…) or from scratch.")
        hint.setWordWrap(True)
        hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        hint.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        button = QPushButton("New agent…")
        button.clicked.connect(self.newAgentRequested)
        column.addWidget(title)
        column.addWidget(hint)
        column.addWidget(button, 0, Qt.AlignmentFlag.AlignHCenter)
        column.addStretch(2)
        return page


_ROLES = (
    Qt.ItemDataRole.DisplayRole,
    ListRowDelegate.BADGE_ROLE,
    ListRowDelegate.NOTE_ROLE,
    ListRowDelegate.NOTE_COLOR_ROLE,
    ListRowDelegate.DOT_ROLE,
    ListRowDelegate.HOLLOW_ROLE,
    ListRowDelegate.SUBTITLE_ROLE,
    ListRowDelegate.MARK_ROLE,
    ListRowDelegate.MARK_COLOR_ROLE,
    ListRowDelegate.ALERT_ROLE,
    ListRowDelegate.ALERT_COLOR_ROLE,
    ListRowDelegate.ACTIVITY_ROLE,
    Qt.ItemDataRole.ToolTipRole,
)
_LINE_ROLES = (
    ListRowDelegate.SUBTITLE_ROLE, ListRowDelegate.MARK_ROLE, ListRowDelegate.ALERT_ROLE, ListRowDelegate.ACTIVITY_ROLE,
)  # fmt: skip


def _item_look(row: AgentRow, now_ms: int, c: Colors) -> tuple[object, ...]:
    """What the row's item shows, one value per role of `_ROLES`."""
    if row.ended_badly:
        dot = c.error
    elif row.state is AgentState.RUNNING:
        dot = c.ok
    elif row.state is AgentState.STARTING:
        dot = c.warn
    else:
        dot = c.muted
    return (
        row.name,
        "orchestrator" if row.is_orchestrator else "",
        row.note(now_ms),
        c.warn if row.attention_text else c.accent if row.is_busy else dot,
        dot,
        not row.is_live,
        row.details(),
        " · ".join(mark for mark in (row.sign_in_text, row.context_text, row.late_reply_text) if mark),
        c.warn if row.sign_in_text or row.context_text else c.accent,
        row.attention_text or row.limit_text(now_ms, format_local_time) or row.stalled_text,
        c.warn,
        row.work_text,
        _tooltip(row, now_ms),
    )


def _lines_of(look: tuple[object, ...]) -> tuple[bool, ...]:
    """Which of the row's optional lines are shown: what its height depends on."""
    return tuple(bool(look[_ROLES.index(role)]) for role in _LINE_ROLES)


def _paint_item(item: QListWidgetItem, look: tuple[object, ...]) -> None:
    for role, value in zip(_ROLES, look, strict=True):
        item.setData(role, value)


def _message_page(text: str) -> QWidget:
    label = QLabel(text)
    label.setAlignment(Qt.AlignmentFlag.AlignCenter)
    label.setWordWrap(True)
    label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
    label.setContentsMargins(16, 16, 16, 16)
    return label


def _tooltip(row: AgentRow, now_ms: int) -> str:
    lines = [f"Profile: {row.profile_name}" + (f" ({row.delegation} delegation)" if row.delegation else "")]
    lines.append(f"State: {row.state_text}")
    if row.sign_in is not None:
        lines.append(f"{row.sign_in_text}: {row.sign_in.what_to_do}")
    if row.context_change_text:
        lines.append(row.context_change_text)
    if row.since_text():
        lines.append(row.since_text())
    if row.queue_depth:
        lines.append(f"Queue: {counted(row.queue_depth, 'ticket')}")
    if row.work_text:
        lines.append(f"Live-state: {row.work_text}")
    if row.attention_text:
        message = row.activity.attention_message
        lines.append(f"Needs you: {message or row.activity.attention}")
    limit = row.limit_text(now_ms, format_local_time)
    if limit:
        lines.append(f"Usage limit: {limit}")
    if row.stalled_text:
        lines.append(f"Liveness: {row.stalled_text} (it may still be thinking)")
    if row.late_reply_text:
        lines.append(f"Late replies to its asks: {row.activity.late_replies} (shown to it as tasks when it runs)")
    if row.activity.last_request is not None:
        lines.append(f"Last request: {row.activity.last_request.describe()}")
    lines.append(f"Where: {row.place_text}")
    if row.worktree is not None:
        lines.append(f"Works in its own worktree: {row.worktree.path} (branch {row.worktree.branch})")
    if row.bridge_text:
        lines.append(f"Bridge: {row.bridge_text.removeprefix('bridge ')}")
    template = row.template.template
    if row.template.link is TemplateLink.TEMPLATE_DELETED:
        lines.append("Template: deleted (the persona stays)")
    elif template is not None:
        status = f" — {row.template.describe()}" if row.template_text else ""
        lines.append(f"Template: {template.name} v{template.version}{status}")
    title = f"<b>{html.escape(row.name)}</b>" + (" — orchestrator" if row.is_orchestrator else "")
    return "<br>".join([title, *(html.escape(line) for line in lines)])
