"""What the person does from the work panel (spec 04 §15.2), each one use case of the project runtime:
where an agent runs (`runtime.placement`), what becomes of a ticket (`runtime.requests`), and which
conversation the window shows (the tab's viewer). The panel never launches an agent by itself: "Open" and
"Attach" are offered only for agents that run."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any, Protocol

from PySide6.QtWidgets import QWidget

from idea.application.orchestrator.ports import LiveAgent
from idea.application.projects import ProjectRuntime
from idea.domain.ids import AgentId, ConversationId, NodeId, SessionId, TicketId
from idea.domain.wording import capitalized
from idea.ui.knowledge.common import Caller
from idea.ui.widgets.messages import show_error


class WorkPanelHost(Protocol):
    """What the work panel asks of its window, about the window's current project tab."""

    def active_leaf(self) -> NodeId | None: ...

    def focus_session(self, session_id: SessionId) -> None: ...

    def open_conversation(
        self, conversation: ConversationId, title: str, reveal_late_reply: TicketId | None = None
    ) -> None:
        """Show the conversation in the tab's viewer, in place of the grid (the late reply to that ticket
        selected, when given)."""
        ...

    def show_message(self, text: str) -> None:
        """One line in the window's status bar."""
        ...


class WorkGestures:
    def __init__(self, client: Caller, runtime: ProjectRuntime, host: WorkPanelHost, widget: QWidget) -> None:
        self._client = client
        self._runtime = runtime
        self._host = host
        self._widget = widget

    def open_agent(self, agent_id: AgentId) -> None:
        """Go to the agent's cell; a background agent is shown in a cell first (nothing restarts)."""
        self._show(agent_id, f"Cannot show {self._name(agent_id)}")

    def attach(self, agent_id: AgentId) -> None:
        """Show a background agent in the active cell if free, else the first free cell or a new split."""
        self._show(agent_id, f"Cannot attach {self._name(agent_id)}")

    def stop(self, agent_id: AgentId) -> None:
        """Its process stops; the agent, its history, handoffs and provider ids stay."""
        name = self._name(agent_id)
        self._run(f"Cannot stop {name}", self._runtime.placement.stop(agent_id), lambda _: f"{name} stopped")

    def cancel_ticket(self, ticket_id: TicketId) -> None:
        self._run(
            "Cannot cancel the ticket",
            self._runtime.requests.cancel_ticket(ticket_id),
            capitalized,
        )

    def deliver_now(self, ticket_id: TicketId) -> None:
        self._run(
            "Cannot deliver the task",
            self._runtime.requests.deliver_now(ticket_id),
            lambda _: "Typing the waiting task now (the agent's input line is cleared)",
        )

    def view_conversation(self, conversation: ConversationId, title: str) -> None:
        self._host.open_conversation(conversation, title)

    def show_late_reply(self, conversation: ConversationId, ticket: TicketId, title: str) -> None:
        """The conversation, its late reply to `ticket` selected."""
        self._host.open_conversation(conversation, title, reveal_late_reply=ticket)

    def _show(self, agent_id: AgentId, failure: str) -> None:
        def shown(live: LiveAgent) -> str:
            if live.node_id is not None:
                self._host.focus_session(live.session_id)
            return ""

        self._run(failure, self._runtime.placement.show_running(agent_id, self._host.active_leaf()), shown)

    def _run(self, failure: str, work: Coroutine[Any, Any, Any], said: Callable[[Any], str]) -> None:
        def done(result: Any) -> None:
            message = said(result)
            if message:
                self._host.show_message(message)

        self._client.call(work, done, lambda error: show_error(self._widget, failure, error))

    def _name(self, agent_id: AgentId) -> str:
        entry = self._runtime.agents.manifest().by_id(agent_id)
        return entry.name if entry is not None else "the agent"
