"""The seams of the orchestration core: what it needs from the agent launch pipeline, from the terminals a
person can type in, and from the files and clocks around it.

The launch service implements `AgentLifecycle`, the UI implements `PortalProvider`/`InputPortal`, the
infrastructure implements the stores and probes; tests use in-memory fakes and a virtual timer.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from idea.application.orchestrator.gateway import OrchestrationGateway
from idea.application.ports import TerminalSession, Unsubscribe
from idea.domain.agent import AgentManifest
from idea.domain.knowledge.conversation_log import ConversationTurn
from idea.domain.orchestration.live_state import LiveState
from idea.domain.profile import Profile


@dataclass(frozen=True)
class LiveAgent:
    agent_id: str
    session_id: str
    node_id: str | None  # cell showing it in the active layout; None = background
    terminal: TerminalSession
    profile: Profile


class AgentLifecycle(Protocol):
    """Implemented by the agent launch service."""

    def manifest(self) -> AgentManifest: ...

    def profile_of(self, agent_id: str) -> Profile: ...

    def live(self, agent_id: str) -> LiveAgent | None: ...

    def conversation_of(self, agent_id: str) -> str | None:
        """The conversation the agent's running CLI carries (None: it does not run)."""
        ...

    async def launch(
        self, agent_id: str, *, node_id: str | None, visible: bool, reason: str, conversation_id: str | None = None
    ) -> LiveAgent:
        """Start the agent (or return it when already live). `visible` with `node_id` None: the first empty
        cell of the active layout, else the background. `conversation_id` None: the cell's conversation, else
        the one between the person and the agent. Raises AppError (PROCESS, AGENT_ALREADY_RUNNING…)."""
        ...

    async def stop(self, agent_id: str) -> None: ...

    def on_exit(self, listener: Callable[[str, int | None], None]) -> Unsubscribe:
        """`listener(agent_id, exit_code)` once per ended agent process."""
        ...

    def verify_token(self, agent_id: str, token: str) -> bool:
        """True when `token` is the secret of the agent's current launch."""
        ...

    async def update_persona(self, agent_id: str, content: str) -> None: ...


class InputPortal(Protocol):
    """The single writer to one terminal's input; the UI implements it for terminals a person can type in."""

    def pending_human_chars(self) -> int:
        """K of spec 03 §8.4: printable keys typed since the last Enter, Ctrl-C or Ctrl-U."""
        ...

    def ms_since_last_keystroke(self) -> int | None: ...

    async def suspend(self, banner: str) -> None:
        """Swallow human keys and show the overlay "an agent is typing"."""
        ...

    async def release(self) -> None: ...


@runtime_checkable
class PortalProvider(Protocol):
    def portal_for(self, session_id: str) -> InputPortal | None:
        """None: nobody can type in that terminal (a headless session)."""
        ...


class Timer(Protocol):
    """Monotonic time and sleeping, so every timeout of the core can be driven by tests."""

    def monotonic_ms(self) -> int: ...

    async def sleep(self, ms: int) -> None: ...


class ActivityProbe(Protocol):
    """The activity token of spec 05 §4: transcript bytes plus hook events counted for the agent."""

    def token(self, agent_id: str) -> int | None:
        """Monotonic while the agent works; None when no source exists (no proof of life)."""
        ...

    def note_hook_event(self, agent_id: str, transcript_path: str | None) -> None:
        """Count one hook event; remember the transcript path a Claude hook reported."""
        ...


class ProcessCpuProbe(Protocol):
    def descendant_cpu_seconds(self, pid: int) -> float | None:
        """Cumulative CPU time of the processes `pid` started (IdeA's bridges and hook relays excluded)."""
        ...


class LiveStateStore(Protocol):
    """`.ideai/live-state.json`."""

    def load(self) -> LiveState:
        """The stored rows, empty when the file is absent; CorruptFileError (file kept aside) when unreadable."""
        ...

    def save(self, state: LiveState) -> None: ...


class ConversationLog(Protocol):
    """`.ideai/conversations/<id>/log.jsonl`, append only."""

    async def append(self, turn: ConversationTurn) -> None: ...


@dataclass(frozen=True)
class DoorsState:
    """Where a project's agents reach IdeA: the MCP endpoint (a socket path, or on Windows the endpoint file
    naming a loopback port), and the HTTP hook door, None when hooks go through the relay command."""

    endpoint: str | None  # None while the doors are closed
    hook_url: str | None = None


class OrchestrationDoors(Protocol):
    """The doors of one project (its MCP socket and its request folders), opened and closed with it."""

    async def start(self) -> None:
        """Bind and listen; AppError(PROJECT_ALREADY_OPEN) when another IdeA process serves the project."""
        ...

    async def close(self) -> None: ...

    def state(self) -> DoorsState: ...


class OrchestrationAdapters(Protocol):
    """Builds the per-project adapters of the orchestration core when a project opens (its conversation log
    comes from the project's knowledge, which folds every recorded turn into its handoff)."""

    def live_state(self, root: str) -> LiveStateStore: ...

    def activity(self, root: str, kind_of: Callable[[str], str | None]) -> ActivityProbe:
        """`kind_of(agent_id)` is the agent's CLI family ("claude", "codex") or None."""
        ...

    def doors(self, project_id: str, root: str, gateway: OrchestrationGateway) -> OrchestrationDoors: ...
