"""Skills (spec 04 §13): the Skills view's create, edit, delete and assign; `idea_create_skill` and
`idea_skill_read` for agents; the skills an agent's context file lists at launch."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, replace

from idea.application.knowledge.ports import SkillStore, Team
from idea.application.ports import Diagnostics, EventPublisher, IdGenerator
from idea.domain.agent import SkillRef, SkillScope
from idea.domain.errors import AppError, ErrorCode, not_found
from idea.domain.ids import AgentId
from idea.domain.knowledge.events import SkillsChanged
from idea.domain.knowledge.skill import (
    DESCRIPTION_MAX_CHARS,
    GLOBAL,
    PROJECT,
    AssignedSkills,
    Skill,
    SkillIndex,
    SkillRecord,
    assigned,
    assigned_skills,
    body_hash,
    ensure_unique_name,
    require_name,
    resolve_by_name,
    unassigned,
    unassigned_everywhere,
)


@dataclass(frozen=True)
class SkillCatalogue:
    """Both scopes as the Skills view shows them, and what could not be read."""

    skills: tuple[Skill, ...]  # project skills first, then global, each in index order
    problems: tuple[str, ...]

    def get(self, scope: SkillScope, skill_id: str) -> Skill | None:
        return next((s for s in self.skills if s.scope == scope and s.record.id == skill_id), None)


class SkillService:
    def __init__(
        self,
        project: SkillStore,
        global_: SkillStore,
        team: Team,
        ids: IdGenerator,
        events: EventPublisher,
        diagnostics: Diagnostics,
    ) -> None:
        self._stores: dict[SkillScope, SkillStore] = {PROJECT: project, GLOBAL: global_}
        self._team = team
        self._ids = ids
        self._events = events
        self._diagnostics = diagnostics

    async def catalogue(self) -> SkillCatalogue:
        skills: list[Skill] = []
        problems: list[str] = []
        for scope, store in self._stores.items():
            scan = await asyncio.to_thread(store.scan)
            problems.extend(scan.problems)
            skills.extend(Skill(record, scope, scan.bodies.get(record.id, "")) for record in scan.index.skills)
        return SkillCatalogue(tuple(skills), tuple(problems))

    async def read(self, name: str) -> Skill:
        """`idea_skill_read`: project scope first (it shadows global), case-insensitive; ambiguous within a
        scope -> INVALID; nowhere -> NOT_FOUND."""
        scans = {scope: await asyncio.to_thread(store.scan) for scope, store in self._stores.items()}
        scope, record = resolve_by_name(name.strip(), [(scope, scan.index) for scope, scan in scans.items()])
        return Skill(record, scope, scans[scope].bodies.get(record.id, ""))

    async def create(
        self, name: str, content: str, description: str | None = None, scope: SkillScope = PROJECT
    ) -> Skill:
        require_name(name)
        if not content.strip():
            raise AppError(ErrorCode.INVALID, "a skill needs a body: `content` is empty")
        description = _description(description)
        store = self._stores[scope]
        skill_id = self._ids.new_id()
        record = SkillRecord(skill_id, name, description, body_hash(content))

        def work() -> None:
            with store.lock():
                index = store.scan().index
                ensure_unique_name(index, name, scope)
                store.write(index.with_record(record), skill_id, content)

        await asyncio.to_thread(work)
        self._events.publish(SkillsChanged(scope))
        return Skill(record, scope, content)

    async def update(
        self, scope: SkillScope, skill_id: str, *, name: str, description: str | None, body: str
    ) -> Skill:
        require_name(name)
        if not body.strip():
            raise AppError(ErrorCode.INVALID, "a skill needs a body")
        store = self._stores[scope]

        def work() -> Skill:
            with store.lock():
                index = store.scan().index
                current = index.by_id(skill_id)
                if current is None:
                    raise not_found(f"{scope} skill {skill_id} not found")
                ensure_unique_name(index, name, scope, except_id=skill_id)
                record = replace(current, name=name, description=_description(description), content_hash=body_hash(body))
                store.write(index.with_record(record), skill_id, body)
                return Skill(record, scope, body)

        skill = await asyncio.to_thread(work)
        self._events.publish(SkillsChanged(scope))
        return skill

    async def delete(self, scope: SkillScope, skill_id: str) -> None:
        """The skill, its body, and every assignment of it."""
        store = self._stores[scope]

        def work() -> None:
            with store.lock():
                index: SkillIndex = store.scan().index
                if index.by_id(skill_id) is None:
                    raise not_found(f"{scope} skill {skill_id} not found")
                store.write(index.without(skill_id))
                store.delete_body(skill_id)

        await asyncio.to_thread(work)
        await self._team.change_manifest(lambda manifest: unassigned_everywhere(manifest, skill_id, scope))
        self._events.publish(SkillsChanged(scope))

    async def assign(self, agent_id: AgentId, scope: SkillScope, skill_id: str) -> None:
        """Listed in the agent's context file from its next launch ("restart to apply")."""
        if (await self.catalogue()).get(scope, skill_id) is None:
            raise not_found(f"{scope} skill {skill_id} not found")
        await self._team.change_manifest(lambda manifest: assigned(manifest, agent_id, SkillRef(skill_id=skill_id, scope=scope)))

    async def unassign(self, agent_id: AgentId, scope: SkillScope, skill_id: str) -> None:
        await self._team.change_manifest(lambda manifest: unassigned(manifest, agent_id, skill_id, scope))

    async def assigned_to(self, agent_id: AgentId) -> AssignedSkills:
        """The agent's skills for its context file; references to skills that no longer exist are ignored
        with a warning."""
        entry = self._team.manifest().require(agent_id)
        catalogue = await self.catalogue()
        found = assigned_skills(entry.skills, {(s.scope, s.record.id): s for s in catalogue.skills})
        for ref in found.dangling:
            self._diagnostics.beacon(f"[skills] {entry.name}: assigned {ref.scope} skill {ref.skill_id} does not exist")
        return found


def _description(description: str | None) -> str | None:
    if description is None or not description.strip():
        return None
    text = " ".join(description.split())
    if len(text) > DESCRIPTION_MAX_CHARS:
        raise AppError(
            ErrorCode.INVALID, f"`description` has {len(text)} characters, more than the limit of {DESCRIPTION_MAX_CHARS}"
        )
    return text
