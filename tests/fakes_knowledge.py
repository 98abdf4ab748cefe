"""In-memory doubles of the knowledge ports (`application/conversation/ports.py`, `application/knowledge/
ports.py`), for tests of the whole application (`World`). The knowledge services' own tests use the real files
(`tests/knowledge_support.py`)."""

from __future__ import annotations

import threading
from contextlib import AbstractContextManager
from dataclasses import dataclass, field

from idea.application.knowledge.runtime import KnowledgeStores
from idea.domain.errors import AppError, ErrorCode, invalid
from idea.domain.knowledge.context import ParsedProposal, Proposal, parse_proposal
from idea.domain.knowledge.conversation_log import ConversationTurn, TurnId
from idea.domain.knowledge.conversation_pages import PageCursor, TurnSlice, page_of
from idea.domain.knowledge.handoff import Handoff
from idea.domain.knowledge.log_rotation import RotationReport, RotationThresholds
from idea.domain.knowledge.memory import MemoryIndex, MemoryNote, ReadNote, read_note
from idea.domain.knowledge.skill import SkillIndex


class MemoryConversationFiles:
    """Every conversation's turns in one list each; rotation never archives anything."""

    def __init__(self) -> None:
        self.turns: dict[str, list[ConversationTurn]] = {}
        self.fail = False
        self.rotations: list[tuple[str, TurnId | None]] = []

    async def append(self, turn: ConversationTurn) -> None:
        if self.fail:
            raise AppError(ErrorCode.STORE, "disk full")
        self.turns.setdefault(turn.conversation, []).append(turn)

    def all_turns(self) -> list[ConversationTurn]:
        return [turn for turns in self.turns.values() for turn in turns]

    async def recent(self, limit: int) -> list[str]:
        latest = sorted(self.turns, key=lambda conversation: self.turns[conversation][-1].at_ms, reverse=True)
        return latest[:limit]

    async def read_since(self, conversation: str, up_to: TurnId) -> list[ConversationTurn] | None:
        turns = self.turns.get(conversation, [])
        ids = [turn.id for turn in turns]
        return turns[ids.index(up_to) + 1 :] if up_to in ids else None

    async def last(self, conversation: str, count: int) -> list[ConversationTurn]:
        return self.turns.get(conversation, [])[-count:] if count > 0 else []

    async def first(self, conversation: str, count: int) -> list[ConversationTurn]:
        return self.turns.get(conversation, [])[:count]

    async def page(self, conversation: str, cursor: PageCursor, limit: int | None) -> TurnSlice:
        return page_of(self.turns.get(conversation, []), cursor, limit)

    async def rotate(self, conversation: str, up_to: TurnId | None, thresholds: RotationThresholds) -> RotationReport:
        self.rotations.append((conversation, up_to))
        return RotationReport()

    def path(self, conversation: str) -> str:
        return f"/memory/conversations/{conversation}/log.jsonl"


class MemoryHandoffs:
    def __init__(self) -> None:
        self.saved: dict[str, Handoff] = {}

    def load(self, conversation: str) -> Handoff | None:
        return self.saved.get(conversation)

    def save(self, conversation: str, handoff: Handoff) -> None:
        self.saved[conversation] = handoff


@dataclass
class _NoteScan:
    notes: dict[str, ReadNote] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


class MemoryNotes:
    def __init__(self) -> None:
        self.files: dict[str, str] = {}  # slug -> the note's text
        self.index: MemoryIndex | None = None
        self._lock = threading.RLock()

    def lock(self) -> AbstractContextManager[object]:
        return self._lock

    def scan(self) -> _NoteScan:
        return _NoteScan({slug: read_note(slug, text) for slug, text in sorted(self.files.items())})

    def read_note_text(self, slug: str) -> str | None:
        return self.files.get(slug)

    def write_note(self, note: MemoryNote) -> None:
        self.files[note.slug] = note.render()

    def delete_note(self, slug: str) -> bool:
        return self.files.pop(slug, None) is not None

    def read_index(self) -> MemoryIndex | None:
        return self.index

    def write_index(self, index: MemoryIndex) -> None:
        self.index = index


@dataclass
class _SkillScan:
    index: SkillIndex
    bodies: dict[str, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


class MemorySkills:
    def __init__(self) -> None:
        self.index = SkillIndex()
        self.bodies: dict[str, str] = {}
        self._lock = threading.RLock()

    def lock(self) -> AbstractContextManager[object]:
        return self._lock

    def scan(self) -> _SkillScan:
        return _SkillScan(self.index, dict(self.bodies))

    def write(self, index: SkillIndex, skill_id: str | None = None, body: str | None = None) -> None:
        if skill_id is not None and body is not None:
            self.bodies[skill_id] = body
        self.index = index

    def delete_body(self, skill_id: str) -> None:
        self.bodies.pop(skill_id, None)


@dataclass
class _ProposalScan:
    proposals: list[ParsedProposal] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


class MemoryContext:
    def __init__(self) -> None:
        self.context: str | None = None
        self.proposals: dict[str, str] = {}

    def read_context(self) -> str | None:
        return self.context

    def write_context(self, text: str) -> None:
        self.context = text

    def proposal_names(self) -> set[str]:
        return set(self.proposals)

    def scan_proposals(self) -> _ProposalScan:
        return _ProposalScan([parse_proposal(name, text) for name, text in sorted(self.proposals.items())])

    def read_proposal(self, file_name: str) -> ParsedProposal | None:
        text = self.proposals.get(file_name)
        return parse_proposal(file_name, text) if text is not None else None

    def write_proposal(self, proposal: Proposal) -> None:
        if proposal.file_name in self.proposals:
            raise invalid(f"a proposal named {proposal.file_name} already exists")
        self.proposals[proposal.file_name] = proposal.render()

    def delete_proposal(self, file_name: str) -> bool:
        return self.proposals.pop(file_name, None) is not None


class MemoryKnowledgeAdapters:
    """One set of knowledge stores per project root; the global skills shared by every project."""

    def __init__(self) -> None:
        self.global_skills = MemorySkills()
        self.projects: dict[str, KnowledgeStores] = {}

    def for_project(self, root: str) -> KnowledgeStores:
        if root not in self.projects:
            self.projects[root] = KnowledgeStores(
                conversations=MemoryConversationFiles(),
                handoffs=MemoryHandoffs(),
                memory=MemoryNotes(),
                project_skills=MemorySkills(),
                global_skills=self.global_skills,
                context=MemoryContext(),
            )
        return self.projects[root]
