"""What the Agents panel knows of the current project's team: the snapshots it was sent, the activity it
folded from the orchestration core's events, and the rows built from them. Every part of the panel (its
list, its actions, its gestures) reads this one model; none of it is Qt."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Protocol

from idea.application.sign_in import SignInCheck
from idea.application.agents.agent_activity import ActivityBook
from idea.application.agents.agent_rows import AgentRow, build_rows
from idea.application.agents.launch_context import ContextChange
from idea.application.agents.placement_rules import runs_another_agent, split_target
from idea.application.agents.profiles import ProfileCatalogue
from idea.application.agents.templates import TemplateStatus
from idea.application.projects import ProjectRuntime
from idea.domain import layout as lay
from idea.domain.agent import AgentManifest
from idea.domain.errors import AppError
from idea.domain.ids import AgentId, NodeId, SessionId
from idea.domain.session import SessionInfo


class AgentsPanelHost(Protocol):
    """What the window gives the panel, always about its current project tab."""

    def active_leaf(self) -> NodeId | None:
        """The active cell of the current tab's active layout, None when there is none."""
        ...

    def focus_session(self, session_id: SessionId) -> None:
        """Show the cell displaying this session (un-zoom if needed) and give its terminal the focus."""
        ...

    def open_agent_conversation(self, agent_id: AgentId) -> None:
        """Show the conversation between the person and this agent in place of the grid."""
        ...


class TeamModel:
    def __init__(self, profiles: ProfileCatalogue, host: AgentsPanelHost) -> None:
        self._profiles = profiles
        self._host = host
        self.runtime: ProjectRuntime | None = None
        self.manifest = AgentManifest()
        self.sessions: dict[SessionId, SessionInfo] = {}
        self.document: lay.LayoutDocument | None = None
        self.template_links: dict[AgentId, TemplateStatus] = {}
        self.context_changes: Mapping[AgentId, ContextChange] = {}
        self.signed_out: Mapping[AgentId, SignInCheck] = {}
        self.activity = ActivityBook()
        self.rows: list[AgentRow] = []

    def follow(self, runtime: ProjectRuntime | None) -> None:
        """Another project (None: none): what was known of the previous one is dropped."""
        self.runtime = runtime
        self.template_links = {}
        self.context_changes = {}
        self.signed_out = {}
        self.activity.clear()
        if runtime is None:
            self.manifest, self.sessions, self.document = AgentManifest(), {}, None
        else:
            self.read_snapshots(runtime)

    def read_snapshots(self, runtime: ProjectRuntime) -> None:
        self.manifest = runtime.agents.manifest()
        self.sessions = {s.id: s for s in runtime.sessions.snapshot()}
        self.document = runtime.document

    def sessions_changed(self, sessions: tuple[SessionInfo, ...]) -> None:
        """A process that ended takes its busy state with it."""
        self.sessions = {s.id: s for s in sessions}
        live = {s.agent_id for s in sessions if s.is_live}
        for agent in self.manifest.agents:
            if agent.agent_id not in live:
                self.activity.process_ended(agent.agent_id)

    def rebuild(self) -> list[AgentRow]:
        """The rows of the current snapshots (none without a project)."""
        if self.runtime is None or self.document is None:
            self.rows = []
        else:
            self.rows = build_rows(
                self.manifest,
                self.sessions.values(),
                self.document.active.root,
                self._profiles.known(),
                self.template_links,
                self.activity.all(),
                self.context_changes,
                self.signed_out,
            )
        return self.rows

    # -- questions the panel asks --

    def row(self, agent_id: AgentId | None) -> AgentRow | None:
        return next((row for row in self.rows if row.agent_id == agent_id), None)

    def name(self, agent_id: AgentId) -> str:
        agent = self.manifest.by_id(agent_id)
        return agent.name if agent is not None else agent_id

    def active_cell(self) -> NodeId | None:
        """The window's active cell, when it belongs to the active layout."""
        leaf = self._leaf(self._host.active_leaf()) if self.runtime is not None else None
        return leaf.id if leaf is not None else None

    def split_target(self) -> NodeId | None:
        if self.document is None:
            return None
        return split_target(self.document.active.root, self.active_cell())

    def live_session_in(self, leaf_id: NodeId) -> SessionInfo | None:
        leaf = self._leaf(leaf_id)
        return self._live(leaf.session) if leaf is not None and leaf.session else None

    def cell_hosts_other_agent(self, leaf_id: NodeId, row: AgentRow | None) -> bool:
        if self.document is None:
            return False
        return runs_another_agent(self.document.active.root, leaf_id, row.agent_id if row else None, self._live)

    def run_dir(self, agent_id: AgentId) -> str:
        return os.path.join(self.runtime.root, ".ideai", "run", agent_id) if self.runtime else ""

    def _live(self, session_id: SessionId) -> SessionInfo | None:
        session = self.sessions.get(session_id)
        return session if session is not None and session.is_live else None

    def _leaf(self, leaf_id: NodeId | None) -> lay.Leaf | None:
        if leaf_id is None or self.document is None:
            return None
        try:
            return lay.find_leaf(self.document.active.root, leaf_id)
        except AppError:
            return None
