"""The resume offer of a reopened project (spec 05 §11): one row per agent that was running, what resuming
it would mean, and the choice the dialog starts with. Never applied without the person's confirmation.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from idea.domain.ids import AgentId, ConversationId, NodeId

APPLY_SPACING_MS = 1000  # agents are started one by one, this far apart


class ResumeChoice(Enum):
    RESUME = "resume"  # its own session by engine id when known, else a fresh start with the handoff injected
    FRESH = "fresh"  # a new session
    SKIP = "skip"  # "Don't start"


@dataclass(frozen=True)
class ResumeCandidate:
    """An agent that was running when the project was last closed (or when IdeA stopped): one row of the offer."""

    agent_id: AgentId
    name: str
    node_id: NodeId | None  # its cell in the active layout; None: it ran in the background
    conversation_id: ConversationId | None
    native_resume: bool = False  # the profile can resume by id and the id of this conversation is known
    subject: str | None = None  # "last subject", at most 80 characters
    limited_until_ms: int | None = None  # it was at a usage limit until then

    @property
    def default_choice(self) -> ResumeChoice:
        """Resume when its own session can be resumed; otherwise the person decides (Don't start)."""
        return ResumeChoice.RESUME if self.native_resume else ResumeChoice.SKIP

    def resume_meaning(self) -> str:
        """What "Resume" does for this agent, in the dialog's words."""
        if self.native_resume:
            return "continues its own conversation"
        return "starts again with a summary of its work (its own session cannot be resumed)"


def native_resume(can_resume_by_id: bool, engine_session_id: str | None) -> bool:
    return can_resume_by_id and engine_session_id is not None
