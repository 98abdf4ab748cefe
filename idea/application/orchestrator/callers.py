"""Who is calling and whom a command addresses: the checks every command handler starts with.

The requester comes from the door (an authenticated agent, or the person at the UI); targets are agent
names, matched case-insensitively against the project's manifest.
"""

from __future__ import annotations

from idea.domain.agent import AgentEntry, AgentManifest
from idea.domain.errors import AppError, ErrorCode
from idea.domain.orchestration import rules
from idea.domain.orchestration.commands import Human, Requester


def caller_of(requester: Requester, manifest: AgentManifest) -> AgentEntry | None:
    """The calling agent, None for the person; an agent the manifest does not know is refused."""
    if isinstance(requester, Human):
        return None
    agent = manifest.by_id(requester.agent_id)
    if agent is None:
        raise AppError(ErrorCode.PERMISSION_DENIED, "unauthenticated caller")
    return agent


def require_agent(requester: Requester, manifest: AgentManifest, what: str) -> AgentEntry:
    """The calling agent, for commands that only an agent can give."""
    caller = caller_of(requester, manifest)
    if caller is None:
        raise AppError(ErrorCode.PERMISSION_DENIED, f"{what} is for agents; the user has no such row or ticket")
    return caller


def require_person(requester: Requester, what: str) -> None:
    if not isinstance(requester, Human):
        raise AppError(ErrorCode.PERMISSION_DENIED, f"{what} is reserved to the user")


def resolve_target(manifest: AgentManifest, name: str) -> AgentEntry:
    """The agent a command names; NOT_FOUND lists the known names."""
    wanted = required(name, "target")
    agent = manifest.by_name(wanted)
    if agent is None:
        raise rules.agent_not_found(wanted, [a.name for a in manifest.agents])
    return agent


def label_of(requester: Requester, caller: AgentEntry | None) -> str:
    """How the requester is named to others: the agent's name, or the person's label."""
    if caller is not None:
        return caller.name
    return requester.label if isinstance(requester, Human) else requester.agent_id


def required(value: str, name: str) -> str:
    if not value or not value.strip():
        raise AppError(ErrorCode.INVALID_ARGUMENTS, f"{name} must not be empty")
    return value
