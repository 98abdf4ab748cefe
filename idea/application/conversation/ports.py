"""What the conversation use cases need from the files: the log, its archive, rotation, the handoffs, and
the summariser seams."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from idea.domain.ids import ConversationId
from idea.domain.knowledge.conversation_log import ConversationTurn, TurnId
from idea.domain.knowledge.conversation_pages import PageCursor, TurnSlice
from idea.domain.knowledge.handoff import Handoff
from idea.domain.knowledge.log_rotation import RotationReport, RotationThresholds


class TurnLog(Protocol):
    """`log.jsonl` and its archives: appends and the reads the handoff needs."""

    async def append(self, turn: ConversationTurn) -> None:
        """One fsynced line; raises AppError(STORE) when it could not be written."""
        ...

    async def read_since(self, conversation: ConversationId, up_to: TurnId) -> list[ConversationTurn] | None:
        """The active segment's turns after `up_to`; None when it does not hold `up_to`."""
        ...

    async def last(self, conversation: ConversationId, count: int) -> list[ConversationTurn]:
        """The newest `count` turns, oldest first, across archives; [] when there is no log."""
        ...

    async def first(self, conversation: ConversationId, count: int) -> list[ConversationTurn]: ...


class ConversationArchive(Protocol):
    async def page(self, conversation: ConversationId, cursor: PageCursor, limit: int | None) -> TurnSlice:
        """A page across archives and the active segment; an empty page when there is no log."""
        ...


class LogRotation(Protocol):
    async def rotate(
        self, conversation: ConversationId, up_to: TurnId | None, thresholds: RotationThresholds
    ) -> RotationReport: ...


class HandoffStore(Protocol):
    """`handoff.md`. Synchronous and small: callers run it off the core loop."""

    def load(self, conversation: ConversationId) -> Handoff | None:
        """None when there is none; CorruptFileError (file kept aside) when unreadable."""
        ...

    def save(self, conversation: ConversationId, handoff: Handoff) -> None: ...


class HandoffSummarizer(Protocol):
    """The fold on the hot path: synchronous, no network, no model (the heuristic by default)."""

    def fold(self, previous: Handoff | None, turns: Sequence[ConversationTurn]) -> Handoff | None: ...


class ResumeSummarizer(Protocol):
    """A slower summariser (a language model, later) used only off the hot path, when an agent resumes a
    conversation; its result is bounded like any handoff and replaced by the heuristic one on failure."""

    async def summarize(
        self, conversation: ConversationId, previous: Handoff | None, recent: Sequence[ConversationTurn]
    ) -> Handoff: ...
