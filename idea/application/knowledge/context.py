"""The shared project context and its proposals (spec 04 §14, 03 §5.8-§5.9).

`.ideai/CONTEXT.md` has a single writer: the designated orchestrator (the first agent when none is
designated) and the person in the Context view. Any other agent's change becomes a proposal, applied only
when the person or the orchestrator accepts it. The decision is the domain's `may_write_directly`; the
file guard only serialises.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from idea.application.knowledge.file_guard import CONTEXT, FileGuard
from idea.application.knowledge.ports import ContextStore, Team
from idea.application.ports import Clock, Diagnostics, EventPublisher
from idea.domain.errors import AppError, ErrorCode, not_found
from idea.domain.ids import AgentId
from idea.domain.knowledge.context import (
    CONTEXT_MAX_CHARS,
    PROPOSALS_DIR,
    DiffLine,
    Proposal,
    context_diff,
    context_hash,
    may_write_directly,
    proposal_file_name,
)
from idea.domain.knowledge.events import ProjectContextChanged, ProposalFiled, ProposalResolved


@dataclass(frozen=True)
class ProposalReview:
    """A proposal as the Context view shows it: the diff against the context as it is now."""

    proposal: Proposal
    diff: tuple[DiffLine, ...]
    stale: bool  # the context changed since the author read it
    problems: tuple[str, ...] = ()


@dataclass(frozen=True)
class Written:
    pass


@dataclass(frozen=True)
class Proposed:
    file_name: str

    @property
    def relative_path(self) -> str:
        return f".ideai/{PROPOSALS_DIR}/{self.file_name}"


ProposeResult = Written | Proposed


class ContextService:
    def __init__(
        self,
        store: ContextStore,
        team: Team,
        guard: FileGuard,
        clock: Clock,
        events: EventPublisher,
        diagnostics: Diagnostics,
    ) -> None:
        self._store = store
        self._team = team
        self._guard = guard
        self._clock = clock
        self._events = events
        self._diagnostics = diagnostics

    async def read(self) -> str:
        """The context ("" when there is none); injected as `# Project context` into every agent."""
        async with self._guard.read(CONTEXT):
            return await asyncio.to_thread(self._read_context)

    async def propose(self, requester: AgentId | None, content: str) -> ProposeResult:
        """Write directly when `requester` may (None: the person), else file a proposal."""
        content = _checked(content)
        if may_write_directly(requester, self._team.manifest()):
            await self._write(content)
            return Written()
        author = self._team.manifest().require(requester).name if requester is not None else "you"
        async with self._guard.read(CONTEXT):
            current = await asyncio.to_thread(self._read_context)

            def file() -> str:
                name = proposal_file_name(self._clock.now_ms(), author, self._store.proposal_names())
                self._store.write_proposal(Proposal(name, author, self._clock.now_ms(), context_hash(current), content))
                return name

            name = await asyncio.to_thread(file)
        self._diagnostics.beacon(f"[context] proposal {name} filed by {author}")
        self._events.publish(ProposalFiled(name, author))
        return Proposed(name)

    async def write(self, content: str) -> None:
        """The person's edit in the Context view."""
        await self._write(_checked(content, allow_empty=True))

    async def reviews(self) -> tuple[ProposalReview, ...]:
        async with self._guard.read(CONTEXT):
            current = await asyncio.to_thread(self._read_context)
            scan = await asyncio.to_thread(self._store.scan_proposals)
        for problem in scan.problems:
            self._diagnostics.beacon(f"[context] {problem}")
        return tuple(
            ProposalReview(
                parsed.proposal,
                context_diff(current, parsed.proposal.content),
                parsed.proposal.is_stale(current),
                tuple(problem.message for problem in parsed.problems),
            )
            for parsed in scan.proposals
        )

    async def accept(self, file_name: str) -> None:
        """Replace the context with the proposal, then delete the proposal."""
        parsed = await asyncio.to_thread(self._store.read_proposal, file_name)
        if parsed is None:
            raise not_found(f"proposal {file_name} not found")
        await self._write(parsed.proposal.content)
        await asyncio.to_thread(self._store.delete_proposal, file_name)
        self._events.publish(ProposalResolved(file_name, accepted=True))

    async def reject(self, file_name: str) -> None:
        if not await asyncio.to_thread(self._store.delete_proposal, file_name):
            raise not_found(f"proposal {file_name} not found")
        self._events.publish(ProposalResolved(file_name, accepted=False))

    async def _write(self, content: str) -> None:
        async with self._guard.write(CONTEXT):
            await asyncio.to_thread(self._store.write_context, content)
        self._events.publish(ProjectContextChanged())

    def _read_context(self) -> str:
        try:
            return self._store.read_context() or ""
        except AppError as exc:  # not UTF-8: kept aside, read as empty
            self._diagnostics.beacon(f"[context] {exc.message}")
            return ""


def _checked(content: str, allow_empty: bool = False) -> str:
    if not content.strip() and not allow_empty:
        raise AppError(ErrorCode.INVALID_ARGUMENTS, "`content` must not be empty")
    if len(content) > CONTEXT_MAX_CHARS:
        raise AppError(
            ErrorCode.INVALID_ARGUMENTS,
            f"`content` has {len(content)} characters, more than the limit of {CONTEXT_MAX_CHARS}",
        )
    return content
