"""The work panel (spec 04 §15): what every agent is doing, its queue, and the conversations of that work with
a bounded preview each. It only shows and asks: actions are signals the window connects to the use cases;
it never launches an agent by itself.

It recomputes the read model when a project event says something changed (debounced), when shown, and on
the Refresh button; it never polls the disk. A part that cannot be read shows a placeholder; the rest of
the panel stays.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Coroutine
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QGuiApplication, QPalette, QShowEvent
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from idea.domain.ids import ConversationId
from idea.domain.knowledge.work_state import (
    AgentWork,
    ConversationWork,
    Liveness,
    NoticeLevel,
    ProjectWorkState,
    SummaryStatus,
    conversation_parties,
)
from idea.domain.orchestration.events import LateReplyView, QueuedTicketView
from idea.domain.orchestration.tickets import AgentSource, TicketPhase
from idea.domain.wording import counted
from idea.ui.knowledge.common import Caller, StatusLine, call_for, clock_time, theme_of, tool_button
from idea.ui.theme import Colors
from idea.ui.widgets.timers import single_shot_timer

REFRESH_DEBOUNCE_MS = 250
LATE_REPLIES_SHOWN = 3  # the latest; the count says how many more
PHASES = {
    TicketPhase.QUEUED: "queued",
    TicketPhase.DELIVERING: "waiting to be typed",
    TicketPhase.DELIVERED: "delivered",
    TicketPhase.AWAITING_REPLY: "awaiting reply",
}
ATTENTION_TEXT = {
    "permission": "a permission",
    "input": "your input",
    "trust": "the folder trust question",
    "signIn": "sign-in",
    "question": "an answer on its screen",
    "notStarted": "it did not start",
    "deliveryStuck": "a task may sit in its input box",
}
STATUS_TEXT = {
    SummaryStatus.READY: "summary",
    SummaryStatus.MISSING: "no summary yet",
    SummaryStatus.PARTIAL: "summary unreadable",
    SummaryStatus.UNAVAILABLE: "unavailable",
}


def readable_summary(preview: str, objective: str | None) -> str:
    """The summary preview (one collapsed line of the handoff's Markdown) as a person reads it: without the
    objective shown above it, each turn introduced by who spoke."""
    text = preview
    for header in ("**Objective:**", "**Objectif :**"):
        if text.startswith(header):
            text = text[len(header) :].lstrip()
            if objective and text.startswith(objective):
                text = text[len(objective) :].lstrip()
    for marker, shown in (("- **Prompt:**", "▸ asked:"), ("- **Response:**", "▸ answered:"), ("- **Tool:**", "▸ tool:")):
        text = text.replace(marker, shown)
    return plain(text)


def plain(text: str) -> str:
    """A collapsed Markdown preview as plain words: without emphasis and code marks."""
    return text.replace("**", "").replace("`", "")


def _wrapped(rich: str) -> QLabel:
    label = QLabel(rich)
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.RichText)
    label.setMinimumWidth(1)
    return label


def _colored(text: str, color: str) -> QLabel:
    label = QLabel(text)
    label.setWordWrap(True)
    label.setStyleSheet(f"color: {color};")
    return label


def _actions() -> QHBoxLayout:
    """The buttons under a card, right-aligned."""
    row = QHBoxLayout()
    row.setContentsMargins(0, 0, 0, 0)
    row.setSpacing(2)
    row.addStretch(1)
    return row


def _muted(text: str, wrap: bool = False) -> QLabel:
    label = QLabel(text)
    label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
    label.setWordWrap(wrap)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


class Card(QFrame):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.column = QVBoxLayout(self)
        self.column.setContentsMargins(10, 6, 6, 6)
        self.column.setSpacing(3)


class AgentCard(Card):
    """An agent: where it runs and what it does, what other features say of it, its tickets; the actions on
    a running agent under it (the panel never starts one)."""

    def __init__(self, agent: AgentWork, panel: WorkPanel) -> None:
        super().__init__()
        self.agent_id = agent.agent_id
        theme = theme_of(panel)
        where = "stopped" if agent.live is None else ("in a cell" if agent.live.node_id else "in the background")
        busy = agent.queue.busy if agent.queue is not None else None
        state = "idle" if busy is None else f"busy since {clock_time(busy.since_ms)}"
        self.state = _wrapped(f"<b>{html.escape(agent.name)}</b> · {where}" + (f" · {state}" if agent.live else ""))
        self.column.addWidget(self.state)
        if agent.live is not None and agent.queue is not None and agent.queue.bridge_connected:
            self.column.addWidget(_colored("● connected to IdeA", theme.ok))
        if agent.attention is not None:
            reason = ATTENTION_TEXT.get(agent.attention.reason, agent.attention.reason)
            text = f"Waiting for you ({reason})" + (f": {agent.attention.message}" if agent.attention.message else "")
            self.column.addWidget(_colored(text, theme.warn))
        for text, color in _agent_notes(agent, theme):
            self.column.addWidget(_colored(text, color))
        late = agent.queue.late if agent.queue is not None else ()
        if len(late) > LATE_REPLIES_SHOWN:
            self.column.addWidget(_muted(f"{counted(len(late), 'late reply', 'late replies')} to its asks; the latest:"))
        self.late_replies = [LateReplyLine(agent.name, reply, panel) for reply in late[-LATE_REPLIES_SHOWN:]]
        for line in self.late_replies:
            self.column.addWidget(line)
        self.tickets = [TicketLine(ticket, panel) for ticket in agent.tickets]
        for line in self.tickets:
            self.column.addWidget(line)
        if agent.live is not None:
            actions = _actions()
            if agent.live.node_id:
                actions.addWidget(tool_button("Open", "Go to its cell", lambda: panel.openAgentRequested.emit(self.agent_id)))
            else:
                actions.addWidget(tool_button(
                    "Attach", "Show it in a free cell (nothing restarts)", lambda: panel.attachRequested.emit(self.agent_id)
                ))
            actions.addWidget(tool_button(
                "Stop", "Stop its process; its history and handoffs stay", lambda: panel.stopRequested.emit(self.agent_id)
            ))
            self.column.addLayout(actions)


def _agent_notes(agent: AgentWork, theme: Colors) -> list[tuple[str, str]]:
    """What other features say of the agent (liveness, session limit, notices), each with its colour."""
    notes: list[tuple[str, str]] = []
    if agent.liveness is Liveness.STALLED:
        notes.append(("No sign of activity for a while: its turn may be stuck", theme.warn))
    if agent.rate_limit is not None:
        limit = agent.rate_limit
        text = "Session limit reached"
        if limit.resets_at_ms is not None:
            text += f"; resets at {clock_time(limit.resets_at_ms)}"
        if limit.resume_fire_at_ms is not None:
            text += f"; IdeA resumes it at {clock_time(limit.resume_fire_at_ms)}"
        notes.append((text, theme.warn))
    colors = {NoticeLevel.INFO: theme.muted, NoticeLevel.WARNING: theme.warn, NoticeLevel.ERROR: theme.error}
    notes.extend((notice.text, colors[notice.level]) for notice in agent.notices)
    return notes


class LateReplyLine(QWidget):
    """A reply to one of the agent's asks that came after it stopped waiting: who replied, when, and a way to
    read it in its conversation."""

    def __init__(self, agent_name: str, reply: LateReplyView, panel: WorkPanel) -> None:
        super().__init__()
        self.ticket_id = reply.ticket_id
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 2, 0, 0)
        row.addWidget(_muted(f"Late reply from {reply.from_label} at {clock_time(reply.at_ms)}", wrap=True), 1)
        self.show_button = tool_button(
            "Show", "Open the conversation at that reply",
            lambda: panel.lateReplyRequested.emit(
                reply.conversation_id, reply.ticket_id, f"{agent_name} ↔ {reply.from_label}"
            ),
        )
        row.addWidget(self.show_button)


class TicketLine(QWidget):
    """A ticket of the agent's queue: who sent it and where it is, a preview of its task, and what the person
    can do about it."""

    def __init__(self, ticket: QueuedTicketView, panel: WorkPanel) -> None:
        super().__init__()
        self.ticket_id = ticket.ticket_id
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 4, 0, 0)
        column.setSpacing(1)
        phase = PHASES.get(ticket.phase, ticket.phase.value)
        column.addWidget(_wrapped(f"{ticket.position + 1}. from <b>{html.escape(ticket.requester_label)}</b> · {phase}"))
        more = f" ({ticket.task_len:,} characters)" if ticket.task_len > len(ticket.task_preview) else ""
        self.preview = _muted(ticket.task_preview + more, wrap=True)
        column.addWidget(self.preview)
        actions = _actions()
        if ticket.phase is TicketPhase.DELIVERING:
            actions.addWidget(tool_button(
                "Deliver now", "Clear the agent's input line and type the task now",
                lambda: panel.deliverNowRequested.emit(self.ticket_id),
            ))
        actions.addWidget(tool_button(
            "Cancel", "Stop waiting for this ticket", lambda: panel.cancelTicketRequested.emit(self.ticket_id)
        ))
        column.addLayout(actions)


class ConversationCard(Card):
    """A conversation of that work: its objective and the bounded summary (never the transcript), or its
    last turns when it has no summary yet."""

    def __init__(self, conversation: ConversationWork, title: str, panel: WorkPanel) -> None:
        super().__init__()
        self.conversation_id = conversation.conversation_id
        self.title = title
        theme = theme_of(panel)
        color = {
            SummaryStatus.READY: theme.muted,
            SummaryStatus.MISSING: theme.muted,
            SummaryStatus.PARTIAL: theme.warn,
            SummaryStatus.UNAVAILABLE: theme.error,
        }[conversation.status]
        status = STATUS_TEXT[conversation.status]
        self.column.addWidget(_wrapped(f'<b>{html.escape(title)}</b> <span style="color:{color}">· {status}</span>'))
        self._summary = conversation.summary_preview or ""
        if conversation.objective_preview:
            self.column.addWidget(_wrapped(html.escape(plain(conversation.objective_preview))))
        if conversation.summary_preview:
            self.column.addWidget(_muted(readable_summary(conversation.summary_preview, conversation.objective_preview), wrap=True))
        for recent in conversation.recent_turns:
            who = "You" if not isinstance(recent.turn.source, AgentSource) else panel.agent_name(recent.turn.source.agent_id)
            self.column.addWidget(_muted(f"{who} · {clock_time(recent.turn.at_ms)}: {recent.text_preview}", wrap=True))
        if conversation.status is SummaryStatus.UNAVAILABLE:
            self.column.addWidget(_muted("Neither its summary nor its log could be read; see the diagnostics log.", wrap=True))
        actions = _actions()
        actions.addWidget(tool_button(
            "View conversation", "Read the whole conversation",
            lambda: panel.viewConversationRequested.emit(self.conversation_id, self.title),
        ))
        if conversation.summary_preview:
            self.copy_button = tool_button("Copy summary", "Copy the summary preview (never the transcript)", self._copy)
            actions.addWidget(self.copy_button)
        self.column.addLayout(actions)

    def _copy(self) -> None:
        QGuiApplication.clipboard().setText(self._summary)


class WorkPanel(QWidget):
    openAgentRequested = Signal(str)
    attachRequested = Signal(str)
    stopRequested = Signal(str)
    cancelTicketRequested = Signal(str)
    deliverNowRequested = Signal(str)
    viewConversationRequested = Signal(str, str)  # conversation id, title
    lateReplyRequested = Signal(str, str, str)  # conversation id, the ask's ticket id, title
    rendered = Signal()

    def __init__(
        self,
        caller: Caller,
        read: Callable[[], Coroutine[Any, Any, ProjectWorkState]],
        *,
        agent_name: Callable[[str], str],
        refreshes_on: Callable[[object], bool],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._caller = caller
        self._read = read
        self.agent_name = agent_name
        self._refreshes_on = refreshes_on
        self.state: ProjectWorkState | None = None
        self._reading = False
        self._again = False
        self.refresh_button = tool_button("Refresh", "Read the team's state again", self.refresh)
        header = QHBoxLayout()
        header.setContentsMargins(8, 2, 4, 0)
        header.addWidget(_muted("What the team is doing, and the conversations of that work", wrap=True), 1)
        header.addWidget(self.refresh_button)
        self.status = StatusLine()
        self._body = QWidget()
        self._column = QVBoxLayout(self._body)
        self._column.setContentsMargins(6, 0, 6, 6)
        self._column.setSpacing(6)
        self.scroll = scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(self._body)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(header)
        layout.addWidget(self.status)
        layout.addWidget(scroll, 1)
        self.agent_cards: list[AgentCard] = []
        self.conversation_cards: list[ConversationCard] = []
        self._timer = single_shot_timer(self, REFRESH_DEBOUNCE_MS, self.refresh)

    def reveal_ticket(self, ticket_id: str) -> bool:
        """Scroll the ticket's line into view and select its preview; False when it is not listed."""
        for card in self.agent_cards:
            for line in card.tickets:
                if line.ticket_id == ticket_id:
                    self.scroll.ensureWidgetVisible(line)
                    line.preview.setSelection(0, len(line.preview.text()))
                    return True
        return False

    def on_event(self, event: object) -> None:
        if self._refreshes_on(event):
            self._timer.start()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.refresh()

    def refresh(self) -> None:
        if self._reading:
            self._again = True
            return
        self._reading = True
        call_for(self, self._caller, self._read(), self._show, self._failed)

    def _failed(self, error: BaseException) -> None:
        self._finish()
        self.status.fail(error)  # the last state stays on screen

    def _finish(self) -> None:
        self._reading = False
        if self._again:
            self._again = False
            self.refresh()

    def _show(self, state: ProjectWorkState) -> None:
        self.state = state
        while (item := self._column.takeAt(0)) is not None:
            widget = item.widget()
            if widget is not None:
                widget.deleteLater()
        self._column.addWidget(QLabel("<b>Agents</b>"))
        self.agent_cards = [AgentCard(agent, self) for agent in state.agents]
        for card in self.agent_cards:
            self._column.addWidget(card)
        if not self.agent_cards:
            self._column.addWidget(_muted("No agent in this project yet, or the team could not be read."))
        self._column.addWidget(QLabel("<b>Conversations</b>"))
        titles = self._titles(state)
        self.conversation_cards = [
            ConversationCard(c, titles.get(c.conversation_id, f"Conversation {c.conversation_id[:8]}"), self)
            for c in state.conversations
        ]
        for card in self.conversation_cards:
            self._column.addWidget(card)
        if not self.conversation_cards:
            self._column.addWidget(_muted("No delegation in progress or recently ended."))
        self._column.addStretch(1)
        if state.problems:
            self.status.fail("Some parts could not be read: " + "; ".join(state.problems))
        else:
            self.status.say("")
        self._finish()
        self.rendered.emit()

    def _titles(self, state: ProjectWorkState) -> dict[ConversationId, str]:
        names = {agent.agent_id: agent.name for agent in state.agents}
        titles: dict[ConversationId, str] = {}
        for conversation in state.conversations:
            parties = conversation_parties(conversation.conversation_id, list(names))
            if parties is not None:
                first, second = parties
                titles[conversation.conversation_id] = (
                    f"You ↔ {names[first]}" if second is None else f"{names[first]} ↔ {names[second]}"
                )
        return titles
