"""The handoff as it reaches an agent (spec 04 §6.4-§6.5): the bounded summary of the launch conversation,
injected under `# Conversation resume` when an agent starts or resumes. This is the only text of a
conversation an agent ever receives (the surface rule).

A slower summariser (a language model, later) may refine the summary here, off the hot path, within a
time limit; any failure falls back to the heuristic handoff. None is configured by default.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from idea.application.conversation.ports import HandoffStore, ResumeSummarizer, TurnLog
from idea.application.ports import Diagnostics
from idea.domain.errors import AppError
from idea.domain.ids import ConversationId
from idea.domain.knowledge.handoff import Handoff, bound_handoff_summary, resume_text

REFINE_TIMEOUT_S = 10.0
REFINE_RECENT_TURNS = 40


class HandoffService:
    def __init__(
        self,
        handoffs: HandoffStore,
        log: TurnLog,
        diagnostics: Diagnostics,
        refiner: ResumeSummarizer | None = None,
        refine_timeout_s: float = REFINE_TIMEOUT_S,
        current: Callable[[ConversationId], Handoff | None] | None = None,
    ) -> None:
        self._current = current  # the handoff folded in this process, fresher than the file
        self._handoffs = handoffs
        self._log = log
        self._diagnostics = diagnostics
        self._refiner = refiner
        self._refine_timeout_s = refine_timeout_s

    async def handoff(self, conversation: ConversationId) -> Handoff | None:
        """The current handoff, bounded; None when there is none or it cannot be read (logged)."""
        known = self._current(conversation) if self._current is not None else None
        if known is not None:
            return bound_handoff_summary(known)
        try:
            stored = await asyncio.to_thread(self._handoffs.load, conversation)
        except AppError as exc:
            self._diagnostics.beacon(f"[handoff] {exc.message}")
            return None
        return bound_handoff_summary(stored) if stored is not None else None

    async def resume_text(self, conversation: ConversationId | None) -> str:
        """The `# Conversation resume` body for an agent launched on `conversation` ("" when none). Bounded
        on injection again; never raises."""
        if conversation is None:
            return ""
        handoff = await self.handoff(conversation)
        if self._refiner is not None:
            handoff = await self._refined(conversation, handoff)
        return resume_text(handoff)

    async def _refined(self, conversation: ConversationId, handoff: Handoff | None) -> Handoff | None:
        assert self._refiner is not None
        try:
            recent = await self._log.last(conversation, REFINE_RECENT_TURNS)
            if not recent:
                return handoff
            refined = await asyncio.wait_for(
                self._refiner.summarize(conversation, handoff, recent), self._refine_timeout_s
            )
        except Exception as exc:  # noqa: BLE001 - any failure of the optional summariser falls back
            self._diagnostics.beacon(f"[handoff] resume summariser failed ({exc!r}); using the heuristic handoff")
            return handoff
        return bound_handoff_summary(refined)
