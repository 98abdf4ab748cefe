"""Skills (spec 04 §13): reusable procedures in Markdown, per project (`.ideai/skills/`) and global
(`<user-data>/skills/`), same format as the original: `index.json` + `md/<id>.md`.

A project skill shadows a global one of the same name; names match case-insensitively; two skills sharing a
name within one scope (a hand edit) make the name ambiguous there.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from idea.domain.agent import AgentManifest, SkillRef, SkillScope
from idea.domain.errors import AppError, ErrorCode
from idea.domain.ids import is_uuid
from idea.domain.knowledge.front_matter import Problem
from idea.domain.template import content_hash

SKILLS_DIR = "skills"
INDEX_FILE = "index.json"
BODIES_DIR = "md"
SKILL_INDEX_VERSION = 1
NAME_MAX_CHARS = 64
EFFECTIVE_DESCRIPTION_MAX_CHARS = 160
DESCRIPTION_MAX_CHARS = 300
PROJECT: SkillScope = "project"
GLOBAL: SkillScope = "global"
SCOPES: tuple[SkillScope, ...] = (PROJECT, GLOBAL)
_NAME_FIRST = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
_NAME_REST = _NAME_FIRST | frozenset("._-")


def is_valid_name(name: str) -> bool:
    """`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`."""
    return 0 < len(name) <= NAME_MAX_CHARS and name[0] in _NAME_FIRST and all(ch in _NAME_REST for ch in name[1:])


def require_name(name: str, code: ErrorCode = ErrorCode.INVALID) -> str:
    if not is_valid_name(name):
        raise AppError(
            code,
            f"`name` {name[:80]!r} is not a skill name: use 1 to {NAME_MAX_CHARS} letters, digits, '.', '_' "
            "and '-', starting with a letter or a digit (for example 'build-appimage')",
        )
    return name


def parse_scope(text: str | None) -> SkillScope:
    value = (text or PROJECT).strip().lower()
    if value not in SCOPES:
        raise AppError(ErrorCode.INVALID, f"`scope` must be \"project\" or \"global\", not {value[:40]!r}")
    return PROJECT if value == PROJECT else GLOBAL


@dataclass(frozen=True)
class SkillRecord:
    """One line of `index.json`. `description` may be None (legacy indexes without the key)."""

    id: str
    name: str
    description: str | None
    content_hash: str
    extra: tuple[tuple[str, Any], ...] = ()  # unknown keys, kept on rewrite

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "description": self.description,
            "contentHash": self.content_hash,
            **dict(self.extra),
        }


@dataclass(frozen=True)
class SkillIndex:
    version: int = SKILL_INDEX_VERSION
    skills: tuple[SkillRecord, ...] = ()
    unreadable: tuple[Any, ...] = ()  # entries that are not skills, kept as they were, never dropped
    extra: tuple[tuple[str, Any], ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "skills": [record.to_json() for record in self.skills] + list(self.unreadable),
            **dict(self.extra),
        }

    def by_id(self, skill_id: str) -> SkillRecord | None:
        return next((record for record in self.skills if record.id == skill_id), None)

    def named(self, name: str) -> tuple[SkillRecord, ...]:
        wanted = name.casefold()
        return tuple(record for record in self.skills if record.name.casefold() == wanted)

    def with_record(self, record: SkillRecord) -> SkillIndex:
        if self.by_id(record.id) is None:
            return replace(self, skills=(*self.skills, record))
        return replace(self, skills=tuple(record if r.id == record.id else r for r in self.skills))

    def without(self, skill_id: str) -> SkillIndex:
        return replace(self, skills=tuple(r for r in self.skills if r.id != skill_id))


@dataclass(frozen=True)
class ParsedIndex:
    index: SkillIndex
    problems: tuple[Problem, ...]


def parse_index(data: Any) -> ParsedIndex:
    """An `index.json` document read entry by entry: a malformed entry is reported (by position) and kept
    aside in `unreadable`, so a rewrite never loses it; the others are usable."""
    if not isinstance(data, Mapping) or not isinstance(data.get("skills", []), list):
        raise ValueError("expected an object with a `skills` list")
    records: list[SkillRecord] = []
    unreadable: list[Any] = []
    problems: list[Problem] = []
    seen_ids: set[str] = set()
    for position, raw in enumerate(data.get("skills", [])):
        record, reason = _record(raw)
        if record is None or record.id in seen_ids:
            unreadable.append(raw)
            problems.append(Problem(position + 1, f"skills[{position}]: {reason or 'the id is used twice'}"))
            continue
        seen_ids.add(record.id)
        records.append(record)
    version = data.get("version", SKILL_INDEX_VERSION)
    extra = tuple((k, v) for k, v in data.items() if k not in ("version", "skills"))
    return ParsedIndex(
        SkillIndex(version if isinstance(version, int) else SKILL_INDEX_VERSION, tuple(records), tuple(unreadable), extra),
        tuple(problems),
    )


def _record(raw: Any) -> tuple[SkillRecord | None, str | None]:
    if not isinstance(raw, Mapping):
        return None, "not an object"
    skill_id, name = raw.get("id"), raw.get("name")
    if not isinstance(skill_id, str) or not is_uuid(skill_id):
        return None, "`id` is not a UUID"
    if not isinstance(name, str) or not name.strip():
        return None, "`name` is missing"
    description = raw.get("description")
    stored_hash = raw.get("contentHash")
    extra = tuple((k, v) for k, v in raw.items() if k not in ("id", "name", "description", "contentHash"))
    return (
        SkillRecord(
            id=str(uuid.UUID(skill_id)),
            name=name.strip(),
            description=description if isinstance(description, str) else None,
            content_hash=stored_hash if isinstance(stored_hash, str) else "",
            extra=extra,
        ),
        None,
    )


def body_hash(body: str) -> str:
    """First 16 hex characters of the SHA-256 of the UTF-8 body (the original's values are informative only)."""
    return content_hash(body)


def effective_description(description: str | None, body: str) -> str:
    """`description` when not empty, else the first non-empty body line without its leading `#` and spaces;
    at most 160 characters."""
    if description and description.strip():
        text = description
    else:
        text = next((line.strip().lstrip("#").strip() for line in body.split("\n") if line.strip()), "")
    return " ".join(text.split())[:EFFECTIVE_DESCRIPTION_MAX_CHARS]


@dataclass(frozen=True)
class Skill:
    record: SkillRecord
    scope: SkillScope
    body: str

    @property
    def name(self) -> str:
        return self.record.name

    @property
    def effective_description(self) -> str:
        return effective_description(self.record.description, self.body)


def ensure_unique_name(index: SkillIndex, name: str, scope: SkillScope, except_id: str | None = None) -> None:
    clash = [record for record in index.named(name) if record.id != except_id]
    if clash:
        raise AppError(
            ErrorCode.INVALID,
            f"a {scope} skill named {clash[0].name!r} already exists; choose another name or edit that skill",
        )


def resolve_by_name(name: str, scopes: Sequence[tuple[SkillScope, SkillIndex]]) -> tuple[SkillScope, SkillRecord]:
    """The skill `idea_skill_read(name)` means: scopes in order (project first: it shadows global);
    case-insensitive; two matches in one scope -> INVALID; none anywhere -> NOT_FOUND."""
    for scope, index in scopes:
        matches = index.named(name)
        if len(matches) > 1:
            raise AppError(ErrorCode.INVALID, f"skill name `{name}` is ambiguous in {scope} scope")
        if matches:
            return scope, matches[0]
    raise AppError(ErrorCode.NOT_FOUND, f"skill `{name}`")


# ------------------------------------------------------------------------------------------- assignment


def assigned(manifest: AgentManifest, agent_id: str, ref: SkillRef) -> AgentManifest:
    """`{skillId, scope}` added to the agent's manifest entry (once)."""
    agent = manifest.require(agent_id)
    if any(existing.skill_id == ref.skill_id and existing.scope == ref.scope for existing in agent.skills):
        return manifest
    return _with_skills(manifest, agent_id, (*agent.skills, ref))


def unassigned(manifest: AgentManifest, agent_id: str, skill_id: str, scope: SkillScope) -> AgentManifest:
    agent = manifest.require(agent_id)
    kept = tuple(ref for ref in agent.skills if not (ref.skill_id == skill_id and ref.scope == scope))
    return manifest if len(kept) == len(agent.skills) else _with_skills(manifest, agent_id, kept)


def unassigned_everywhere(manifest: AgentManifest, skill_id: str, scope: SkillScope) -> AgentManifest:
    for agent in manifest.agents:
        manifest = unassigned(manifest, agent.agent_id, skill_id, scope)
    return manifest


def _with_skills(manifest: AgentManifest, agent_id: str, skills: tuple[SkillRef, ...]) -> AgentManifest:
    agents = tuple(
        agent.model_copy(update={"skills": skills}) if agent.agent_id == agent_id else agent
        for agent in manifest.agents
    )
    return manifest.model_copy(update={"agents": agents})


@dataclass(frozen=True)
class AssignedSkills:
    """An agent's skills as its context file lists them, and the references that lead nowhere."""

    skills: tuple[Skill, ...]
    dangling: tuple[SkillRef, ...]


def assigned_skills(refs: Iterable[SkillRef], skills: Mapping[tuple[SkillScope, str], Skill]) -> AssignedSkills:
    found: list[Skill] = []
    dangling: list[SkillRef] = []
    for ref in refs:
        skill = skills.get((ref.scope, ref.skill_id))
        if skill is None:
            dangling.append(ref)
        elif skill not in found:
            found.append(skill)
    return AssignedSkills(tuple(found), tuple(dangling))

