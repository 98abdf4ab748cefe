"""The default handoff summariser: the heuristic fold of the domain (spec 04 §6.2)."""

from __future__ import annotations

from collections.abc import Sequence

from idea.domain.knowledge.conversation_log import ConversationTurn
from idea.domain.knowledge.handoff import Handoff, fold


class HeuristicSummarizer:
    """One bullet per turn, flattened and cut to 240 characters; pure, deterministic, microseconds."""

    def fold(self, previous: Handoff | None, turns: Sequence[ConversationTurn]) -> Handoff | None:
        return fold(previous, turns)
