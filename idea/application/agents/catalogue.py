"""A project's team: creating, renaming, deleting agents, their personas, their profiles, the orchestrator
designation, and keeping personas in sync with their templates."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from idea.application.agents.ports import ManifestStore, PersonaStore
from idea.application.agents.profiles import ProfileCatalogue
from idea.application.agents.templates import TemplateCatalogue, TemplateLink, TemplateStatus
from idea.application.ports import Clock, Diagnostics, EventPublisher, IdGenerator
from idea.domain.agent import (
    AGENT_NAME_MAX_CHARS,
    AgentEntry,
    AgentManifest,
    Worktree,
    unique_md_path,
    validate_agent_name,
)
from idea.domain.agent_repair import ManifestRepair, repair_duplicate_ids
from idea.domain.errors import AppError, CorruptFileError, ErrorCode, PartlyReadFileError
from idea.domain.events import AgentProfileChanged, AgentsChanged, OrchestratorChanged
from idea.domain.ids import AgentId, ProjectId
from idea.domain.template import TemplateRecord

BLANK_PERSONA = """# Role

In a few sentences: what this agent is for.

## Responsibilities

- What it owns and decides.

## Must not

- Act outside the project, or push or publish anything, without asking the user.

## How it reports

- What changed, what was checked, what is left to do.
"""


class ProjectTeam(Protocol):
    """An open project as the screens shared by every project see it (profiles, templates): its name and
    its team. `ProjectRuntime` is one."""

    @property
    def name(self) -> str: ...

    @property
    def agents(self) -> AgentCatalogue: ...


class AgentCatalogue:
    def __init__(
        self,
        project_id: ProjectId,
        root: str,
        *,
        manifests: ManifestStore,
        personas: PersonaStore,
        profiles: ProfileCatalogue,
        templates: TemplateCatalogue,
        clock: Clock,
        ids: IdGenerator,
        events: EventPublisher,
        diagnostics: Diagnostics,
        is_live: Callable[[AgentId], bool],
        forget: Callable[[AgentId], None] = lambda _agent_id: None,
    ) -> None:
        """`forget`: removes what else names a deleted agent (its cells' pins, its live-state row)."""
        self._project_id = project_id
        self._root = root
        self._manifests = manifests
        self._personas = personas
        self._profiles = profiles
        self._templates = templates
        self._clock = clock
        self._ids = ids
        self._events = events
        self._diagnostics = diagnostics
        self._is_live = is_live
        self._forget = forget
        self._manifest = AgentManifest()
        self.problems: list[str] = []

    def load(self) -> None:
        """Read the manifest at project open; a broken one is kept aside and the team starts empty; rows that
        share an id are repaired (`agent_repair`) and the repair saved and told."""
        try:
            manifest = self._manifests.load(self._root)
        except PartlyReadFileError as exc:
            self.problems.append(
                f"{exc.message}. The agents it could read were kept: agents.json was rewritten without the others "
                "(it is versioned: your version control shows the change)."
            )
            manifest = exc.document
        except CorruptFileError as exc:
            self.problems.append(
                f"{exc.message}. The project opened without agents; fix or restore the file to get them back."
            )
            manifest = AgentManifest()
        repair = repair_duplicate_ids(manifest, self._ids.new_id)
        self._manifest = repair.manifest
        if repair.changed:
            self._save_repair(repair)

    def _save_repair(self, repair: ManifestRepair) -> None:
        for copy in repair.copies:  # before the manifest names them
            body = self._personas.read(self._root, copy.source)
            self._personas.write(self._root, copy.target, body if body is not None else "")
        try:
            self._manifests.save(self._root, repair.manifest)
            saved = "agents.json was rewritten (it is versioned: your version control shows the change)"
        except OSError as exc:
            saved = f"agents.json could not be rewritten ({exc.strerror or exc}); the repair holds until IdeA closes"
        for change in repair.changes:
            self._diagnostics.beacon(f"[agents] repaired {self._root}: {change}")
        self.problems.append(
            "Several agents in agents.json had the same id. IdeA repaired it and removed no agent or persona: "
            + " ".join(repair.changes) + f" {saved}."
        )

    # -- queries --

    def manifest(self) -> AgentManifest:
        """An immutable snapshot, safe to read from the GUI thread."""
        return self._manifest

    def agent(self, agent_id: AgentId) -> AgentEntry:
        return self._manifest.require(agent_id)

    def by_name(self, name: str) -> AgentEntry:
        agent = self._manifest.by_name(name.strip())
        if agent is None:
            known = ", ".join(a.name for a in self._manifest.agents) or "none"
            raise AppError(ErrorCode.NOT_FOUND, f"agent '{name}' not found; known agents: {known}")
        return agent

    def persona(self, agent_id: AgentId) -> str:
        return self._personas.read(self._root, self.agent(agent_id).md_path) or ""

    def template_status(self, agent_id: AgentId) -> TemplateStatus:
        agent = self.agent(agent_id)
        return self._templates.status(agent, self.persona(agent_id))

    # -- what the agent screens read (files, hence on the core loop) --

    async def read_persona(self, agent_id: AgentId) -> str:
        return self.persona(agent_id)

    async def template_statuses(self) -> dict[AgentId, TemplateStatus]:
        """Every agent's template link."""
        return {agent.agent_id: self.template_status(agent.agent_id) for agent in self._manifest.agents}

    async def template_comparison(self, agent_id: AgentId) -> tuple[str, str]:
        """The agent's persona and its template's current body, for the diff."""
        status = self.template_status(agent_id)
        if status.template is None:
            raise AppError(ErrorCode.INVALID, "this agent's template no longer exists")
        return self.persona(agent_id), self._templates.body(status.template.id)

    # -- the team --

    async def create(
        self,
        name: str,
        profile_id: str,
        persona: str,
        *,
        template: TemplateRecord | None = None,
        synchronized: bool = False,
        worktree: Worktree | None = None,
    ) -> AgentEntry:
        """A new agent, from scratch (`persona`) or from a template (its current body), in its own worktree
        when one is given (made beforehand, `application/git/agent_worktrees.py`)."""
        name = name.strip()
        self.check_new(name, profile_id)
        body = self._templates.body(template.id) if template is not None else persona
        entry = AgentEntry(
            agent_id=self._ids.new_id(),
            name=name,
            md_path=unique_md_path(name, [a.md_path for a in self._manifest.agents]),
            profile_id=profile_id,
            synchronized=synchronized and template is not None,
            template_id=template.id if template else None,
            template_version=template.version if template else None,
            worktree=worktree,
        )
        self._personas.write(self._root, entry.md_path, body)
        self._store(lambda manifest: manifest.with_agent(entry))
        self._diagnostics.beacon(f"[agents] created {entry.name} id={entry.agent_id}")
        return entry

    def check_new(self, name: str, profile_id: str) -> None:
        """AppError unless an agent of that name and profile can be created now."""
        validate_agent_name(name.strip(), self._manifest)
        self._profiles.profile(profile_id)

    async def rename(self, agent_id: AgentId, name: str) -> None:
        self._store(lambda manifest: manifest.renamed(agent_id, name.strip()))

    async def set_profile(self, agent_id: AgentId, profile_id: str) -> None:
        self._profiles.profile(profile_id)
        before = self.agent(agent_id).profile_id
        self._store(lambda manifest: manifest.with_profile(agent_id, profile_id))
        if before != profile_id:
            self._events.publish(AgentProfileChanged(self._project_id, agent_id, profile_id))

    async def set_orchestrator(self, agent_id: AgentId | None) -> None:
        before = self._manifest.orchestrator
        self._store(lambda manifest: manifest.with_orchestrator(agent_id))
        if before != agent_id:
            self._events.publish(OrchestratorChanged(self._project_id, agent_id))

    async def set_worktree(self, agent_id: AgentId, worktree: Worktree | None) -> None:
        """Record (None: clear) the agent's own worktree; it applies from the agent's next launch."""
        self._store(lambda manifest: manifest.with_worktree(agent_id, worktree))
        where = worktree.path if worktree is not None else "the main tree"
        self._diagnostics.beacon(f"[agents] {self.agent(agent_id).name} works in {where}")

    async def delete(self, agent_id: AgentId) -> str | None:
        """Remove an agent that is not running; its persona goes to `.ideai/agents/.deleted/`.
        Returns where the persona was kept."""
        agent = self.agent(agent_id)
        if self._is_live(agent_id):
            raise AppError(ErrorCode.INVALID, f"{agent.name} is running; stop it before deleting it")
        designated = self._manifest.orchestrator == agent_id
        # The manifest first: a crash between the two leaves a persona nobody names, never an agent whose
        # persona has gone to the trash.
        self._store(lambda manifest: manifest.without(agent_id))
        kept = self._personas.trash(self._root, agent.md_path, self._clock.now_ms())
        if designated:  # the designation is cleared with it
            self._events.publish(OrchestratorChanged(self._project_id, None))
        self._forget(agent_id)
        self._diagnostics.beacon(f"[agents] deleted {agent.name} id={agent_id} persona kept as {kept}")
        return kept

    async def change_manifest(self, change: Callable[[AgentManifest], AgentManifest]) -> AgentManifest:
        """Apply `change` (a skill assigned to an agent, …), save `agents.json`, announce the new team."""
        self._store(change)
        return self._manifest

    async def update_persona(self, agent_id: AgentId, body: str) -> None:
        """Takes effect at the agent's next launch (the context file is composed at each launch)."""
        self._personas.write(self._root, self.agent(agent_id).md_path, body)
        self._publish()

    # -- templates --

    async def save_as_template(self, agent_id: AgentId, name: str, description: str) -> TemplateRecord:
        agent = self.agent(agent_id)
        return self._templates.create(name, description, self.persona(agent_id), agent.profile_id)

    async def pull_template(self, agent_id: AgentId) -> None:
        """Take the template's current body (the user chose it, local edits included)."""
        status = self.template_status(agent_id)
        if status.template is None:
            raise AppError(ErrorCode.INVALID, "this agent has no template to update from")
        template = status.template
        self._personas.write(self._root, self.agent(agent_id).md_path, self._templates.body(template.id))
        self._store(lambda manifest: manifest.with_template_version(agent_id, template.version))

    async def keep_persona(self, agent_id: AgentId) -> None:
        """"Keep mine": the persona stays as edited and the template's current version counts as seen, so the
        update is not offered again until the template changes once more."""
        persona = self.persona(agent_id)
        await self.pull_template(agent_id)
        await self.update_persona(agent_id, persona)

    async def sync_templates(self) -> list[str]:
        """Give synchronized agents without local edits their template's new body (at project open and
        after a template is saved). Returns the names of the agents updated."""
        updated = []
        for agent in self._manifest.agents:
            if not agent.synchronized or agent.template_id is None:
                continue
            status = self.template_status(agent.agent_id)
            if status.link is TemplateLink.UPDATE_AVAILABLE and status.template is not None:
                await self.pull_template(agent.agent_id)
                updated.append(agent.name)
                self._diagnostics.beacon(
                    f"[templates] {agent.name} synced to template v{status.template.version}"
                )
        return updated

    def _store(self, change: Callable[[AgentManifest], AgentManifest]) -> None:
        self._manifest = self._manifests.update(self._root, change)
        self._publish()

    def _publish(self) -> None:
        self._events.publish(AgentsChanged(self._project_id, self._manifest))


def free_agent_name(base: str, manifest: AgentManifest) -> str:
    """A valid, unused name derived from a template name ("Reviewer / QA" -> "Reviewer QA", then "… 2")."""
    cleaned = " ".join("".join(ch if ch.isalnum() or ch in "-_" else " " for ch in base).split())
    cleaned = cleaned[: AGENT_NAME_MAX_CHARS - 4] or "Agent"
    if manifest.by_name(cleaned) is None:
        return cleaned
    number = 2
    while manifest.by_name(f"{cleaned} {number}") is not None:
        number += 1
    return f"{cleaned} {number}"
