"""The agent manifest `.ideai/agents.json` (spec 02 §1) and the rules on agent names and persona paths.

Manifest order is meaningful: creation order, the default orchestrator (first entry), and display order.
Every change returns a new manifest; nothing here touches files.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

from pydantic import Field

from idea.domain.documents import CamelDocument
from idea.domain.errors import invalid, not_found

AGENT_NAME_MAX_CHARS = 64
PERSONA_DIR = "agents"
PERSONA_SUFFIX = ".md"
DEFAULT_SLUG = "agent"

SkillScope = Literal["project", "global"]


class SkillRef(CamelDocument):
    skill_id: str
    scope: SkillScope = "project"


class Worktree(CamelDocument):
    branch: str
    path: str


class AgentEntry(CamelDocument):
    agent_id: str
    name: str
    md_path: str
    profile_id: str
    synchronized: bool = False
    template_id: str | None = None
    template_version: int | None = None
    skills: tuple[SkillRef, ...] = Field(default_factory=tuple)
    worktree: Worktree | None = None

    def to_json(self) -> dict[str, Any]:
        data = self.model_dump(by_alias=True, exclude_none=True, mode="json")
        if not self.skills:
            data.pop("skills", None)
        return data


class AgentManifest(CamelDocument):
    agents: tuple[AgentEntry, ...] = Field(default_factory=tuple)
    orchestrator: str | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"agents": [agent.to_json() for agent in self.agents]}
        if self.orchestrator is not None:
            data["orchestrator"] = self.orchestrator
        data.update(self.model_extra or {})
        return data

    # --- queries ---

    def by_id(self, agent_id: str) -> AgentEntry | None:
        return next((agent for agent in self.agents if agent.agent_id == agent_id), None)

    def by_name(self, name: str) -> AgentEntry | None:
        """Names address agents case-insensitively ("architect" finds "Architect")."""
        wanted = name.casefold()
        return next((agent for agent in self.agents if agent.name.casefold() == wanted), None)

    def effective_orchestrator(self) -> AgentEntry | None:
        """The designated orchestrator, else the first (oldest) agent, else None for an empty team."""
        if self.orchestrator is not None:
            designated = self.by_id(self.orchestrator)
            if designated is not None:
                return designated
        return self.agents[0] if self.agents else None

    def require(self, agent_id: str) -> AgentEntry:
        agent = self.by_id(agent_id)
        if agent is None:
            raise not_found(f"agent {agent_id} not found", agentId=agent_id)
        return agent

    # --- changes ---

    def with_agent(self, entry: AgentEntry) -> AgentManifest:
        """Append a new agent; its id and name must be new to the team."""
        if self.by_id(entry.agent_id) is not None:
            raise invalid(f"agent id {entry.agent_id} is already in the manifest", agentId=entry.agent_id)
        validate_agent_name(entry.name, self)
        return self.model_copy(update={"agents": (*self.agents, entry)})

    def renamed(self, agent_id: str, name: str) -> AgentManifest:
        """Change the name only; `mdPath` stays, so references to the persona stay valid."""
        self.require(agent_id)
        validate_agent_name(name, self, exclude_agent_id=agent_id)
        return self._replace(agent_id, name=name)

    def without(self, agent_id: str) -> AgentManifest:
        """Remove an agent; a designation pointing at it is cleared."""
        self.require(agent_id)
        update: dict[str, Any] = {"agents": tuple(a for a in self.agents if a.agent_id != agent_id)}
        if self.orchestrator == agent_id:
            update["orchestrator"] = None
        return self.model_copy(update=update)

    def with_profile(self, agent_id: str, profile_id: str) -> AgentManifest:
        self.require(agent_id)
        return self._replace(agent_id, profile_id=profile_id)

    def with_orchestrator(self, agent_id: str | None) -> AgentManifest:
        """Designate the orchestrator; None returns to the default (the first agent)."""
        if agent_id is not None:
            self.require(agent_id)
        return self.model_copy(update={"orchestrator": agent_id})

    def with_worktree(self, agent_id: str, worktree: Worktree | None) -> AgentManifest:
        """Record (or clear, with None) the agent's own worktree (spec 07 §2, an IdeA addition)."""
        self.require(agent_id)
        return self._replace(agent_id, worktree=worktree)

    def with_template_version(self, agent_id: str, version: int) -> AgentManifest:
        self.require(agent_id)
        return self._replace(agent_id, template_version=version)

    def _replace(self, agent_id: str, **changes: Any) -> AgentManifest:
        agents = tuple(a.model_copy(update=changes) if a.agent_id == agent_id else a for a in self.agents)
        return self.model_copy(update={"agents": agents})


