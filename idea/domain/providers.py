"""Runtime bookkeeping of agents, both ignored by git.

- `.ideai/providers.json` (spec 02 §14): a conversation and a provider key ("claude"/"codex") map to the
  CLI's own session id, keyed by provider so two profiles of the same family share it.
- `.ideai/running.json` (spec 01 §5.1): the agents running at the last snapshot, so background agents,
  which no layout leaf remembers, can be offered for resume at the next open.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from idea.domain.documents import CamelDocument
from idea.domain.ids import AgentId, ConversationId, NodeId


class ProviderSession(CamelDocument):
    conversation_id: ConversationId
    provider: str
    engine_session_id: str
    updated_at_ms: int


class ProviderSessions(CamelDocument):
    version: int = 1
    entries: tuple[ProviderSession, ...] = Field(default_factory=tuple)

    def to_json(self) -> dict[str, Any]:
        extra = self.model_extra or {}
        return {"version": self.version, "entries": [entry.to_json() for entry in self.entries], **extra}

    def engine_session_for(self, conversation_id: ConversationId, provider: str) -> str | None:
        for entry in self.entries:
            if entry.conversation_id == conversation_id and entry.provider == provider:
                return entry.engine_session_id
        return None

    def with_entry(
        self, conversation_id: ConversationId, provider: str, engine_session_id: str, now_ms: int
    ) -> ProviderSessions:
        """Record the engine id of (conversation, provider), replacing the previous one in place."""
        entry = ProviderSession(
            conversation_id=conversation_id,
            provider=provider,
            engine_session_id=engine_session_id,
            updated_at_ms=now_ms,
        )

        def same_key(existing: ProviderSession) -> bool:
            return existing.conversation_id == conversation_id and existing.provider == provider

        if not any(same_key(e) for e in self.entries):
            return self.model_copy(update={"entries": (*self.entries, entry)})
        return self.model_copy(update={"entries": tuple(entry if same_key(e) else e for e in self.entries)})


class RunningAgent(CamelDocument):
    agent_id: AgentId
    node_id: NodeId | None = None  # None: running in the background
    conversation_id: ConversationId | None = None
    since_ms: int
    limited_until_ms: int | None = None  # informational: it was at a usage limit until then (spec 05 §9)

    def to_json(self) -> dict[str, Any]:
        data = self.model_dump(by_alias=True, mode="json")
        for optional in ("conversationId", "limitedUntilMs"):
            if data.get(optional) is None:
                data.pop(optional, None)
        return data  # nodeId is written as null for a background agent


class RunningAgents(CamelDocument):
    version: int = 1
    updated_at_ms: int = 0
    agents: tuple[RunningAgent, ...] = Field(default_factory=tuple)

    def to_json(self) -> dict[str, Any]:
        extra = self.model_extra or {}
        return {
            "version": self.version,
            "updatedAtMs": self.updated_at_ms,
            "agents": [agent.to_json() for agent in self.agents],
            **extra,
        }

    def by_agent(self, agent_id: AgentId) -> RunningAgent | None:
        return next((agent for agent in self.agents if agent.agent_id == agent_id), None)

    def with_agent(self, running: RunningAgent, now_ms: int) -> RunningAgents:
        """Record a launched (or re-attached) agent, replacing its previous row in place."""
        if self.by_agent(running.agent_id) is None:
            agents = (*self.agents, running)
        else:
            agents = tuple(running if a.agent_id == running.agent_id else a for a in self.agents)
        return self.model_copy(update={"agents": agents, "updated_at_ms": now_ms})

    def with_limit(self, agent_id: AgentId, limited_until_ms: int | None, now_ms: int) -> RunningAgents:
        """Note (or clear) the usage limit of a running agent; unknown agents are left alone."""
        running = self.by_agent(agent_id)
        if running is None or running.limited_until_ms == limited_until_ms:
            return self
        return self.with_agent(running.model_copy(update={"limited_until_ms": limited_until_ms}), now_ms)

    def without(self, agent_id: AgentId, now_ms: int) -> RunningAgents:
        agents = tuple(a for a in self.agents if a.agent_id != agent_id)
        return self.model_copy(update={"agents": agents, "updated_at_ms": now_ms})
