"""Domain events: immutable facts published on the event bus and relayed to the UI thread."""

from __future__ import annotations

from dataclasses import dataclass

from idea.domain.agent import AgentManifest
from idea.domain.ids import AgentId, ProjectId, SessionId
from idea.domain.layout import LayoutDocument
from idea.domain.session import SessionInfo


@dataclass(frozen=True)
class ProjectOpened:
    project_id: ProjectId
    root: str
    name: str


@dataclass(frozen=True)
class ProjectClosed:
    project_id: ProjectId


@dataclass(frozen=True)
class ProjectProblem:
    """Something the user must know about a project (a broken file kept aside, a missing root...)."""

    project_id: ProjectId | None
    message: str


@dataclass(frozen=True)
class LayoutChanged:
    project_id: ProjectId
    document: LayoutDocument


@dataclass(frozen=True)
class SessionsChanged:
    project_id: ProjectId
    sessions: tuple[SessionInfo, ...]


@dataclass(frozen=True)
class AgentsChanged:
    """The project's team changed (manifest, personas or template links)."""

    project_id: ProjectId
    manifest: AgentManifest


@dataclass(frozen=True)
class OrchestrationNews:
    """An event of a project's orchestration core (queues, deliveries, rendezvous ends, live-state),
    tagged with the project it belongs to."""

    project_id: ProjectId
    event: object


@dataclass(frozen=True)
class AgentLaunched:
    """An agent's CLI process started (spec 00 §5.4 `agentLaunched`)."""

    project_id: ProjectId
    agent_id: AgentId
    session_id: SessionId


@dataclass(frozen=True)
class AgentExited:
    """An agent's CLI process ended (`agentExited`); `exit_code` None when unknown, -N for signal N."""

    project_id: ProjectId
    agent_id: AgentId
    session_id: SessionId
    exit_code: int | None = None


@dataclass(frozen=True)
class AgentProfileChanged:
    project_id: ProjectId
    agent_id: AgentId
    profile_id: str


@dataclass(frozen=True)
class OrchestratorChanged:
    """The designation changed (`orchestratorChanged`); None: the first agent orchestrates by default."""

    project_id: ProjectId
    orchestrator: AgentId | None
