"""Whether a running agent still has the context it was launched with (spec 02 §2, 04 §13.2).

An agent's persona, its assigned skills, the project context (`CONTEXT.md`) and how its profile starts its CLI
are read once, at launch, into its context file and its command line. A change to any of them reaches a
running agent only when it is launched again: until then the Agents panel says "context changed — restart to
apply". The runner records what each launch injected (`LaunchContexts.launched`); `changes` compares it with
what a launch would inject now. A stopped agent is never behind: it reads everything at its next launch.

Not watched, because they are meant to move while the agent runs and it reads them with its tools: the
live-state board, the memory index, the conversation handoff, and the profile's settings that IdeA reads as
it goes (submit delay, prompt and liveness patterns…). Permissions have their own "restart to apply" in the
Permissions panel.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

from idea.application.agents.catalogue import AgentCatalogue
from idea.application.agents.convention_file import SkillBrief
from idea.application.agents.ports import AgentProject, LaunchInjection
from idea.application.agents.profiles import ProfileCatalogue
from idea.domain.errors import AppError
from idea.domain.events import AgentLaunched, AgentsChanged, OrchestrationNews
from idea.domain.ids import AgentId, ProjectId, SessionId
from idea.domain.knowledge.events import ProjectContextChanged, SkillsChanged
from idea.domain.knowledge.skill import Skill
from idea.domain.profile import Profile

CONTEXT_CHANGED = "context changed"  # the Agents panel's mark
RESTART_TO_APPLY = "restart to apply"


class ContextPart(StrEnum):
    """What a launch injects that can change while the agent runs, in the order the panel names them."""

    PERSONA = "persona"
    SKILLS = "assigned skills"
    PROJECT_CONTEXT = "project context"
    PROFILE = "profile"


@dataclass(frozen=True)
class LaunchContext:
    """What one launch gave the agent, as far as "context changed" is concerned."""

    persona: str
    skills: tuple[SkillBrief, ...]  # as its context file lists them (bodies only for file-protocol agents)
    project_context: str
    profile: tuple[object, ...] | None  # `launch_shape` of its profile; None: the profile is gone
    uses_mcp: bool = True  # how its skills were presented


@dataclass(frozen=True)
class ContextChange:
    """A running agent whose context changed since its session `session_id` started."""

    session_id: SessionId
    parts: tuple[ContextPart, ...]

    def describe(self) -> str:
        """ "Persona changed since it started — restart to apply"."""
        what = _joined([part.value for part in self.parts])
        return f"{what[:1].upper()}{what[1:]} changed since it started — {RESTART_TO_APPLY}"


def launch_shape(profile: Profile) -> tuple[object, ...]:
    """The profile's settings that take effect only when its CLI starts: the program, its arguments and
    environment, how the context file and the MCP bridge reach it, its hooks, its own session option, the
    terminal's Shift+Enter sequence."""
    return (
        profile.command,
        profile.args,
        profile.context_injection,
        profile.cwd_template,
        profile.session,
        profile.mcp,
        dict(profile.env),
        profile.hooks,
        profile.newline_sequence,
    )


def skill_briefs(skills: Sequence[Skill], uses_mcp: bool) -> tuple[SkillBrief, ...]:
    """Skills as the context file presents them: an MCP agent gets names and descriptions (it loads a body on
    demand), a file-protocol agent the bodies too."""
    return tuple(SkillBrief(s.name, s.effective_description, "" if uses_mcp else s.body) for s in skills)


def context_of(persona: str, profile: Profile, knowledge: LaunchInjection) -> LaunchContext:
    return LaunchContext(
        persona=persona,
        skills=skill_briefs(knowledge.skills, profile.materializes_idea_bridge()),
        project_context=knowledge.project_context,
        profile=launch_shape(profile),
        uses_mcp=profile.materializes_idea_bridge(),
    )


def changed_parts(launched: LaunchContext, now: LaunchContext) -> tuple[ContextPart, ...]:
    parts = []
    if now.persona != launched.persona:
        parts.append(ContextPart.PERSONA)
    if now.skills != launched.skills:
        parts.append(ContextPart.SKILLS)
    if now.project_context != launched.project_context:
        parts.append(ContextPart.PROJECT_CONTEXT)
    if now.profile != launched.profile:
        parts.append(ContextPart.PROFILE)
    return tuple(parts)


def may_change_launch_context(event: object, project_id: ProjectId) -> bool:
    """Whether `event` may change which running agents of the project are behind their context: the team
    changed (a persona, skill assignments, a profile choice, a template sync), the project's skills or its
    context were written, or an agent was (re)launched. Profiles edited in Agents ▸ Profiles publish no
    project event: a screen that follows them reads `changes` again."""
    match event:
        case AgentsChanged(project_id=pid) | AgentLaunched(project_id=pid):
            return pid == project_id
        case OrchestrationNews(project_id=pid, event=inner):
            return pid == project_id and isinstance(inner, (ProjectContextChanged, SkillsChanged))
    return False


class LaunchContexts:
    """What each running agent of a project was launched with, per session: kept while the session lives,
    whatever cell shows it or none (the background)."""

    def __init__(self, project: AgentProject, catalogue: AgentCatalogue, profiles: ProfileCatalogue) -> None:
        self._project = project
        self._catalogue = catalogue
        self._profiles = profiles
        self._launched: dict[AgentId, tuple[SessionId, LaunchContext]] = {}

    def launched(self, agent_id: AgentId, session_id: SessionId, context: LaunchContext) -> None:
        """A (re)launch: the agent's context is what this session was given."""
        self._launched[agent_id] = (session_id, context)

    def ended(self, agent_id: AgentId, session_id: SessionId) -> None:
        """The session ended (a later launch's record stays)."""
        if agent_id in self._launched and self._launched[agent_id][0] == session_id:
            del self._launched[agent_id]

    async def changes(self) -> Mapping[AgentId, ContextChange]:
        """Every running agent whose context changed since it started. An agent whose current inputs cannot
        be read is left out (nothing is claimed about it)."""
        found: dict[AgentId, ContextChange] = {}
        for agent_id, (session_id, launched) in list(self._launched.items()):
            live = self._project.sessions.live_agent_session(agent_id)
            if live is None or live.id != session_id:
                continue
            now = await self._current(agent_id, launched)
            parts = changed_parts(launched, now) if now is not None else ()
            if parts:
                found[agent_id] = ContextChange(session_id, parts)
        return found

    async def _current(self, agent_id: AgentId, launched: LaunchContext) -> LaunchContext | None:
        """What a launch would inject now; the skills are presented as the running session's profile would
        present them, so that a profile change is told once, as a profile change."""
        try:
            entry = self._catalogue.agent(agent_id)
            persona = self._catalogue.persona(agent_id)
        except (AppError, OSError):
            return None
        knowledge = await self._project.knowledge.standing_parts(agent_id)
        if knowledge is None:
            return None
        try:
            profile: Profile | None = self._profiles.profile(entry.profile_id)
        except AppError:
            profile = None  # deleted: what it launched with is gone
        return LaunchContext(
            persona=persona,
            skills=skill_briefs(knowledge.skills, launched.uses_mcp),
            project_context=knowledge.project_context,
            profile=launch_shape(profile) if profile is not None else None,
            uses_mcp=launched.uses_mcp,
        )


def _joined(words: Sequence[str]) -> str:
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]
