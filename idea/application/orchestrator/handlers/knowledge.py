"""The knowledge family (spec 03 §5.7-§5.12): `idea_memory_read`, `idea_memory_write`, `idea_skill_read`,
`idea_create_skill`, `idea_context_read`, `idea_context_propose`.

Its handlers use the project's knowledge services (memory, skills, the shared context) and its file guard;
the family is given to the `OrchestratorService` of each project (`families=`), built where the project's
knowledge is (`application/project_knowledge.py`). The requester comes from the door, never from an argument;
who may write what is decided by the domain (`domain/knowledge/context.py`), the guard only serialises.
"""

from __future__ import annotations

import json

from idea.application.knowledge.context import ContextService, Proposed
from idea.application.knowledge.file_guard import FileGuard, persona
from idea.application.knowledge.memory import MemoryService
from idea.application.knowledge.ports import Team
from idea.application.knowledge.skills import SkillService
from idea.application.orchestrator.callers import caller_of, required, resolve_target
from idea.application.orchestrator.dispatch import CommandDispatch
from idea.domain.errors import AppError, ErrorCode
from idea.domain.knowledge.commands import (
    CreateSkill,
    ProposeContext,
    ReadContext,
    ReadMemory,
    ReadSkill,
    WriteMemory,
)
from idea.domain.knowledge.context import CONTEXT_MAX_CHARS, may_replace_persona
from idea.domain.orchestration.commands import Outcome, Requester, Source


class KnowledgeCommands:
    def __init__(
        self, memory: MemoryService, skills: SkillService, context: ContextService, team: Team, guard: FileGuard
    ) -> None:
        self._memory = memory
        self._skills = skills
        self._context = context
        self._team = team
        self._guard = guard

    def register(self, commands: CommandDispatch) -> None:
        commands.register(ReadMemory, self.read_memory)
        commands.register(WriteMemory, self.write_memory)
        commands.register(ReadSkill, self.read_skill)
        commands.register(CreateSkill, self.create_skill)
        commands.register(ReadContext, self.read_context)
        commands.register(ProposeContext, self.propose_context)

    async def read_memory(self, requester: Requester, command: ReadMemory, source: Source) -> Outcome:
        caller_of(requester, self._team.manifest())
        if command.slug is None:
            return Outcome(detail=await self._memory.index_text())
        return Outcome(detail=await self._memory.note_text(command.slug))

    async def write_memory(self, requester: Requester, command: WriteMemory, source: Source) -> Outcome:
        caller_of(requester, self._team.manifest())
        note = await self._memory.write(
            command.slug, command.content, description=command.description, note_type=command.type
        )
        return Outcome(
            detail=f"saved memory note {note.slug}",
            data={"slug": note.slug, "description": note.description, "type": note.type.value},
        )

    async def read_skill(self, requester: Requester, command: ReadSkill, source: Source) -> Outcome:
        caller_of(requester, self._team.manifest())
        skill = await self._skills.read(command.name)
        return Outcome(detail=skill.body, data={"name": skill.name, "scope": skill.scope, "skillId": skill.record.id})

    async def create_skill(self, requester: Requester, command: CreateSkill, source: Source) -> Outcome:
        caller_of(requester, self._team.manifest())
        skill = await self._skills.create(command.name, command.content, command.description, command.scope)
        data = {"skillId": skill.record.id, "name": skill.name, "scope": skill.scope}
        return Outcome(detail=json.dumps(data), data=data)

    async def read_context(self, requester: Requester, command: ReadContext, source: Source) -> Outcome:
        manifest = self._team.manifest()
        caller_of(requester, manifest)
        if command.target is None:
            return Outcome(detail=await self._context.read())
        target = resolve_target(manifest, command.target)
        async with self._guard.read(persona(target.agent_id)):
            return Outcome(detail=self._team.persona(target.agent_id))

    async def propose_context(self, requester: Requester, command: ProposeContext, source: Source) -> Outcome:
        manifest = self._team.manifest()
        caller = caller_of(requester, manifest)
        content = required(command.content, "content")
        if len(content) > CONTEXT_MAX_CHARS:
            raise AppError(ErrorCode.INVALID_ARGUMENTS, f"`content` is longer than {CONTEXT_MAX_CHARS} characters")
        if command.target is None:
            result = await self._context.propose(caller.agent_id if caller is not None else None, command.content)
            if isinstance(result, Proposed):
                return Outcome(
                    detail=f"filed proposal for project context at {result.relative_path}; it is not applied "
                    "until validated",
                    data={"proposal": result.relative_path},
                )
            return Outcome(detail="wrote project context")
        target = resolve_target(manifest, command.target)
        if not may_replace_persona(caller.agent_id if caller is not None else None, target.agent_id, manifest):
            assert caller is not None
            raise AppError(
                ErrorCode.PERMISSION_DENIED,
                f"{caller.name} may update only its own context; the orchestrator may update any",
            )
        async with self._guard.write(persona(target.agent_id)):
            await self._team.update_persona(target.agent_id, command.content)
        return Outcome(detail=f"updated context of {target.name} (applies at next launch)")
