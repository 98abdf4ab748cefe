"""One project's knowledge services, built together from its adapters: what the project runtime holds and
opens and closes with the project, what records the orchestration core's turns, what a launch injects and
what the views read."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from dataclasses import dataclass
from typing import Any, Protocol

from idea.application.conversation.handoff import HandoffService
from idea.application.conversation.pages import ConversationPages
from idea.application.conversation.ports import (
    ConversationArchive,
    HandoffStore,
    HandoffSummarizer,
    LogRotation,
    ResumeSummarizer,
    TurnLog,
)
from idea.application.conversation.record import RecordTurn
from idea.application.conversation.rotate import RotateConversationLog
from idea.application.knowledge.context import ContextService
from idea.application.knowledge.file_guard import FileGuard
from idea.application.knowledge.harvest import HarvestMemory
from idea.application.knowledge.memory import MemoryService
from idea.application.knowledge.ports import ContextStore, MemoryStore, SkillStore, Team
from idea.application.knowledge.skills import SkillService
from idea.application.knowledge.work_state import (
    QueueView,
    RecentConversations,
    TeamView,
    WorkSignals,
    WorkStateReader,
)
from idea.application.ports import Clock, Diagnostics, EventPublisher, IdGenerator
from idea.application.write_behind import Sleeper
from idea.domain.errors import AppError
from idea.domain.ids import AgentId, ConversationId
from idea.domain.knowledge.conversation_log import ConversationTurn, TurnRole
from idea.domain.knowledge.memory import MemoryPointerLine
from idea.domain.knowledge.memory_harvest import BLOCK_TAG
from idea.domain.knowledge.skill import Skill


class ConversationFiles(TurnLog, ConversationArchive, LogRotation, RecentConversations, Protocol):
    """The conversation log adapter serves the four ports."""

    def path(self, conversation: ConversationId) -> object:
        """The active segment's path (the "raw log" a person may open)."""
        ...


@dataclass(frozen=True)
class KnowledgeStores:
    conversations: ConversationFiles
    handoffs: HandoffStore
    memory: MemoryStore
    project_skills: SkillStore
    global_skills: SkillStore
    context: ContextStore


class KnowledgeAdapters(Protocol):
    def for_project(self, root: str) -> KnowledgeStores:
        """The stores of one project; one conversation log instance per project, so its appends and its
        rotations share one lock."""
        ...


@dataclass(frozen=True)
class Injection:
    """What an agent's context file receives from the project's knowledge (spec 02 §11, 04 §1): all of it
    bounded, distilled or a pointer; never a transcript."""

    project_context: str
    memory: tuple[MemoryPointerLine, ...]
    skills: tuple[Skill, ...]  # assigned ones: MCP agents get name + effective description, others the body
    handoff: str  # bounded `# Conversation resume` body of the launch conversation


class ProjectKnowledge:
    def __init__(
        self,
        stores: KnowledgeStores,
        *,
        team: Team,
        team_view: TeamView,
        queues: QueueView,
        clock: Clock,
        timer: Sleeper,
        ids: IdGenerator,
        events: EventPublisher,
        diagnostics: Diagnostics,
        summarizer: HandoffSummarizer | None = None,
        resume_summarizer: ResumeSummarizer | None = None,
    ) -> None:
        self.stores = stores
        self._diagnostics = diagnostics
        self._tasks: set[asyncio.Task[Any]] = set()
        self.guard = FileGuard()
        self.record = RecordTurn(stores.conversations, stores.handoffs, diagnostics, timer, summarizer)
        self.handoffs = HandoffService(
            stores.handoffs, stores.conversations, diagnostics, resume_summarizer, current=self.record.current
        )
        self.rotate = RotateConversationLog(stores.conversations, stores.handoffs, diagnostics)
        self.pages = ConversationPages(stores.conversations, self.rotate)
        self.memory = MemoryService(stores.memory, self.guard, events, diagnostics)
        self.harvest = HarvestMemory(self.memory, diagnostics)
        self.skills = SkillService(stores.project_skills, stores.global_skills, team, ids, events, diagnostics)
        self.context = ContextService(stores.context, team, self.guard, clock, events, diagnostics)
        self.signals = WorkSignals()
        self.work = WorkStateReader(
            team_view,
            queues,
            stores.handoffs,
            stores.conversations,
            stores.conversations,
            self.signals,
            diagnostics,
            self.record.current,
        )

    # ------------------------------------------------------------------ with the project

    async def open(self) -> None:
        """At project open: `MEMORY.md` reconciled with the notes (best-effort)."""
        try:
            await self.memory.reconcile()
        except Exception as exc:  # noqa: BLE001 - opening a project never fails on its memory
            self._diagnostics.beacon(f"[memory] reconciliation at open failed: {exc!r}")

    async def close(self) -> None:
        """At project close: the harvests and rotations under way end, the handoffs folded but not yet
        written are written."""
        await self.settle()
        self.record.close()

    async def settle(self) -> None:
        """Wait for the background work started so far (harvests, rotations)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)
        await self.pages.settle()

    def observe(self, event: object) -> None:
        """Every event of the orchestration core, on the core loop: what the work panel learns from events."""
        self.work.observe(event)

    # ------------------------------------------------------------------ the orchestration core's log

    async def append(self, turn: ConversationTurn) -> None:
        """The core's `ConversationLog`: record the turn (append, fold, bound), then harvest the memory blocks
        of a reply in the background; only a failed append raises."""
        await self.record.append(turn)
        if turn.role is TurnRole.RESPONSE and BLOCK_TAG in turn.text:  # most replies hold no block
            self._spawn(self.harvest(turn.role, turn.text))

    # ------------------------------------------------------------------ at an agent's launch

    async def injection(self, agent_id: AgentId, conversation: ConversationId | None) -> Injection:
        """Gathered at each launch; each part falls back to nothing when it cannot be read (logged). The
        launch conversation's rotation starts in the background."""
        if conversation is not None:
            self.record.flush(conversation)  # rotation reads the handoff's cursor from its file
            self._spawn(self.rotate(conversation))
        context, memory, skills, handoff = await asyncio.gather(
            self.context.read(),
            self.memory.pointers(),
            self.skills.assigned_to(agent_id),
            self.handoffs.resume_text(conversation),
            return_exceptions=True,
        )
        parts = {"context": context, "memory": memory, "skills": skills, "handoff": handoff}
        for name, value in parts.items():
            if isinstance(value, BaseException):
                self._diagnostics.beacon(f"[launch] {name} not injected for agent {agent_id}: {value!r}")
        return Injection(
            project_context=context if isinstance(context, str) else "",
            memory=memory if isinstance(memory, tuple) else (),
            skills=skills.skills if not isinstance(skills, BaseException) else (),
            handoff=handoff if isinstance(handoff, str) else "",
        )

    async def standing_parts(self, agent_id: AgentId) -> Injection | None:
        """The project context and the agent's assigned skills as a launch would read them now (for "context
        changed — restart to apply"); None when either cannot be read."""
        try:
            context, skills = await asyncio.gather(self.context.read(), self.skills.assigned_to(agent_id))
        except (AppError, OSError) as exc:
            self._diagnostics.beacon(f"[context] launch context of agent {agent_id} not compared: {exc!r}")
            return None
        return Injection(project_context=context, memory=(), skills=skills.skills, handoff="")

    def _spawn(self, work: Coroutine[Any, Any, Any]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