def slugify(name: str) -> str:
    """Lowercase; every character outside [a-z0-9] becomes '-'; runs collapsed; ends trimmed; empty -> 'agent'."""
    pieces: list[str] = []
    for ch in name.lower():
        if ("a" <= ch <= "z") or ("0" <= ch <= "9"):
            pieces.append(ch)
        elif pieces and pieces[-1] != "-":
            pieces.append("-")
    return "".join(pieces).strip("-") or DEFAULT_SLUG


def unique_md_path(name: str, taken_paths: Iterable[str]) -> str:
    """`agents/<slug>.md`, suffixed `-2`, `-3`, … while taken (compared case-insensitively)."""
    taken = {path.casefold() for path in taken_paths}
    slug = slugify(name)
    candidate = f"{PERSONA_DIR}/{slug}{PERSONA_SUFFIX}"
    suffix = 2
    while candidate.casefold() in taken:
        candidate = f"{PERSONA_DIR}/{slug}-{suffix}{PERSONA_SUFFIX}"
        suffix += 1
    return candidate


def validate_agent_name(name: str, manifest: AgentManifest, exclude_agent_id: str | None = None) -> None:
    """Raise AppError(INVALID) unless `name` is a well-formed name no other agent uses (case-insensitively)."""
    if not name or not name.strip():
        raise invalid("An agent name must not be empty.")
    if len(name) > AGENT_NAME_MAX_CHARS:
        raise invalid(f"An agent name has at most {AGENT_NAME_MAX_CHARS} characters ({len(name)} given).")
    if name != name.strip():
        raise invalid(f"The agent name {name!r} must not start or end with a space.")
    bad = sorted({ch for ch in name if not (ch.isalnum() or ch in " -_")})
    if bad:
        shown = " ".join(repr(ch) for ch in bad)
        raise invalid(
            f"The agent name {name!r} contains {shown}: use letters, digits, spaces, '-' and '_' only."
        )
    clash = manifest.by_name(name)
    if clash is not None and clash.agent_id != exclude_agent_id:
        raise invalid(f"An agent named {clash.name!r} already exists in this project.", agentId=clash.agent_id)


def validate_persona_path(md_path: str) -> None:
    """Raise AppError(INVALID) unless `md_path` names a Markdown file inside `.ideai/agents/`.

    Only forward slashes are accepted (the manifest format), and no component may be hidden, so neither
    `..` nor the `.deleted/` trash can be reached.
    """
    parts = md_path.split("/")
    escapes = (
        "\\" in md_path
        or ":" in md_path
        or len(parts) < 2
        or parts[0] != PERSONA_DIR
        or any(part == "" or part.startswith(".") for part in parts[1:])
    )
    if escapes:
        raise invalid(
            f"The persona path {md_path!r} must stay inside .ideai/{PERSONA_DIR}/ "
            f"(for example '{PERSONA_DIR}/architect.md').",
            mdPath=md_path,
        )
    if not md_path.endswith(PERSONA_SUFFIX):
        raise invalid(f"The persona path {md_path!r} must name a Markdown file ending in '.md'.", mdPath=md_path)
