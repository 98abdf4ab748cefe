"""What a reopened project can offer to resume (spec 05 §11): the agents that were running at the last close
or crash and are not running now."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from idea.application.agents.catalogue import AgentCatalogue
from idea.application.agents.ports import AgentProject, ProviderSessionStore, RunningAgentsStore, SessionInspector
from idea.domain import layout as lay
from idea.domain.agent_states.resume_offer import ResumeCandidate, native_resume
from idea.domain.errors import AppError
from idea.domain.ids import AgentId, ConversationId, conversation_for_pair
from idea.domain.profile import Profile


class ResumeCandidates:
    def __init__(
        self,
        project: AgentProject,
        catalogue: AgentCatalogue,
        running: RunningAgentsStore,
        providers: ProviderSessionStore,
        sessions: SessionInspector | None,
        profile_of: Callable[[AgentId], Profile],
        is_live: Callable[[AgentId], bool],
    ) -> None:
        self._project = project
        self._catalogue = catalogue
        self._running = running
        self._providers = providers
        self._sessions = sessions
        self._profile_of = profile_of
        self._is_live = is_live

    def list(self) -> list[ResumeCandidate]:
        """Agents that were running at the last close or crash and are not running now, each with whether
        its own session can be resumed, what it was about and whether it was at its usage limit."""
        return [self._described(candidate) for candidate in self._resumable()]

    def _described(self, candidate: ResumeCandidate) -> ResumeCandidate:
        running = self._running.load(self._project.root).by_agent(candidate.agent_id)
        limited = running.limited_until_ms if running is not None else None
        try:
            profile = self._profile_of(candidate.agent_id)
            engine = self._engine_id(profile, candidate.conversation_id or conversation_for_pair(candidate.agent_id, None))
        except AppError:  # a profile that cannot be read: offered without its own session (original rule)
            return replace(candidate, limited_until_ms=limited)
        strategy = profile.session
        can_resume = strategy is not None and bool(strategy.resume_flag or strategy.resume_args)
        subject = None
        inspector = self._sessions
        if engine is not None and inspector is not None:
            run_dir = f"{self._project.root}/.ideai/run/{candidate.agent_id}"
            subject = inspector.subject(profile, run_dir, engine)
        return replace(
            candidate, native_resume=native_resume(can_resume, engine), subject=subject, limited_until_ms=limited
        )

    def _engine_id(self, profile: Profile, conversation: ConversationId) -> str | None:
        if profile.provider_key is None:
            return None
        return self._providers.load(self._project.root).engine_session_for(conversation, profile.provider_key)

    def _resumable(self) -> list[ResumeCandidate]:
        manifest = self._catalogue.manifest()
        root = self._project.active.root
        seen: set[AgentId] = set()
        candidates = []
        for leaf in lay.leaves(root):
            entry = manifest.by_id(leaf.agent) if leaf.agent else None
            if entry is not None and leaf.agent_was_running and not self._is_live(entry.agent_id):
                candidates.append(ResumeCandidate(entry.agent_id, entry.name, leaf.id, leaf.conversation_id))
                seen.add(entry.agent_id)
        for running in self._running.load(self._project.root).agents:
            entry = manifest.by_id(running.agent_id)
            if entry is not None and entry.agent_id not in seen and not self._is_live(entry.agent_id):
                leaf = lay.leaf_pinning_agent(root, entry.agent_id)
                candidates.append(
                    ResumeCandidate(entry.agent_id, entry.name, leaf.id if leaf else None, running.conversation_id)
                )
        return candidates
