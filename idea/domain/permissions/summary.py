"""The honesty summary (spec 06 §9): what an agent is allowed, and how much of it is really enforced.

Injected in the agent's context file ("Your permissions") and shown in the Permissions panel. Files can be
enforced by the operating system (Landlock on Linux); commands are only ever advisory.
"""

from __future__ import annotations

from idea.domain.permissions.model import Capability, Effect, EffectivePermissions
from idea.domain.permissions.projection import (
    CLAUDE_GUARDRAILS,
    CODEX_APPROVAL_POLICY,
    CODEX_SANDBOX_MODE,
    ProjectionSupport,
)
from idea.domain.permissions.sandbox import (
    EnforcementLevel,
    SandboxPlan,
    SandboxStatus,
    dropped_allows,
    readable_roots,
    writable_roots,
)

NO_POLICY_SUMMARY = "IdeA sets no permission policy; your CLI asks the user as usual."
ALWAYS_APPROVAL = "Pushing, publishing, or opening remote pull requests always requires the user's explicit approval."
SAME_USER_LIMIT = (
    "IdeA tells agents apart by their launch secret and their request folder, not by the operating system: "
    "every agent runs as your user, so one agent can read another's secret or write a request into another's "
    "folder and be taken for it; IdeA's diagnostics log names the agent or folder behind every request."
)
MAX_LISTED = 4
_VERBS = {Capability.READ: "reads", Capability.WRITE: "writes", Capability.DELETE: "deletions"}
_ASK_VERBS = {Capability.READ: "reading", Capability.WRITE: "writing", Capability.DELETE: "deleting"}
_FALLBACK = {
    Effect.ALLOW: "Anything not listed: allowed.",
    Effect.ASK: "Anything not listed: ask the user first.",
    Effect.DENY: "Anything not listed: denied.",
}


def render_permission_summary(
    effective: EffectivePermissions | None,
    status: SandboxStatus,
    support: ProjectionSupport,
    plan: SandboxPlan | None = None,
    project_root: str = "",
) -> str:
    if effective is None:
        return NO_POLICY_SUMMARY
    lines = [_files_line(effective, status, plan, project_root)]
    for capability in (Capability.READ, Capability.WRITE, Capability.DELETE):
        denied = _globs(effective, capability, Effect.DENY)
        if denied:
            lines.append(f"Denied {_VERBS[capability]}: {_listed(denied)}.")
        asked = _globs(effective, capability, Effect.ASK)
        if asked:
            lines.append(f"Ask the user before {_ASK_VERBS[capability]}: {_listed(asked)}.")
    if status.enforced:
        for capability, glob, deny in dropped_allows(effective):
            lines.append(
                f"The policy allows {_ASK_VERBS[capability]} {_code(glob)}, but Landlock cannot leave "
                f"{_code(deny)} out of it, so the operating system blocks the whole of it; ask the user to "
                "narrow the rule if you need it."
            )
    lines.append(_commands_line(effective, support, status))
    lines.append(_FALLBACK[effective.fallback])
    lines.append(ALWAYS_APPROVAL)
    return "\n".join(f"- {line}" for line in lines)


def _files_line(effective: EffectivePermissions, status: SandboxStatus, plan: SandboxPlan | None, root: str) -> str:
    if not status.enforced or plan is None:
        reason = f" ({status.detail})" if status.detail else ""
        return (
            f"Files — advisory only on this system{reason}: nothing stops a write the rules below forbid, "
            "so keep to them yourself."
        )
    places = [_place(path, root) for path in writable_roots(plan)]
    if places:
        where = (
            f"you may create, modify and delete files only under {_joined(places)}, your run directory and "
            "temporary directories"
        )
    else:
        where = (
            "you cannot create, modify or delete files in the project; you may write only in your run "
            "directory and temporary directories"
        )
    reading = "Reading is not restricted."
    if any(rule.capability is Capability.READ and rule.effect is Effect.DENY for rule in effective.rules):
        readable = [_place(path, root) for path in readable_roots(plan)]
        reading = (
            f"Reading is limited to {_joined(readable)} and system folders."
            if readable
            else "Reading in the project is blocked; only system folders and your run directory can be read."
        )
    partly = ""
    if status.level is EnforcementLevel.DEGRADED:
        partly = f" This system enforces them only partly: {status.detail}."
    return f"Files — enforced by the operating system (Landlock): {where}. {reading}{partly}"


def _commands_line(effective: EffectivePermissions, support: ProjectionSupport, status: SandboxStatus) -> str:
    confined = " Their file changes are confined as above." if status.enforced else ""
    if support is ProjectionSupport.CLAUDE:
        guardrails = [f"`{entry[5:-1]}`" for entry in CLAUDE_GUARDRAILS]
        refuse = list(dict.fromkeys([*_bash_entries(effective, Effect.DENY), *guardrails]))
        allow = _bash_entries(effective, Effect.ALLOW)
        ask = _bash_entries(effective, Effect.ASK)
        parts = []
        if refuse:
            parts.append(f"to refuse {_listed(refuse, quote=False)}")
        if ask:
            parts.append(f"to ask before {_listed(ask, quote=False)}")
        if allow:
            parts.append(f"to allow {_listed(allow, quote=False)}")
        asked = " and ".join(parts) if parts else "nothing specific"
        return (
            f"Shell commands — advisory only: your CLI is asked {asked}. IdeA cannot stop a command your CLI "
            f"runs anyway.{confined}"
        )
    denied, asked_cmds = _bash_entries(effective, Effect.DENY), _bash_entries(effective, Effect.ASK)
    follow = []
    if denied:
        follow.append(f"do not run {_listed(denied, quote=False)}")
    if asked_cmds:
        follow.append(f"ask the user before {_listed(asked_cmds, quote=False)}")
    rules = "; ".join(follow) if follow else "no command rule is set"
    if support is ProjectionSupport.CODEX:
        mode = f"{CODEX_SANDBOX_MODE[effective.fallback]}, approvals {CODEX_APPROVAL_POLICY[effective.fallback]}"
        return (
            f"Shell commands — advisory only: Codex takes no per-command rules (its sandbox mode is {mode}); "
            f"follow them yourself: {rules}.{confined}"
        )
    return (
        "Shell commands — advisory only: IdeA cannot pass command rules to your CLI; follow them yourself: "
        f"{rules}.{confined}"
    )


def _globs(effective: EffectivePermissions, capability: Capability, effect: Effect) -> list[str]:
    globs = [glob for rule in effective.rules_of(capability) if rule.effect is effect for glob in rule.globs()]
    return list(dict.fromkeys(globs))


def _bash_entries(effective: EffectivePermissions, effect: Effect) -> list[str]:
    out = []
    for rule in effective.rules_of(Capability.EXECUTE_BASH):
        if not rule.commands:
            if rule.effect is effect:
                out.append("any command")
            continue
        out += [f"`{entry.matcher.pattern()}`" for entry in rule.commands if entry.effect_in(rule) is effect]
    return list(dict.fromkeys(out))


def _place(path: str, root: str) -> str:
    root = root.rstrip("/")
    if root and path == root:
        return "the project root"
    if root and path.startswith(root + "/"):
        return _code(path[len(root) + 1 :] + "/")
    return _code(path)


def _code(text: str) -> str:
    return f"`{text}`"


def _listed(items: list[str], *, quote: bool = True) -> str:
    shown = [_code(item) if quote else item for item in items[:MAX_LISTED]]
    return ", ".join(shown) + (", …" if len(items) > MAX_LISTED else "")


def _joined(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]
