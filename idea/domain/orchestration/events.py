"""Events of the orchestration core (spec 00 §5.4, 03 §8-§10) and the queue snapshots the work panel shows."""

from __future__ import annotations

from dataclasses import dataclass

from idea.domain.ids import AgentId, ConversationId, TicketId
from idea.domain.orchestration.tickets import InputSource, TicketPhase


@dataclass(frozen=True)
class BusyState:
    """An agent is busy from the start of its head ticket's delivery until that ticket ends."""

    ticket: TicketId
    since_ms: int


@dataclass(frozen=True)
class QueuedTicketView:
    ticket_id: TicketId
    conversation_id: ConversationId
    position: int  # 0 = head
    status: str  # "inProgress" for the busy head, else "queued"
    phase: TicketPhase
    source: InputSource
    requester_label: str
    task_preview: str
    task_len: int
    delivered: bool


@dataclass(frozen=True)
class LateReplyView:
    """A reply to one of the agent's asks that came after it stopped waiting (spec 03 §9.7)."""

    ticket_id: TicketId  # the ask's
    conversation_id: ConversationId
    from_label: str  # who replied
    at_ms: int


@dataclass(frozen=True)
class AgentQueueSnapshot:
    agent_id: AgentId
    busy: BusyState | None
    tickets: tuple[QueuedTicketView, ...]
    late: tuple[LateReplyView, ...]  # late replies recorded for this agent as requester, oldest first
    bridge_connected: bool

    @property
    def late_replies(self) -> int:
        return len(self.late)


@dataclass(frozen=True)
class AgentQueueChanged:
    snapshot: AgentQueueSnapshot


@dataclass(frozen=True)
class AgentBusyChanged:
    agent_id: AgentId
    busy: BusyState | None


@dataclass(frozen=True)
class DelegationReady:
    """A ticket became the head and will be typed into the agent's terminal."""

    agent_id: AgentId
    ticket: TicketId
    text: str
    submit_sequence: str
    submit_delay_ms: int


@dataclass(frozen=True)
class DelegationDelivered:
    agent_id: AgentId
    ticket: TicketId
    at_ms: int


@dataclass(frozen=True)
class DeliveryWaiting:
    """A delivery has waited a long time for the person to send or clear their line (banner in the cell)."""

    agent_id: AgentId
    ticket: TicketId
    requester_label: str


@dataclass(frozen=True)
class DeliveryMayBeStuck:
    """No turn started after the text was submitted twice: it may still sit in the CLI's input box."""

    agent_id: AgentId
    ticket: TicketId


@dataclass(frozen=True)
class ColdStartDegraded:
    """The agent gave no readiness signal within its cold-start limit; IdeA typed anyway."""

    agent_id: AgentId


@dataclass(frozen=True)
class AgentAttention:
    agent_id: AgentId
    reason: str  # "permission" | "input"
    message: str | None = None


@dataclass(frozen=True)
class AgentReplied:
    agent_id: AgentId
    reply_len: int


@dataclass(frozen=True)
class RendezvousEnded:
    ticket: TicketId
    requester: AgentId | None  # None: the person
    target: AgentId
    outcome: str  # TicketEndKind value
    elapsed_ms: int


@dataclass(frozen=True)
class LateReplyAvailable:
    requester: AgentId | None
    target: AgentId
    ticket: TicketId


@dataclass(frozen=True)
class HumanReplyReceived:
    """An agent answered a ticket from the person with idea_reply."""

    agent_id: AgentId
    ticket: TicketId
    text: str


@dataclass(frozen=True)
class BridgeStateChanged:
    agent_id: AgentId
    connected: bool


@dataclass(frozen=True)
class LiveStateChanged:
    agent_id: AgentId


@dataclass(frozen=True)
class OrchestratorRequestProcessed:
    """A door's command was processed (spec 03 §3.9 `orchestratorRequestProcessed`; the project is the
    wrapper's). `action` is the tool name for the tools' commands (`command_action`)."""

    source: str  # "mcp" | "file" | "ui"
    action: str
    ok: bool
    requester: AgentId | None  # None: the person


# The tool of each command the tools build (infrastructure/mcp/tools.py's TOOLS; a test keeps both in step).
_TOOL_ACTIONS = {
    "ListAgents": "idea_list_agents",
    "AskAgent": "idea_ask_agent",
    "Reply": "idea_reply",
    "LaunchAgent": "idea_launch_agent",
    "StopAgent": "idea_stop_agent",
    "UpdateAgentContext": "idea_update_context",
    "CreateSkill": "idea_create_skill",
    "ReadContext": "idea_context_read",
    "ProposeContext": "idea_context_propose",
    "ReadMemory": "idea_memory_read",
    "WriteMemory": "idea_memory_write",
    "ReadSkill": "idea_skill_read",
    "ReadWorkState": "idea_workstate_read",
    "SetWorkState": "idea_workstate_set",
}


def command_action(command: object) -> str:
    """The tool name of a tool's command; for the others (the person's commands) the command's name in
    lowerCamelCase ("submitHumanInput")."""
    name = type(command).__name__
    return _TOOL_ACTIONS.get(name) or name[:1].lower() + name[1:]
