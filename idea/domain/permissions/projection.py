"""Projection of an agent's effective permissions into its CLI's own configuration (spec 06 §5-§6), pure.

The CLI is asked to honour these settings; IdeA cannot check that it does (advisory). Claude Code gets keys
of `<runDir>/.claude/settings.local.json` (a file IdeA replaces at each launch), Codex two managed keys of its
`config.toml` plus launch arguments that mirror them. Other CLIs have no projector: the panel and the
summary say so. No policy → an empty projection: the CLI keeps its own prompts.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from idea.domain.permissions.model import Capability, Effect, EffectivePermissions, PermissionRule
from idea.domain.permissions.sandbox import SandboxPlan, writable_roots

CLAUDE_SETTINGS_PATH = ".claude/settings.local.json"
CODEX_CONFIG_PATH = ".codex/config.toml"
CLAUDE_DEFAULT_ALLOW: tuple[str, ...] = ("Read", "Edit", "Write", "Bash")
CLAUDE_GUARDRAILS: tuple[str, ...] = (
    "Bash(sudo *)",
    "Bash(rm -rf /)",
    "Bash(rm -rf /*)",
    "Bash(rm -rf ~)",
    "Bash(rm -rf ~/)",
    "Bash(rm -rf ~/*)",
    "Bash(rm -rf $HOME*)",
    "Bash(mkfs*)",
    "Bash(dd if=*)",
    "Bash(shutdown*)",
    "Bash(reboot*)",
)
CLAUDE_DEFAULT_MODE = {Effect.DENY: "plan", Effect.ASK: "default", Effect.ALLOW: "bypassPermissions"}
CODEX_SANDBOX_MODE = {Effect.DENY: "read-only", Effect.ASK: "workspace-write", Effect.ALLOW: "workspace-write"}
CODEX_APPROVAL_POLICY = {Effect.DENY: "on-request", Effect.ASK: "on-request", Effect.ALLOW: "never"}
CODEX_FIDELITY = "Codex: per-file and per-command rules are not enforced by the CLI"


class ProjectionSupport(StrEnum):
    """How far a CLI can be told about a policy."""

    CLAUDE = "claude"  # per-path and per-command allow/ask/deny lists
    CODEX = "codex"  # a sandbox mode and an approval policy only
    ADVISORY = "advisory"  # no configuration: the rules reach the agent only through its context file


CLAUDE_ROOT_NOTE = (
    "Claude Code refuses to skip its prompts for the root user outside a sandbox, and this system cannot "
    "sandbox it: it starts in acceptEdits mode and asks before running commands"
)


@dataclass(frozen=True)
class ProjectionContext:
    project_root: str
    run_dir: str
    # IdeA runs as root and the CLI will not run under an enforced sandbox (`sandbox-exec` tells an enforced
    # CLI it is sandboxed; Claude Code accepts bypassPermissions for root only then).
    root_without_sandbox: bool = False


@dataclass(frozen=True)
class PermissionProjection:
    support: ProjectionSupport
    claude_settings: Mapping[str, Any] = field(default_factory=dict)  # merged into settings.local.json
    codex_sandbox_mode: str | None = None
    codex_approval_policy: str | None = None
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    fidelity: tuple[str, ...] = ()  # what this CLI cannot be told

    @property
    def is_empty(self) -> bool:
        return not (self.claude_settings or self.codex_sandbox_mode or self.args or self.env)


def projection_support(projector: str | None) -> ProjectionSupport:
    if projector == "claude":
        return ProjectionSupport.CLAUDE
    if projector == "codex":
        return ProjectionSupport.CODEX
    return ProjectionSupport.ADVISORY


def project_permissions(
    projector: str | None, effective: EffectivePermissions | None, ctx: ProjectionContext, plan: SandboxPlan | None
) -> PermissionProjection:
    support = projection_support(projector)
    if support is ProjectionSupport.CLAUDE:
        return claude_projection(effective, ctx)
    if support is ProjectionSupport.CODEX:
        return codex_projection(effective, plan)
    return PermissionProjection(support)


# --- Claude Code ---------------------------------------------------------------------------------------


def claude_projection(effective: EffectivePermissions | None, ctx: ProjectionContext) -> PermissionProjection:
    if effective is None:
        return PermissionProjection(ProjectionSupport.CLAUDE)
    allow = claude_entries(effective, Effect.ALLOW)
    ask = claude_entries(effective, Effect.ASK)
    deny = list(dict.fromkeys([*claude_entries(effective, Effect.DENY), *CLAUDE_GUARDRAILS]))
    mode = CLAUDE_DEFAULT_MODE[effective.fallback]
    fidelity: tuple[str, ...] = ()
    if mode == "bypassPermissions" and ctx.root_without_sandbox:
        mode, fidelity = "acceptEdits", (CLAUDE_ROOT_NOTE,)
    permissions: dict[str, Any] = {
        "defaultMode": mode,
        "additionalDirectories": [ctx.project_root],
        "allow": allow or list(CLAUDE_DEFAULT_ALLOW),
    }
    if ask:
        permissions["ask"] = ask
    permissions["deny"] = deny
    settings = {
        "permissions": permissions,
        "skipDangerousModePermissionPrompt": True,
        "sandbox": {"enabled": False},
    }
    return PermissionProjection(ProjectionSupport.CLAUDE, claude_settings=settings, fidelity=fidelity)


def claude_entries(effective: EffectivePermissions, effect: Effect) -> list[str]:
    out: list[str] = []
    for rule in effective.rules:
        if rule.capability is Capability.EXECUTE_BASH:
            out.extend(_bash_entries(rule, effect))
            continue
        if rule.effect is not effect:
            continue
        if rule.capability is Capability.READ:
            out.extend(_path_entries("Read", rule))
        elif rule.capability is Capability.WRITE:
            out.extend(_path_entries("Edit", rule))
            out.extend(_path_entries("Write", rule))
        else:
            out.extend(["Bash(rm *)"] if not rule.paths else [f"Bash(rm {glob})" for glob in rule.paths])
    return list(dict.fromkeys(out))


def _path_entries(tool: str, rule: PermissionRule) -> list[str]:
    return [tool] if not rule.paths else [f"{tool}({glob})" for glob in rule.paths]


def _bash_entries(rule: PermissionRule, effect: Effect) -> list[str]:
    if not rule.commands:
        return ["Bash"] if rule.effect is effect else []
    return [f"Bash({entry.matcher.pattern()})" for entry in rule.commands if entry.effect_in(rule) is effect]


# --- Codex -------------------------------------------------------------------------------------------


def codex_projection(effective: EffectivePermissions | None, plan: SandboxPlan | None) -> PermissionProjection:
    if effective is None:
        return PermissionProjection(ProjectionSupport.CODEX)
    sandbox = CODEX_SANDBOX_MODE[effective.fallback]
    approval = CODEX_APPROVAL_POLICY[effective.fallback]
    args: list[str] = ["--sandbox", sandbox, "--ask-for-approval", approval]
    if sandbox == "workspace-write" and plan is not None:
        # Codex writes its cwd (the run dir); the project folders the policy lets it write are added.
        for root in writable_roots(plan):
            args += ["--add-dir", root]
    fidelity = (CODEX_FIDELITY,) if effective.rules else ()
    return PermissionProjection(
        ProjectionSupport.CODEX,
        codex_sandbox_mode=sandbox,
        codex_approval_policy=approval,
        args=tuple(args),
        fidelity=fidelity,
    )
