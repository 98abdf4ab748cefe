"""The human nets of a window's other tabs (spec 05 §10). The toasts follow the current tab; an agent of
another project open in the same window that IdeA cannot resume by itself is named in one line under them,
with a button to go to its tab (where its toast, its Needs you entry and its work-panel entry are). Fed with
every project event by the window manager; forgets a net once it is answered or the agent resumed."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from idea.application.projects import ProjectRuntime
from idea.domain.agent_states.events import (
    AgentLimitDismissed,
    AgentRateLimitSuspected,
    AgentResumed,
    AgentResumeScheduled,
)
from idea.domain.events import OrchestrationNews
from idea.domain.ids import AgentId
from idea.ui.agents.net_toast_overlay import NetToastOverlay


class TabView(Protocol):
    @property
    def project_id(self) -> str: ...

    @property
    def title(self) -> str: ...

    @property
    def runtime(self) -> ProjectRuntime: ...


class ElsewhereNets:
    def __init__(
        self,
        overlay: NetToastOverlay,
        tabs: Callable[[], Sequence[TabView]],
        current: Callable[[], str | None],
        go_to: Callable[[str], None],
    ) -> None:
        """`tabs()`: the window's project tabs; `current()`: the project of its current tab; `go_to(project)`."""
        self._overlay = overlay
        self._tabs = tabs
        self._current = current
        self._open: dict[str, set[AgentId]] = {}
        overlay.goToTabRequested.connect(go_to)

    def on_event(self, event: object) -> None:
        if not isinstance(event, OrchestrationNews):
            return
        agents = self._open.setdefault(event.project_id, set())
        match event.event:
            case AgentRateLimitSuspected(agent_id=agent):
                agents.add(agent)
            case AgentLimitDismissed(agent_id=agent) | AgentResumeScheduled(agent_id=agent) | AgentResumed(
                agent_id=agent
            ):
                if agent not in agents:
                    return
                agents.discard(agent)
            case _:
                return
        self.refresh()

    def refresh(self) -> None:
        """Draw again (the window calls this when its current tab changes)."""
        current, lines = self._current(), []
        for tab in self._tabs():
            agents = self._open.get(tab.project_id)
            if tab.project_id == current or not agents:
                continue
            manifest = tab.runtime.agents.manifest()
            names = sorted(entry.name for agent in agents if (entry := manifest.by_id(agent)) is not None)
            if names:
                verb = "needs" if len(names) == 1 else "need"
                lines.append((tab.project_id, f"{', '.join(names)} in {tab.title} {verb} you"))
        self._overlay.show_elsewhere(lines)
