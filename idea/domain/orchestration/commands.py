"""The orchestration commands every door builds (MCP tools, request files, the UI), who asks, and what
a successful command returns. Failures are AppError values with their stable codes."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from idea.domain.ids import AgentId, NodeId, TicketId


class Source(StrEnum):
    """The door a command came through."""

    MCP = "mcp"
    FILE = "file"
    UI = "ui"


@dataclass(frozen=True)
class Human:
    """The person at the keyboard. Commands from the UI come from them."""

    label: str = "you"


@dataclass(frozen=True)
class AgentCaller:
    """An agent, identified by its door (the bridge handshake, its request folder), never by an argument."""

    agent_id: AgentId


Requester = Human | AgentCaller


class Visibility(StrEnum):
    VISIBLE = "visible"
    BACKGROUND = "background"


class WorkStatus(StrEnum):
    IDLE = "idle"
    WORKING = "working"
    WAITING = "waiting"
    BLOCKED = "blocked"
    DONE = "done"


@dataclass(frozen=True)
class ListAgents:
    pass


@dataclass(frozen=True)
class AskAgent:
    target: str  # agent name, case-insensitive
    task: str


@dataclass(frozen=True)
class Reply:
    result: str
    ticket: TicketId | None = None


@dataclass(frozen=True)
class LaunchAgent:
    target: str
    visibility: Visibility = Visibility.VISIBLE
    node_id: NodeId | None = None
    task: str | None = None  # fire and forget: no reply awaited


@dataclass(frozen=True)
class StopAgent:
    target: str


@dataclass(frozen=True)
class UpdateAgentContext:
    target: str
    content: str


@dataclass(frozen=True)
class ReadWorkState:
    pass


@dataclass(frozen=True)
class SetWorkState:
    status: WorkStatus
    intent: str | None = None
    progress: str | None = None


@dataclass(frozen=True)
class SubmitHumanInput:
    target: str
    text: str


@dataclass(frozen=True)
class Interrupt:
    target: str


@dataclass(frozen=True)
class CancelTicket:
    ticket: TicketId


Command = (
    ListAgents
    | AskAgent
    | Reply
    | LaunchAgent
    | StopAgent
    | UpdateAgentContext
    | ReadWorkState
    | SetWorkState
    | SubmitHumanInput
    | Interrupt
    | CancelTicket
)


@dataclass(frozen=True)
class Outcome:
    """A command's success. Tools show `reply` when present, else `detail`; `data` is structured content."""

    detail: str
    reply: str | None = None
    data: dict[str, Any] | None = field(default=None)

    @property
    def text(self) -> str:
        return self.reply if self.reply is not None else self.detail
