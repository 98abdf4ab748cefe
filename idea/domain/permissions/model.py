"""The declarative permission model of a project (spec 06 §2-§4), with the original IdeA's names.

A project may set default permissions and per-agent overrides in `.ideai/permissions.json`. `resolve`
combines them for one agent (deny wins); nothing set at all resolves to None, and then IdeA writes no
permission configuration and the CLI keeps its own prompts. `decide_file` and `decide_bash` answer what
the policy says about one path or one command line; the projections, the sandbox plan and the panel's test
box all rely on them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any, Literal

from idea.domain.permissions.globs import match_path, match_text

PERMISSIONS_VERSION = 1
WHOLE_PROJECT = "**"


class Capability(StrEnum):
    READ = "read"
    WRITE = "write"
    DELETE = "delete"
    EXECUTE_BASH = "executeBash"

    @property
    def is_file(self) -> bool:
        return self is not Capability.EXECUTE_BASH


FILE_CAPABILITIES: tuple[Capability, ...] = (Capability.READ, Capability.WRITE, Capability.DELETE)


class Effect(StrEnum):
    """What a rule says, and (as `Posture`) what applies when no rule does. Order: allow < ask < deny."""

    ALLOW = "allow"
    ASK = "ask"
    DENY = "deny"

    @property
    def rank(self) -> int:
        return _RANK[self]


Posture = Effect
_RANK = {Effect.ALLOW: 0, Effect.ASK: 1, Effect.DENY: 2}


def strictest(effects: Iterable[Effect]) -> Effect | None:
    """Deny wins over ask, ask over allow; None when there is nothing to combine."""
    ranked = sorted(effects, key=lambda effect: effect.rank)
    return ranked[-1] if ranked else None


MatchKind = Literal["exact", "prefix", "glob"]
MATCH_KINDS: tuple[MatchKind, ...] = ("exact", "prefix", "glob")


@dataclass(frozen=True)
class CommandMatcher:
    kind: MatchKind
    value: str

    @staticmethod
    def exact(value: str) -> CommandMatcher:
        return CommandMatcher("exact", value)

    @staticmethod
    def prefix(value: str) -> CommandMatcher:
        return CommandMatcher("prefix", value)

    @staticmethod
    def glob(pattern: str) -> CommandMatcher:
        return CommandMatcher("glob", pattern)

    def matches(self, command: str) -> bool:
        command = command.strip()
        if self.kind == "exact":
            return command == self.value.strip()
        if self.kind == "prefix":
            return command.startswith(self.value)
        return match_text(self.value, command)

    def pattern(self) -> str:
        """The pattern a CLI's own rule list understands: exact → value, prefix → `value*`, glob as is."""
        return f"{self.value}*" if self.kind == "prefix" else self.value


@dataclass(frozen=True)
class CommandRule:
    """One command entry of an `executeBash` rule. `effect` None: the entry was written as a plain string
    and takes the rule's effect."""

    matcher: CommandMatcher
    effect: Effect | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)

    def effect_in(self, rule: PermissionRule) -> Effect:
        return self.effect if self.effect is not None else rule.effect


@dataclass(frozen=True)
class PermissionRule:
    """File capabilities use `paths` (project-relative globs); `executeBash` uses `commands`."""

    capability: Capability
    effect: Effect
    paths: tuple[str, ...] = ()
    commands: tuple[CommandRule, ...] = ()
    extra: Mapping[str, Any] = field(default_factory=dict)

    def globs(self) -> tuple[str, ...]:
        """The path globs a file rule covers; a file rule without paths covers the whole project."""
        if not self.capability.is_file:
            return ()
        return self.paths or (WHOLE_PROJECT,)

    def covers_path(self, rel_path: str) -> bool:
        return any(match_path(glob, rel_path) for glob in self.globs())


