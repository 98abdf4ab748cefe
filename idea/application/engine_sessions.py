"""`EngineSessionRecorder` (spec 02 §14, 05 §11): the CLI's own session id, learned from its hooks (Claude's
every event, Codex's `notify`) or from its session files (Gemini's chats), recorded in `providers.json` for
the conversation its session carries — whoever started that session. A later launch resumes it by this
explicit id (never `--continue`, which let peers merge several panes into one conversation).

Writes only when the id changed, so an event per turn costs a dictionary lookup.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from idea.application.agents.ports import ProviderSessionStore
from idea.application.ports import Clock, Diagnostics
from idea.domain.agent_states.engine_sessions import session_from_hook
from idea.domain.ids import AgentId, ConversationId


class EngineSessionRecorder:
    def __init__(
        self,
        *,
        root: str,
        providers: ProviderSessionStore,
        clock: Clock,
        diagnostics: Diagnostics,
        conversation_of: Callable[[AgentId], ConversationId | None],
        provider_of: Callable[[AgentId], str | None],
    ) -> None:
        """`conversation_of(agent)`: the conversation its running CLI carries; `provider_of(agent)`: its
        profile's provider key (None: nothing to record)."""
        self._root = root
        self._providers = providers
        self._clock = clock
        self._diagnostics = diagnostics
        self._conversation_of = conversation_of
        self._provider_of = provider_of
        self._known: dict[tuple[ConversationId, str], str] = {}
        self.transcripts: dict[AgentId, str] = {}  # the transcript a hook last named, per agent

    def hook_event(self, agent_id: AgentId, source: str, payload: dict[str, Any]) -> None:
        session = session_from_hook(source, payload)
        if session is None:
            return
        if session.transcript_path:
            self.transcripts[agent_id] = session.transcript_path
        self.record(agent_id, session.engine_session_id)

    def record(self, agent_id: AgentId, engine_session_id: str) -> bool:
        """True when `providers.json` was written."""
        conversation = self._conversation_of(agent_id)
        provider = self._provider_of(agent_id)
        if conversation is None or provider is None:
            return False
        key = (conversation, provider)
        if key not in self._known:
            stored = self._providers.load(self._root).engine_session_for(conversation, provider)
            if stored is not None:
                self._known[key] = stored
        if self._known.get(key) == engine_session_id:
            return False
        self._providers.update(
            self._root,
            lambda sessions: sessions.with_entry(conversation, provider, engine_session_id, self._clock.now_ms()),
        )
        self._known[key] = engine_session_id
        self._diagnostics.beacon(
            f"[session] engine id recorded agent={agent_id} provider={provider} conversation={conversation}"
        )
        return True
