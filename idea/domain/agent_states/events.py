"""Events of an agent's liveness, attention and usage-limit axes (spec 05 §1, §5, §8.3, §10). Published by
the application, wrapped in `OrchestrationNews` with the project they belong to, and shown by the UI.

Names follow the original's events (`agentLivenessChanged`, `agentRateLimited`, `agentResumeScheduled`,
`agentResumed`, `agentResumeCancelled`, `agentRateLimitSuspected`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from idea.domain.agent_states.attention import AttentionReason
from idea.domain.agent_states.liveness import Liveness
from idea.domain.ids import AgentId


@dataclass(frozen=True)
class AgentLivenessChanged:
    agent_id: AgentId
    liveness: Liveness


@dataclass(frozen=True)
class AgentNeedsAttention:
    """The agent waits for the person; `visible` False: it runs in the background."""

    agent_id: AgentId
    reason: AttentionReason
    message: str
    visible: bool


@dataclass(frozen=True)
class AgentAttentionCleared:
    agent_id: AgentId


@dataclass(frozen=True)
class AgentRateLimited:
    agent_id: AgentId
    resets_at_ms: int | None  # the announced reset, raw (possibly in the past); None: unknown


@dataclass(frozen=True)
class AgentResumeScheduled:
    agent_id: AgentId
    fire_at_ms: int


@dataclass(frozen=True)
class AgentResumed:
    agent_id: AgentId


class ResumeCancelReason(Enum):
    USER = "user"  # "Cancel resume"
    USER_TOOK_OVER = "userTookOver"  # the person pressed Enter in the agent's cell


@dataclass(frozen=True)
class AgentResumeCancelled:
    agent_id: AgentId
    reason: ResumeCancelReason = ResumeCancelReason.USER


class SuspicionReason(Enum):
    NO_RESET_TIME = "noResetTime"  # a limit was seen but its reset time could not be read
    STALLED = "stalled"  # a busy agent stalled well past its threshold, no limit known
    IMPLAUSIBLE_RESET = "implausibleReset"  # the reset read is more than 8 days ahead
    RELIMITED = "relimited"  # three re-limits right after resumes within an hour
    RESUME_FAILED = "resumeFailed"  # the automatic resume could not start or reach the agent


@dataclass(frozen=True)
class AgentRateLimitSuspected:
    """The human net: the person decides when (or whether) to resume. `resets_at_ms`: a value to pre-fill."""

    agent_id: AgentId
    resets_at_ms: int | None = None
    reason: SuspicionReason = SuspicionReason.NO_RESET_TIME
    detail: str | None = None  # what stopped IdeA, in words (a failed resume's error)
    raised_at_ms: int | None = field(default=None, compare=False)  # tells one raising from the next


@dataclass(frozen=True)
class AgentLimitDismissed:
    """The person closed the human net with "Not a limit — dismiss", "Keep waiting" or "Interrupt agent": the
    limit IdeA believed in and its net are gone, nothing is armed (an IdeA addition to the original's events)."""

    agent_id: AgentId
