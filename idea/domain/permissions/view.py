"""What the Permissions panel shows about a policy (spec 06 §10), pure: presets, warnings, the answers of
the test box ("can Architect write docs/x.md?", "can it run git push?"), and what a change to a running
agent's permissions changes now and at its next launch."""

from __future__ import annotations

from dataclasses import dataclass

from idea.domain.permissions.model import (
    Capability,
    CommandMatcher,
    CommandRule,
    Decision,
    Effect,
    EffectivePermissions,
    PermissionRule,
    PermissionSet,
    decide_bash,
    decide_file,
)
from idea.domain.permissions.projection import ProjectionSupport
from idea.domain.permissions.sandbox import EnforcementLevel, ExecPlan, SandboxStatus, dropped_allows, is_descendant

GUARDRAIL_COMMANDS: tuple[str, ...] = (
    "sudo *", "rm -rf /", "rm -rf /*", "rm -rf ~", "rm -rf ~/*", "mkfs*", "dd if=*", "shutdown*", "reboot*",
)


# --- presets -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Preset:
    key: str
    name: str
    description: str
    permissions: PermissionSet


def _file_rules(read: Effect, write: Effect, delete: Effect) -> tuple[PermissionRule, ...]:
    return (
        PermissionRule(Capability.READ, read, ("**",)),
        PermissionRule(Capability.WRITE, write, ("**",)),
        PermissionRule(Capability.DELETE, delete, ("**",)),
    )


_GUARDRAILS = PermissionRule(
    Capability.EXECUTE_BASH,
    Effect.DENY,
    (),
    tuple(CommandRule(CommandMatcher.glob(command), Effect.DENY) for command in GUARDRAIL_COMMANDS),
)

PRESETS: tuple[Preset, ...] = (
    Preset(
        "autonomous",
        "Autonomous",
        "Reads, writes and runs commands in the project without asking; destructive system commands refused.",
        PermissionSet(
            (*_file_rules(Effect.ALLOW, Effect.ALLOW, Effect.ALLOW), PermissionRule(Capability.EXECUTE_BASH,
             Effect.ALLOW), _GUARDRAILS),
            Effect.ALLOW,
        ),
    ),
    Preset(
        "reviewer",
        "Reviewer",
        "Reads everything and runs commands, but never writes or deletes project files.",
        PermissionSet(
            (*_file_rules(Effect.ALLOW, Effect.DENY, Effect.DENY), PermissionRule(Capability.EXECUTE_BASH,
             Effect.ALLOW)),
            Effect.ALLOW,
        ),
    ),
    Preset("ask-first", "Ask first", "No rule: the CLI asks you before anything it considers risky.",
           PermissionSet((), Effect.ASK)),
)


def preset(key: str) -> Preset:
    for candidate in PRESETS:
        if candidate.key == key:
            return candidate
    raise KeyError(key)


def matching_preset(permissions: PermissionSet | None) -> Preset | None:
    if permissions is None:
        return None
    for candidate in PRESETS:
        if candidate.permissions.rules == permissions.rules and candidate.permissions.fallback is permissions.fallback:
            return candidate
    return None


# --- warnings ----------------------------------------------------------------------------------------


def permission_warnings(
    effective: EffectivePermissions | None, status: SandboxStatus, support: ProjectionSupport, cli_name: str
) -> tuple[str, ...]:
    if effective is None:
        return ()
    warnings: list[str] = []
    restricts_writes = any(
        rule.capability in (Capability.WRITE, Capability.DELETE) and rule.effect is not Effect.ALLOW
        for rule in effective.rules
    ) or effective.fallback is not Effect.ALLOW
    shell_allowed = decide_bash(effective, "sh").effect is Effect.ALLOW
    if restricts_writes and shell_allowed and not status.enforced:
        warnings.append(
            "Write denied but shell allowed: this agent can still change files with shell commands (advisory), "
            "since nothing on this system enforces the file rules."
        )
    if any(rule.capability is Capability.READ and rule.effect is Effect.DENY for rule in effective.rules):
        warnings.append(
            "A read deny makes reading coarse: the operating system then only lets the agent read the folders "
            "granted to it and system folders, which may break the CLI."
        )
    for capability, glob, deny in dropped_allows(effective):
        verb = "read" if capability is Capability.READ else "write" if capability is Capability.WRITE else "delete"
        warnings.append(
            f"Allow {verb} `{glob}` cannot be enforced next to deny `{deny}`: Landlock cannot leave a folder out "
            f"of a granted tree, so the operating system blocks {verb} under the whole of it. Allow specific "
            "folders instead (e.g. `src/**`)."
        )
    if status.level is EnforcementLevel.UNSUPPORTED:
        warnings.append(f"File rules are advisory only on this system: {status.detail}.")
        if effective.fallback is Effect.DENY:
            warnings.append(
                "This policy's fallback is deny, which requires the operating system to enforce it: the agent "
                "will not start on this system."
            )
    elif status.level is EnforcementLevel.DEGRADED:
        warnings.append(f"File rules are enforced only partly on this system: {status.detail}.")
    if support is ProjectionSupport.ADVISORY:
        warnings.append(
            f"{cli_name} has no permission settings IdeA can write: command rules reach it only as text in its "
            "context file (advisory)."
        )
    return tuple(warnings)


