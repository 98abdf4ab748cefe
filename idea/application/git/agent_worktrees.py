"""The per-agent worktree option (spec 07 §2) as the person's gestures: create an agent that runs in its own
worktree, turn the option on or off for an agent, delete an agent and its worktree, and — when the folder
went missing — recreate it or run the agent in the main tree. Each gesture is one use case; the manifest's
`worktree` field is saved once, through the team catalogue, which announces the change.

The worktree is made (or removed) first and the manifest saved after, so a refusal of git leaves the team as
it was. The setup command of a new worktree runs in a visible shell cell whose folder is the worktree."""

from __future__ import annotations

from dataclasses import dataclass

from idea.application.agents.catalogue import AgentCatalogue
from idea.application.agents.ports import AgentProject
from idea.application.git.setup_shell import run_setup_in_cell
from idea.application.git.worktrees import WorktreeService, manifest_worktree
from idea.domain.agent import AgentEntry, AgentManifest, Worktree
from idea.domain.errors import AppError, ErrorCode
from idea.domain.git.worktrees import (
    RemovalReport,
    WorktreeCreated,
    describe_created,
    slug_of_branch,
)
from idea.domain.ids import AgentId, NodeId, SessionId
from idea.domain.template import TemplateRecord
from idea.domain.wording import counted

NO_GIT = "Git is not available for this project, so an agent cannot run in its own worktree."


@dataclass(frozen=True)
class AgentWorktree:
    """An agent's worktree once made: what git did, the shell cell running the setup command (None without
    one), and whether the agent was running (it takes the worktree at its next launch)."""

    agent: AgentEntry
    created: WorktreeCreated
    setup_session: SessionId | None = None
    running: bool = False

    def describe(self) -> str:
        text = describe_created(self.agent.name, self.created)
        if self.running:
            text += f"\n{self.agent.name} is running: it works there from its next launch."
        return text


@dataclass(frozen=True)
class CreatedAgent:
    agent: AgentEntry
    worktree: AgentWorktree | None  # None: the agent works in the main tree