@dataclass(frozen=True)
class PermissionSet:
    rules: tuple[PermissionRule, ...] = ()
    fallback: Posture = Effect.ASK
    extra: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class AgentPermissionOverride:
    agent_id: str
    permissions: PermissionSet
    extra: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ProjectPermissions:
    """The whole `permissions.json`. `written_keys` remembers which optional top-level keys the file had
    (an explicit `"projectDefaults": null`, an empty `"agents": []`) so a rewrite keeps them."""

    project_defaults: PermissionSet | None = None
    agents: tuple[AgentPermissionOverride, ...] = ()
    version: int = PERMISSIONS_VERSION
    extra: Mapping[str, Any] = field(default_factory=dict)
    written_keys: frozenset[str] = frozenset()

    def agent_permissions(self, agent_id: str) -> PermissionSet | None:
        for entry in self.agents:
            if entry.agent_id == agent_id:
                return entry.permissions
        return None

    def with_project_defaults(self, permissions: PermissionSet | None) -> ProjectPermissions:
        return replace(self, project_defaults=permissions)

    def with_agent_permissions(self, agent_id: str, permissions: PermissionSet | None) -> ProjectPermissions:
        """Replace (or with None remove) one agent's override; the other agents keep their order."""
        kept = [entry for entry in self.agents if entry.agent_id != agent_id]
        if permissions is not None:
            previous = next((entry for entry in self.agents if entry.agent_id == agent_id), None)
            extra = previous.extra if previous is not None else {}
            updated = AgentPermissionOverride(agent_id, permissions, extra)
            position = next((i for i, entry in enumerate(self.agents) if entry.agent_id == agent_id), len(kept))
            kept.insert(position, updated)
        return replace(self, agents=tuple(kept))

    def resolve_for(self, agent_id: str) -> EffectivePermissions | None:
        return resolve(self.project_defaults, self.agent_permissions(agent_id))


@dataclass(frozen=True)
class EffectivePermissions:
    """The rules that apply to one agent (project defaults then its override) and the fallback."""

    rules: tuple[PermissionRule, ...]
    fallback: Posture

    def rules_of(self, capability: Capability) -> tuple[PermissionRule, ...]:
        return tuple(rule for rule in self.rules if rule.capability is capability)


def resolve(project: PermissionSet | None, agent: PermissionSet | None) -> EffectivePermissions | None:
    """Union of the rules; the fallback is the strictest of those present. Both None → None."""
    present = [permission_set for permission_set in (project, agent) if permission_set is not None]
    if not present:
        return None
    rules = tuple(rule for permission_set in present for rule in permission_set.rules)
    fallback = strictest(permission_set.fallback for permission_set in present)
    assert fallback is not None
    return EffectivePermissions(rules, fallback)


@dataclass(frozen=True)
class Decision:
    """What the policy says, and which rules said it (empty: the fallback applied)."""

    effect: Effect
    rules: tuple[PermissionRule, ...] = ()
    commands: tuple[CommandRule, ...] = ()

    @property
    def from_fallback(self) -> bool:
        return not self.rules


def decide_file(effective: EffectivePermissions, capability: Capability, rel_path: str) -> Decision:
    """Deny if any matching rule denies, else ask, else allow; no matching rule → the fallback."""
    if not capability.is_file:
        raise ValueError(f"{capability} is not a file capability")
    matching = tuple(rule for rule in effective.rules_of(capability) if rule.covers_path(rel_path))
    effect = strictest(rule.effect for rule in matching)
    if effect is None:
        return Decision(effective.fallback)
    return Decision(effect, tuple(rule for rule in matching if rule.effect is effect))


def decide_bash(effective: EffectivePermissions, command: str) -> Decision:
    """A rule without command entries applies to every command with its own effect; a rule with entries
    applies only through the matching entries, each with its own effect (the rule's effect is ignored)."""
    found: list[tuple[Effect, PermissionRule, CommandRule | None]] = []
    for rule in effective.rules_of(Capability.EXECUTE_BASH):
        if not rule.commands:
            found.append((rule.effect, rule, None))
            continue
        for entry in rule.commands:
            if entry.matcher.matches(command):
                found.append((entry.effect_in(rule), rule, entry))
    effect = strictest(effect for effect, _rule, _entry in found)
    if effect is None:
        return Decision(effective.fallback)
    rules: list[PermissionRule] = []
    entries: list[CommandRule] = []
    for found_effect, rule, entry in found:
        if found_effect is not effect:
            continue
        if not any(rule is kept for kept in rules):
            rules.append(rule)
        if entry is not None:
            entries.append(entry)
    return Decision(effect, tuple(rules), tuple(entries))


# --- path glob validation (shared by the reader and the editor) ----------------------------------------


def path_glob_problem(glob: str) -> str | None:
    """Why `glob` is not a project-relative path glob, None when it is one."""
    if not glob.strip():
        return "an empty path glob"
    if glob.startswith(("/", "\\", "~")) or (len(glob) >= 2 and glob[1] == ":" and glob[0].isalpha()):
        return f"{glob!r} is an absolute path; path globs are relative to the project root"
    if ".." in glob.replace("\\", "/").split("/"):
        return f"{glob!r} contains '..'; path globs must stay inside the project"
    if "\\" in glob:
        return f"{glob!r} uses '\\'; separate folders with '/'"
    return None


def command_problem(value: str) -> str | None:
    return "an empty command" if not value.strip() else None