# --- the test box ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Answer:
    effect: Effect
    policy: str  # what the policy says, and why
    enforcement: str  # who makes it so


def normalize_query_path(text: str, project_root: str) -> tuple[str, str] | None:
    """(project-relative, absolute) for a path typed in the test box, None when it leaves the project."""
    text = text.strip().replace("\\", "/")
    root = project_root.rstrip("/")
    if text.startswith("/"):
        if text != root and not is_descendant(text.rstrip("/"), root):
            return None
        rel = text[len(root) :].lstrip("/")
    else:
        rel = text
    parts: list[str] = []
    for part in rel.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if not parts:
                return None
            parts.pop()
        else:
            parts.append(part)
    rel = "/".join(parts)
    return rel, (f"{root}/{rel}" if rel else root)


def explain_file(
    effective: EffectivePermissions | None,
    exec_plan: ExecPlan | None,
    status: SandboxStatus,
    capability: Capability,
    rel_path: str,
    abs_path: str,
) -> Answer:
    if effective is None:
        return Answer(Effect.ASK, "No policy is set: the CLI asks you as usual.", "Nothing is enforced by IdeA.")
    decision = decide_file(effective, capability, rel_path)
    return Answer(decision.effect, _policy_text(decision, effective), _os_text(exec_plan, status, capability, abs_path))


def explain_bash(effective: EffectivePermissions | None, support: ProjectionSupport, command: str) -> Answer:
    if effective is None:
        return Answer(Effect.ASK, "No policy is set: the CLI asks you as usual.", "Nothing is enforced by IdeA.")
    decision = decide_bash(effective, command)
    if support is ProjectionSupport.CLAUDE:
        enforcement = "Advisory: Claude Code is told this rule; IdeA cannot stop a command it runs anyway."
    elif support is ProjectionSupport.CODEX:
        enforcement = "Advisory: Codex takes no per-command rules; the agent is told this rule in its context file."
    else:
        enforcement = "Advisory: the agent is told this rule in its context file; nothing enforces it."
    policy = _policy_text(decision, effective)
    if command.strip().split(" ")[:2] in (["git", "push"], ["npm", "publish"], ["gh", "pr"]):
        policy += " Pushing, publishing or opening remote pull requests always needs your approval."
    return Answer(decision.effect, policy, enforcement)


def _policy_text(decision: Decision, effective: EffectivePermissions) -> str:
    effect = decision.effect.value
    if decision.from_fallback:
        return f"Policy: {effect} (no rule matches; the fallback is {effective.fallback.value})."
    if decision.commands:
        because = ", ".join(f"{entry.matcher.kind} `{entry.matcher.value}`" for entry in decision.commands[:3])
    else:
        because = ", ".join(_rule_text(rule) for rule in decision.rules[:3])
    return f"Policy: {effect} ({because})."


def _rule_text(rule: PermissionRule) -> str:
    if rule.capability is Capability.EXECUTE_BASH:
        return f"{rule.effect.value} executeBash"
    return f"{rule.effect.value} {rule.capability.value} " + ", ".join(f"`{glob}`" for glob in rule.globs())


def _os_text(plan: ExecPlan | None, status: SandboxStatus, capability: Capability, abs_path: str) -> str:
    if plan is None:
        return "Nothing is enforced by IdeA."
    if not status.enforced:
        return f"Not enforced: {status.detail or 'Landlock is not available'}."
    writes = capability is not Capability.READ
    if not writes and not plan.handled_ro:
        return "Operating system: reading is not restricted."
    covered = any(
        (grant.rw if writes else grant.ro) and (abs_path == grant.path or is_descendant(abs_path, grant.path))
        for grant in plan.grants
    )
    return "Operating system (Landlock): permitted." if covered else "Operating system (Landlock): blocked."


# --- a change to a running agent's permissions -------------------------------------------------------


@dataclass(frozen=True)
class ChangeImpact:
    now: tuple[str, ...]
    next_launch: tuple[str, ...]

    def message(self, agent_name: str) -> str:
        parts = []
        if self.now:
            parts.append("Now: " + " ".join(self.now))
        if self.next_launch:
            parts.append(f"When {agent_name} next starts: " + " ".join(self.next_launch))
        return "\n".join(parts)


def change_impact(
    before: EffectivePermissions | None,
    after: EffectivePermissions | None,
    running: bool,
    support: ProjectionSupport,
    status: SandboxStatus,
) -> ChangeImpact | None:
    """None when nothing changes for this agent."""
    if before == after:
        return None
    if not running:
        return ChangeImpact(("The new policy is saved; the agent is not running.",), ())
    now = ["The panel's effective view and test box show the new policy; the running process keeps the "
           "permissions it started with."]
    later: list[str] = []
    if status.enforced and (before is not None or after is not None):
        later.append("the operating-system sandbox is rebuilt (a running process can never be given a new "
                     "Landlock ruleset);")
    if support is ProjectionSupport.CLAUDE:
        later.append("Claude Code's permission settings are rewritten;")
    elif support is ProjectionSupport.CODEX:
        later.append("Codex's sandbox mode and approval policy are set;")
    later.append("its context file states the new rules. Restart it to apply them now.")
    return ChangeImpact(tuple(now), tuple(later))
