"""The handlers of the six knowledge tools (spec 03 §5.7-§5.12): one per command, each taking the requester
(from the door, never from an argument) and the command, and returning an `Outcome` or raising AppError with
a stable code. `KnowledgeTools.handlers()` is what the dispatch registers."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from idea.application.knowledge.context import ContextService, Proposed
from idea.application.knowledge.file_guard import FileGuard, persona
from idea.application.knowledge.memory import MemoryService
from idea.application.knowledge.ports import Team
from idea.application.knowledge.skills import SkillService
from idea.domain.agent import AgentEntry, AgentManifest
from idea.domain.context import CONTEXT_MAX_CHARS, may_replace_persona
from idea.domain.errors import AppError, ErrorCode
from idea.domain.knowledge_commands import (
    CreateSkill,
    KnowledgeCommand,
    ProposeContext,
    ReadContext,
    ReadMemory,
    ReadSkill,
    WriteMemory,
)
from idea.domain.orchestration import AgentCaller, Human, Outcome, Requester
from idea.domain.orchestration_rules import agent_not_found

Handler = Callable[[Requester, Any], Awaitable[Outcome]]


class KnowledgeTools:
    def __init__(
        self, memory: MemoryService, skills: SkillService, context: ContextService, team: Team, guard: FileGuard
    ) -> None:
        self._memory = memory
        self._skills = skills
        self._context = context
        self._team = team
        self._guard = guard

    def handlers(self) -> dict[type, Handler]:
        """Command type -> handler, for the dispatch's registry."""
        return {
            ReadMemory: self.read_memory,
            WriteMemory: self.write_memory,
            ReadSkill: self.read_skill,
            CreateSkill: self.create_skill,
            ReadContext: self.read_context,
            ProposeContext: self.propose_context,
        }

    async def handle(self, requester: Requester, command: KnowledgeCommand) -> Outcome:
        handler = self.handlers().get(type(command))
        if handler is None:
            raise AppError(ErrorCode.INVALID, f"unsupported command {type(command).__name__}")
        return await handler(requester, command)

    async def read_memory(self, requester: Requester, command: ReadMemory) -> Outcome:
        self._identify(requester)
        if command.slug is None:
            return Outcome(detail=await self._memory.index_text())
        return Outcome(detail=await self._memory.note_text(command.slug))

    async def write_memory(self, requester: Requester, command: WriteMemory) -> Outcome:
        self._identify(requester)
        note = await self._memory.write(
            command.slug, command.content, description=command.description, note_type=command.type
        )
        return Outcome(
            detail=f"saved memory note {note.slug}",
            data={"slug": note.slug, "description": note.description, "type": note.type.value},
        )

    async def read_skill(self, requester: Requester, command: ReadSkill) -> Outcome:
        self._identify(requester)
        skill = await self._skills.read(command.name)
        return Outcome(detail=skill.body, data={"name": skill.name, "scope": skill.scope, "skillId": skill.record.id})

    async def create_skill(self, requester: Requester, command: CreateSkill) -> Outcome:
        self._identify(requester)
        skill = await self._skills.create(command.name, command.content, command.description, command.scope)
        data = {"skillId": skill.record.id, "name": skill.name, "scope": skill.scope}
        return Outcome(detail=json.dumps(data), data=data)

    async def read_context(self, requester: Requester, command: ReadContext) -> Outcome:
        self._identify(requester)
        if command.target is None:
            return Outcome(detail=await self._context.read())
        target = _resolve(self._team.manifest(), command.target)
        async with self._guard.read(persona(target.agent_id)):
            return Outcome(detail=self._team.persona(target.agent_id))

    async def propose_context(self, requester: Requester, command: ProposeContext) -> Outcome:
        caller = self._identify(requester)
        if command.target is None:
            result = await self._context.propose(caller.agent_id if caller is not None else None, command.content)
            if isinstance(result, Proposed):
                return Outcome(
                    detail=f"filed proposal for project context at {result.relative_path}; it is not applied "
                    "until validated",
                    data={"proposal": result.relative_path},
                )
            return Outcome(detail="wrote project context")
        manifest = self._team.manifest()
        target = _resolve(manifest, command.target)
        if caller is not None and not may_replace_persona(caller.agent_id, target.agent_id, manifest):
            raise AppError(
                ErrorCode.PERMISSION_DENIED,
                f"{caller.name} may update only its own context; the orchestrator may update any",
            )
        if not command.content.strip():
            raise AppError(ErrorCode.INVALID_ARGUMENTS, "`content` must not be empty")
        if len(command.content) > CONTEXT_MAX_CHARS:
            raise AppError(ErrorCode.INVALID_ARGUMENTS, f"`content` is longer than {CONTEXT_MAX_CHARS} characters")
        async with self._guard.write(persona(target.agent_id)):
            await self._team.update_persona(target.agent_id, command.content)
        return Outcome(detail=f"updated context of {target.name} (applies at next launch)")

    def _identify(self, requester: Requester) -> AgentEntry | None:
        """The calling agent (None for the person); an agent unknown to the project is refused."""
        if isinstance(requester, Human):
            return None
        assert isinstance(requester, AgentCaller)
        caller = self._team.manifest().by_id(requester.agent_id)
        if caller is None:
            raise AppError(ErrorCode.PERMISSION_DENIED, "unidentified caller: this agent is not in the project")
        return caller


def _resolve(manifest: AgentManifest, name: str) -> AgentEntry:
    agent = manifest.by_name(name.strip())
    if agent is None:
        raise agent_not_found(name, [a.name for a in manifest.agents])
    return agent
