"""What the Agents panel's gestures share: the core they submit to, the team they read, the widget their
dialogs and messages open from, and what they tell the panel back."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any

from PySide6.QtWidgets import QWidget

from idea.application.agents.agent_rows import AgentRow
from idea.application.projects import ProjectRuntime
from idea.domain.ids import AgentId
from idea.ui.agents.team_model import AgentsPanelHost, TeamModel
from idea.ui.core_client import CoreClient
from idea.ui.widgets.messages import show_error


@dataclass(frozen=True)
class GestureContext:
    client: CoreClient
    model: TeamModel
    host: AgentsPanelHost
    widget: QWidget  # the panel: parent of dialogs and messages
    selected_agent: Callable[[], AgentId | None]
    status: Callable[[str], None]  # one line for the window's status bar
    redraw: Callable[[], None]
    agent_focused: Callable[[AgentId], None]

    def selection(self, agent_id: AgentId | None = None) -> tuple[AgentRow, ProjectRuntime] | None:
        """The row of `agent_id` (by default the selected agent) and its project; None when there is no such
        agent in the current project."""
        row, runtime = self.model.row(agent_id or self.selected_agent()), self.model.runtime
        return (row, runtime) if row is not None and runtime is not None else None

    def run(self, failure_title: str, work: Coroutine[Any, Any, Any], on_done: Callable[[Any], None]) -> None:
        """Submit to the core; errors are shown to the person, never dropped."""
        self.client.call(work, on_done=on_done, on_error=lambda error: show_error(self.widget, failure_title, error))

    def done(self, message: str) -> Callable[[object], None]:
        """A completion that puts `message` in the status bar."""
        return lambda _result: self.status(message)
