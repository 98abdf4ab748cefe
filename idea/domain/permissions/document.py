"""`permissions.json` read and written in the original IdeA's format (spec 06 §3).

Reading a hand-edited file never fails as a whole for one bad entry: the valid part is used and each
problem is reported with its location. A problem never makes a policy looser than the file states:
- an entry that only grants (an `allow` rule or command entry) is dropped: the policy gets stricter;
- an entry that restricts (`deny`/`ask`) or whose meaning cannot be read makes its scope *blocked*: the agents
  it concerns do not start until the file is fixed (the project defaults concern every agent);
- duplicate overrides of one agent are combined as `resolve` combines layers (deny wins).
Unknown keys are kept and written back; optional keys absent from the file stay absent.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from idea.domain.permissions.model import (
    MATCH_KINDS,
    PERMISSIONS_VERSION,
    AgentPermissionOverride,
    Capability,
    CommandMatcher,
    CommandRule,
    Effect,
    PermissionRule,
    PermissionSet,
    ProjectPermissions,
    command_problem,
    path_glob_problem,
    strictest,
)

ALL_AGENTS = "*"  # the scope of a problem in the project defaults or in the file as a whole
_SET_KEYS = ("rules", "fallback")
_RULE_KEYS = ("capability", "effect", "paths", "commands")
_COMMAND_KEYS = ("match", "value", "effect")
_AGENT_KEYS = ("agentId", "permissions")
_DOCUMENT_KEYS = ("version", "projectDefaults", "agents")


@dataclass(frozen=True)
class PermissionProblem:
    location: str  # e.g. `agents[1].permissions.rules[2].paths[0]`
    message: str
    blocks: str | None = None  # None: the entry was dropped or noted; ALL_AGENTS or an agent id: blocked

    def describe(self) -> str:
        return f"{self.location}: {self.message}" if self.location else self.message


@dataclass(frozen=True)
class PermissionsReading:
    """What was read from `permissions.json`: the usable document and what is wrong with the file."""

    document: ProjectPermissions
    problems: tuple[PermissionProblem, ...] = ()
    unreadable: str | None = None  # the file could not be used at all (every agent is blocked)

    def launch_blocker(self, agent_id: str) -> str | None:
        """Why this agent must not start under this file, None when it may."""
        if self.unreadable is not None:
            return f"permissions.json cannot be read ({self.unreadable})"
        blocking = [problem for problem in self.problems if problem.blocks in (ALL_AGENTS, agent_id)]
        if not blocking:
            return None
        listed = "; ".join(problem.describe() for problem in blocking[:3])
        more = f" (and {len(blocking) - 3} more)" if len(blocking) > 3 else ""
        return f"permissions.json has a problem that could make this agent's policy looser than written: {listed}{more}"

    @property
    def has_problems(self) -> bool:
        return self.unreadable is not None or bool(self.problems)

    def blocking_notice(self, agent_names: Mapping[str, str]) -> str | None:
        """What the person is told as the project opens when this file stops agents from starting (None: it
        stops none); `agent_names` by id, for the team's agents. It ends on "until it is fixed": where, the
        caller says."""
        if self.unreadable is not None:
            return f"permissions.json cannot be read ({self.unreadable}); no agent starts until it is fixed"
        blocking = [problem for problem in self.problems if problem.blocks is not None]
        scopes = {problem.blocks for problem in blocking}
        if ALL_AGENTS in scopes:
            who = "no agent starts"
        else:
            names = sorted(agent_names[scope] for scope in scopes if scope in agent_names)
            if not names:
                return None  # overrides of agents no longer in the team
            who = f"{', '.join(names)} cannot start"
        problems = "a problem" if len(blocking) == 1 else f"{len(blocking)} problems"
        return (
            f"permissions.json has {problems} that could make a policy looser than written ("
            f"{blocking[0].describe()}); {who} until it is fixed"
        )


def unreadable_reading(reason: str) -> PermissionsReading:
    return PermissionsReading(ProjectPermissions(), (), reason)


# --- reading -----------------------------------------------------------------------------------------


class _Reader:
    def __init__(self) -> None:
        self.problems: list[PermissionProblem] = []

    def problem(self, location: str, message: str, blocks: str | None) -> None:
        self.problems.append(PermissionProblem(location, message, blocks))

    def document(self, raw: Any) -> ProjectPermissions:
        written = frozenset(key for key in ("projectDefaults", "agents") if isinstance(raw, Mapping) and key in raw)
        version = self._version(raw.get("version"))
        defaults_raw = raw.get("projectDefaults")
        defaults = None if defaults_raw is None else self.permission_set(defaults_raw, "projectDefaults", ALL_AGENTS)
        agents = self.agents(raw.get("agents"))
        extra = {key: value for key, value in raw.items() if key not in _DOCUMENT_KEYS}
        return ProjectPermissions(defaults, agents, version, extra, written)

    def _version(self, value: Any) -> int:
        if value is None:
            return PERMISSIONS_VERSION
        if isinstance(value, bool) or not isinstance(value, int):
            self.problem("version", f"{value!r} is not a version number", ALL_AGENTS)
            return PERMISSIONS_VERSION
        if value > PERMISSIONS_VERSION:
            self.problem("version", f"version {value} was written by a newer IdeA; this one reads version "
                         f"{PERMISSIONS_VERSION}", ALL_AGENTS)
        return value

    def agents(self, raw: Any) -> tuple[AgentPermissionOverride, ...]:
        if raw is None:
            return ()
        if not isinstance(raw, list):
            self.problem("agents", "must be a list of {agentId, permissions} entries", ALL_AGENTS)
            return ()
        found: dict[str, AgentPermissionOverride] = {}
        for index, entry in enumerate(raw):
            where = f"agents[{index}]"
            if not isinstance(entry, Mapping):
                self.problem(where, "must be an object with agentId and permissions", ALL_AGENTS)
                continue
            agent_id = entry.get("agentId")
            if not isinstance(agent_id, str) or not agent_id.strip():
                self.problem(f"{where}.agentId", "missing or not a string: this override belongs to no known "
                             "agent", ALL_AGENTS)
                continue
            permissions = self.permission_set(entry.get("permissions"), f"{where}.permissions", agent_id)
            if permissions is None:
                continue
            extra = {key: value for key, value in entry.items() if key not in _AGENT_KEYS}
            if agent_id in found:
                self.problem(where, f"a second override for agent {agent_id}; both are applied together "
                             "(deny wins)", None)
                previous = found[agent_id]
                merged = PermissionSet(
                    previous.permissions.rules + permissions.rules,
                    strictest((previous.permissions.fallback, permissions.fallback)) or permissions.fallback,
                    previous.permissions.extra,
                )
                found[agent_id] = AgentPermissionOverride(agent_id, merged, previous.extra)
            else:
                found[agent_id] = AgentPermissionOverride(agent_id, permissions, extra)
        return tuple(found.values())

    def permission_set(self, raw: Any, where: str, scope: str) -> PermissionSet | None:
        if not isinstance(raw, Mapping):
            self.problem(where, "must be an object with rules and fallback", scope)
            return None
        fallback = Effect.ASK
        if "fallback" not in raw:
            self.problem(f"{where}.fallback", "missing; read as \"ask\"", None)
        else:
            parsed = _effect(raw["fallback"])
            if parsed is None:
                self.problem(f"{where}.fallback", f"{raw['fallback']!r} is not allow, ask or deny", scope)
            else:
                fallback = parsed
        rules: list[PermissionRule] = []
        raw_rules = raw.get("rules", [])
        if not isinstance(raw_rules, list):
            self.problem(f"{where}.rules", "must be a list of rules", scope)
        else:
            for index, raw_rule in enumerate(raw_rules):
                rule = self.rule(raw_rule, f"{where}.rules[{index}]", scope)
                if rule is not None:
                    rules.append(rule)
        extra = {key: value for key, value in raw.items() if key not in _SET_KEYS}
        return PermissionSet(tuple(rules), fallback, extra)

    def rule(self, raw: Any, where: str, scope: str) -> PermissionRule | None:
        if not isinstance(raw, Mapping):
            self.problem(where, "must be an object with capability, effect, paths and commands", scope)
            return None
        effect = _effect(raw.get("effect"))
        if effect is None:
            self.problem(f"{where}.effect", f"{raw.get('effect')!r} is not allow, ask or deny", scope)
            return None
        grants = effect is Effect.ALLOW
        on_problem = None if grants else scope
        consequence = "; the rule is not used" if grants else ""
        capability = _capability(raw.get("capability"))
        if capability is None:
            self.problem(f"{where}.capability", f"{raw.get('capability')!r} is not read, write, delete or "
                         f"executeBash{consequence}", on_problem)
            return None
        paths = self.paths(raw.get("paths", []), f"{where}.paths", capability, grants, on_problem)
        commands = self.commands(raw.get("commands", []), f"{where}.commands", capability, effect, scope)
        if paths is None or commands is None:
            return None
        extra = {key: value for key, value in raw.items() if key not in _RULE_KEYS}
        return PermissionRule(capability, effect, paths, commands, extra)

    def paths(
        self, raw: Any, where: str, capability: Capability, grants: bool, on_problem: str | None
    ) -> tuple[str, ...] | None:
        consequence = "; the rule is not used" if grants else ""
        if not isinstance(raw, list):
            self.problem(where, f"must be a list of path globs{consequence}", on_problem)
            return None
        if not capability.is_file:
            if raw:
                self.problem(where, "executeBash rules apply to commands, not paths; the paths are ignored"
                             + ("; the rule is not used" if grants else ""), None)
                return None if grants else ()
            return ()
        kept: list[str] = []
        for index, glob in enumerate(raw):
            problem = "is not a string" if not isinstance(glob, str) else path_glob_problem(glob)
            if problem is None:
                kept.append(glob)
            else:
                self.problem(f"{where}[{index}]", problem if isinstance(glob, str) else f"{glob!r} {problem}",
                             on_problem)
        if raw and not kept:
            # With no glob left the rule would cover the whole project: it is not used (a restricting rule
            # has already blocked its scope above).
            if grants:
                self.problem(where, "no usable path glob is left; the rule is not used", None)
            return None
        return tuple(kept)

    def commands(
        self, raw: Any, where: str, capability: Capability, effect: Effect, scope: str
    ) -> tuple[CommandRule, ...] | None:
        grants = effect is Effect.ALLOW
        if not isinstance(raw, list):
            self.problem(where, "must be a list of command entries" + ("; the rule is not used" if grants else ""),
                         None if grants else scope)
            return None
        if capability.is_file:
            if raw:
                self.problem(where, f"{capability} rules apply to paths, not commands; the commands are ignored",
                             None)
            return ()
        kept: list[CommandRule] = []
        for index, entry in enumerate(raw):
            parsed, entry_effect, problem = _command(entry)
            if parsed is not None:
                kept.append(parsed)
                continue
            entry_grants = (entry_effect or effect) is Effect.ALLOW
            self.problem(f"{where}[{index}]", problem + ("; the entry is not used" if entry_grants else ""),
                         None if entry_grants else scope)
        if raw and not kept:
            # Without entries the rule would apply to every command.
            self.problem(where, "no usable command entry is left; the rule is not used", None if grants else scope)
            return None
        return tuple(kept)


def _effect(value: Any) -> Effect | None:
    try:
        return Effect(value) if isinstance(value, str) else None
    except ValueError:
        return None


def _capability(value: Any) -> Capability | None:
    try:
        return Capability(value) if isinstance(value, str) else None
    except ValueError:
        return None


def _command(entry: Any) -> tuple[CommandRule | None, Effect | None, str]:
    """A command entry: a plain string (exact, the rule's effect) or {match, value, effect}."""
    if isinstance(entry, str):
        problem = command_problem(entry)
        return (None, None, problem) if problem else (CommandRule(CommandMatcher.exact(entry)), None, "")
    if not isinstance(entry, Mapping):
        return None, None, f"{entry!r} is neither a command nor {{match, value, effect}}"
    effect: Effect | None = None
    if "effect" in entry:
        effect = _effect(entry["effect"])
        if effect is None:
            return None, None, f"effect {entry['effect']!r} is not allow, ask or deny"
    kind = entry.get("match")
    if kind not in MATCH_KINDS:
        return None, effect, f"match {kind!r} is not exact, prefix or glob"
    value = entry.get("value")
    if not isinstance(value, str) or command_problem(value):
        return None, effect, f"value {value!r} is not a command"
    extra = {key: item for key, item in entry.items() if key not in _COMMAND_KEYS}
    return CommandRule(CommandMatcher(kind, value), effect, extra), effect, ""


def read_permissions(raw: Any) -> PermissionsReading:
    """Parse the JSON value of a `permissions.json` file."""
    if not isinstance(raw, Mapping):
        return unreadable_reading("the file does not hold a JSON object")
    reader = _Reader()
    document = reader.document(raw)
    return PermissionsReading(document, tuple(reader.problems))


# --- writing -----------------------------------------------------------------------------------------


def permissions_to_json(document: ProjectPermissions) -> dict[str, Any]:
    out: dict[str, Any] = {"version": document.version}
    if document.project_defaults is not None:
        out["projectDefaults"] = permission_set_to_json(document.project_defaults)
    elif "projectDefaults" in document.written_keys:
        out["projectDefaults"] = None
    if document.agents or "agents" in document.written_keys:
        out["agents"] = [
            {"agentId": entry.agent_id, "permissions": permission_set_to_json(entry.permissions), **entry.extra}
            for entry in document.agents
        ]
    out.update(document.extra)
    return out


def permission_set_to_json(permissions: PermissionSet) -> dict[str, Any]:
    return {
        "rules": [_rule_to_json(rule) for rule in permissions.rules],
        "fallback": permissions.fallback.value,
        **permissions.extra,
    }


def _rule_to_json(rule: PermissionRule) -> dict[str, Any]:
    return {
        "capability": rule.capability.value,
        "effect": rule.effect.value,
        "paths": list(rule.paths),
        "commands": [_command_to_json(entry) for entry in rule.commands],
        **rule.extra,
    }


def _command_to_json(entry: CommandRule) -> Any:
    if entry.effect is None and entry.matcher.kind == "exact" and not entry.extra:
        return entry.matcher.value
    out: dict[str, Any] = {"match": entry.matcher.kind, "value": entry.matcher.value}
    if entry.effect is not None:
        out["effect"] = entry.effect.value
    out.update(entry.extra)
    return out