class AgentWorktrees:
    def __init__(self, project: AgentProject, catalogue: AgentCatalogue, worktrees: WorktreeService | None) -> None:
        self._project = project
        self._catalogue = catalogue
        self._worktrees = worktrees

    @property
    def available(self) -> bool:
        return self._worktrees is not None

    async def create_agent(
        self,
        name: str,
        profile_id: str,
        persona: str,
        *,
        template: TemplateRecord | None = None,
        synchronized: bool = False,
        own_worktree: bool = False,
        base: str | None = None,
        beside: NodeId | None = None,
    ) -> CreatedAgent:
        """A new agent (as `AgentCatalogue.create`), in its own worktree when asked, on a branch from `base`
        (default: the current branch): the worktree is made first, so nothing is saved when git refuses it."""
        if not own_worktree:
            entry = await self._catalogue.create(
                name, profile_id, persona, template=template, synchronized=synchronized
            )
            return CreatedAgent(entry, None)
        self._catalogue.check_new(name, profile_id)  # before the worktree is made
        await self._refuse_shared(name.strip(), None)
        created = await self._service().create(name.strip(), base)
        entry = await self._catalogue.create(
            name, profile_id, persona, template=template, synchronized=synchronized,
            worktree=manifest_worktree(created),
        )
        return CreatedAgent(entry, await self._prepared(entry, created, beside))

    async def enable(self, agent_id: AgentId, beside: NodeId | None = None) -> AgentWorktree:
        """"Run in its own worktree" turned on: the worktree `idea/<slug>` is made (or an existing one of
        that branch and folder kept), then the manifest records it."""
        entry = self._catalogue.agent(agent_id)
        if entry.worktree is not None:
            raise AppError(ErrorCode.INVALID, f"{entry.name} already runs in its own worktree ({entry.worktree.path}).")
        await self._refuse_shared(entry.name, agent_id)
        created = await self._service().create(entry.name)
        await self._catalogue.set_worktree(agent_id, manifest_worktree(created))
        return await self._prepared(self._catalogue.agent(agent_id), created, beside)

    async def recreate(self, agent_id: AgentId, beside: NodeId | None = None) -> AgentWorktree:
        """The worktree's folder went missing: make it again on the same branch, at the same folder (the
        branch's commits are all there; only uncommitted files are lost, with the folder)."""
        entry = self._catalogue.agent(agent_id)
        worktree = self._require_worktree(entry)
        created = await self._service().create(entry.name, path=worktree.path, slug=slug_of_branch(worktree.branch))
        if manifest_worktree(created) != worktree:
            await self._catalogue.set_worktree(agent_id, manifest_worktree(created))
        return await self._prepared(self._catalogue.agent(agent_id), created, beside)

    async def disable(self, agent_id: AgentId, confirmed: RemovalReport | None = None) -> None:
        """"Run in its own worktree" turned off: the worktree is removed (RemovalNeedsConfirmation, with the
        list of what would be lost, until the person confirms that list), then the field is cleared. The
        branch stays, so committed work can still be merged."""
        entry = self._catalogue.agent(agent_id)
        worktree = self._require_worktree(entry)
        self._refuse_running(entry, "turning its worktree off")
        await self._remove(worktree, confirmed)
        await self._catalogue.set_worktree(agent_id, None)

    async def use_main_tree(self, agent_id: AgentId) -> None:
        """Run the agent in the main tree from now on, its worktree's folder being gone: the field is cleared
        and nothing is removed (the branch stays; turning the option on again checks it out anew)."""
        entry = self._catalogue.agent(agent_id)
        self._require_worktree(entry)
        await self._catalogue.set_worktree(agent_id, None)
        if self._worktrees is not None:
            await self._worktrees.prune()

    async def delete_agent(self, agent_id: AgentId, confirmed: RemovalReport | None = None) -> str | None:
        """Delete the agent (as `AgentCatalogue.delete`) and, first, its worktree, with the same
        confirmation as turning the option off. Returns where the persona was kept."""
        entry = self._catalogue.agent(agent_id)
        if entry.worktree is not None:
            self._refuse_running(entry, "deleting it")
            await self._remove(entry.worktree, confirmed)
        return await self._catalogue.delete(agent_id)

    # -- steps --

    def _service(self) -> WorktreeService:
        if self._worktrees is None:
            raise AppError(ErrorCode.GIT, NO_GIT)
        return self._worktrees

    async def _prepared(self, entry: AgentEntry, created: WorktreeCreated, beside: NodeId | None) -> AgentWorktree:
        session = None
        if created.setup is not None:
            session = await run_setup_in_cell(self._project, created.setup, entry.agent_id, beside)
        running = self._project.sessions.live_agent_session(entry.agent_id) is not None
        outcome = AgentWorktree(entry, created, session, running)
        self._project.diagnostics.beacon(
            f"[git] {entry.name} runs in its worktree {created.info.path} "
            f"({counted(len(created.copied), 'file')} copied, "
            f"{len(created.skipped)} skipped, setup {'started' if session else 'none'})"
        )
        return outcome

    async def _refuse_shared(self, name: str, agent_id: AgentId | None) -> None:
        """Two agents whose names give the same slug would share one worktree: refused before it is made."""
        branch, path = (await self._service().basis()).planned(name)
        wanted = Worktree(branch=branch, path=path)
        for other in self._catalogue.manifest().agents:
            if other.agent_id != agent_id and other.worktree is not None and _same(other.worktree, wanted):
                raise AppError(
                    ErrorCode.INVALID,
                    f"{other.name} already runs in the worktree {wanted.path} (branch {wanted.branch}); give this "
                    "agent a name that differs by more than punctuation or case.",
                )

    def _require_worktree(self, entry: AgentEntry) -> Worktree:
        if entry.worktree is None:
            raise AppError(ErrorCode.INVALID, f"{entry.name} runs in the main tree, not in a worktree of its own.")
        return entry.worktree

    def _refuse_running(self, entry: AgentEntry, doing: str) -> None:
        if self._project.sessions.live_agent_session(entry.agent_id) is not None:
            raise AppError(
                ErrorCode.INVALID,
                f"{entry.name} is running in its worktree; stop it before {doing}.",
                data={"agentId": entry.agent_id},
            )

    async def _remove(self, worktree: Worktree, confirmed: RemovalReport | None) -> None:
        """Remove the registered worktree at that folder; a folder git no longer knows is left alone."""
        service = self._service()
        view = next((v for v in await service.views() if _same_path(v.info.path, worktree.path)), None)
        if view is not None:
            await service.remove(view.info.name, confirmed)


def agent_in(manifest: AgentManifest, path: str) -> AgentEntry | None:
    """The agent of the team that runs in the worktree at `path`, if any."""
    return next((a for a in manifest.agents if a.worktree is not None and _same_path(a.worktree.path, path)), None)


def _same(a: Worktree, b: Worktree) -> bool:
    return a.branch == b.branch or _same_path(a.path, b.path)


def _same_path(a: str, b: str) -> bool:
    return a.rstrip("/\\") == b.rstrip("/\\")
