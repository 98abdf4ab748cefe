"""What the knowledge services need from the files and from the team. Stores are synchronous (small files);
services call them on worker threads, never on the core loop."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Protocol

from idea.domain.agent import AgentManifest
from idea.domain.ids import AgentId
from idea.domain.knowledge.context import ParsedProposal, Proposal
from idea.domain.knowledge.memory import MemoryIndex, MemoryNote, ReadNote
from idea.domain.knowledge.skill import SkillIndex


class NoteScanResult(Protocol):
    notes: dict[str, ReadNote]
    problems: list[str]


class MemoryStore(Protocol):
    """`.ideai/memory/`."""

    def lock(self) -> AbstractContextManager[object]:
        """The folder's critical section: a note and the index are written inside one."""
        ...

    def scan(self) -> NoteScanResult: ...

    def read_note_text(self, slug: str) -> str | None:
        """None when absent; CorruptFileError (kept aside) when unreadable."""
        ...

    def write_note(self, note: MemoryNote) -> None: ...

    def delete_note(self, slug: str) -> bool: ...

    def read_index(self) -> MemoryIndex | None: ...

    def write_index(self, index: MemoryIndex) -> None: ...


class SkillScanResult(Protocol):
    index: SkillIndex
    bodies: dict[str, str]
    problems: list[str]


class SkillStore(Protocol):
    """The skills of one scope."""

    def lock(self) -> AbstractContextManager[object]: ...

    def scan(self) -> SkillScanResult: ...

    def write(self, index: SkillIndex, skill_id: str | None = None, body: str | None = None) -> None:
        """The body (when given) then the index."""
        ...

    def delete_body(self, skill_id: str) -> None: ...


class ProposalScanResult(Protocol):
    proposals: list[ParsedProposal]
    problems: list[str]


class ContextStore(Protocol):
    """`.ideai/CONTEXT.md` and `.ideai/proposals/`."""

    def read_context(self) -> str | None: ...

    def write_context(self, text: str) -> None: ...

    def proposal_names(self) -> set[str]: ...

    def scan_proposals(self) -> ProposalScanResult: ...

    def read_proposal(self, file_name: str) -> ParsedProposal | None: ...

    def write_proposal(self, proposal: Proposal) -> None: ...

    def delete_proposal(self, file_name: str) -> bool: ...


class Team(Protocol):
    """The project's agents (implemented over the agent catalogue)."""

    def manifest(self) -> AgentManifest: ...

    def persona(self, agent_id: AgentId) -> str: ...

    async def update_persona(self, agent_id: AgentId, body: str) -> None: ...

    async def change_manifest(self, change: Callable[[AgentManifest], AgentManifest]) -> AgentManifest:
        """Apply `change`, save `agents.json`, announce the new team; returns it."""
        ...
