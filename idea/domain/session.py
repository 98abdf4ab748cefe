"""A live terminal session as the rest of the app sees it: owned by the project, shown by at most one cell."""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum

from idea.domain.ids import AgentId, SessionId


_REFUSED = "Cannot start "


def start_refusal(program: str, reason: str) -> str:
    """Why `program` could not be started, in one sentence ("Invalid handle." and "Invalid handle" read
    alike): the words every terminal adapter refuses a start with, and what a failed session's cell shows."""
    return f"{_REFUSED}{program}: {reason.rstrip('. ')}."


class SessionKind(StrEnum):
    SHELL = "shell"
    AGENT = "agent"


class SessionState(StrEnum):
    STARTING = "starting"
    RUNNING = "running"
    EXITED = "exited"
    FAILED = "failed"  # the program could not be started at all


@dataclass(frozen=True)
class SessionInfo:
    id: SessionId
    kind: SessionKind
    state: SessionState
    label: str  # what runs in it, for headers and menus: "bash", "Claude Code"
    cwd: str
    started_at_ms: int
    pid: int | None = None
    title: str = ""
    exit_code: int | None = None
    error: str | None = None
    agent_id: AgentId | None = None

    @property
    def is_live(self) -> bool:
        return self.state in (SessionState.STARTING, SessionState.RUNNING)

    def running(self, pid: int) -> SessionInfo:
        return replace(self, state=SessionState.RUNNING, pid=pid)

    def exited(self, exit_code: int | None) -> SessionInfo:
        return replace(self, state=SessionState.EXITED, exit_code=exit_code)

    def failed(self, error: str) -> SessionInfo:
        return replace(self, state=SessionState.FAILED, error=error)

    def describe_failed_start(self) -> str:
        """One sentence for a start that did not leave the program running (refused, or ended at once)."""
        if self.state is SessionState.FAILED:
            return self.describe_end()
        return f"{self.describe_end()} as soon as it started"

    def retitled(self, title: str) -> SessionInfo:
        return replace(self, title=title)

    def describe_end(self) -> str:
        """One line for the cell that shows how the program ended."""
        if self.state is SessionState.FAILED:
            error = self.error or "no reason was given"
            return error if error.startswith(_REFUSED) else f"Could not start {self.label}: {error}"
        if self.exit_code is None:
            return f"{self.label} exited"
        if self.exit_code < 0:
            return f"{self.label} was killed by signal {-self.exit_code}"
        return f"{self.label} exited with code {self.exit_code}"
