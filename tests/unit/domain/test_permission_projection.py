"""Spec 06 §5-§6, acceptance PS-4 and PS-5 (the pure part): what Claude Code and Codex are told."""

from __future__ import annotations

import json

import pytest

from idea.domain.permissions.model import (
    Capability,
    CommandMatcher,
    CommandRule,
    Effect,
    EffectivePermissions,
    PermissionRule,
    PermissionSet,
    resolve,
)
from idea.domain.permissions.projection import (
    CLAUDE_GUARDRAILS,
    ProjectionContext,
    ProjectionSupport,
    claude_projection,
    codex_projection,
    project_permissions,
)
from idea.domain.permissions.sandbox import SandboxContext, compile_sandbox_plan

CTX = ProjectionContext("/proj", "/proj/.ideai/run/a")


def eff(rules: list[PermissionRule], fallback: Effect) -> EffectivePermissions:
    effective = resolve(PermissionSet(tuple(rules), fallback), None)
    assert effective is not None
    return effective


def test_no_policy_projects_nothing_for_every_cli() -> None:
    for projector in ("claude", "codex", None):
        projection = project_permissions(projector, None, CTX, None)
        assert projection.is_empty and projection.fidelity == ()


@pytest.mark.parametrize(
    ("fallback", "mode"), [(Effect.ALLOW, "bypassPermissions"), (Effect.ASK, "default"), (Effect.DENY, "plan")]
)
def test_claude_default_mode_follows_the_fallback(fallback: Effect, mode: str) -> None:
    settings = claude_projection(eff([], fallback), CTX).claude_settings
    assert settings["permissions"]["defaultMode"] == mode
    assert settings["skipDangerousModePermissionPrompt"] is True and settings["sandbox"] == {"enabled": False}


def test_claude_empty_allow_list_defaults_and_guardrails_end_the_deny_list_once() -> None:
    rules = [PermissionRule(Capability.EXECUTE_BASH, Effect.DENY, (), (CommandRule(CommandMatcher.glob("sudo *")),
             CommandRule(CommandMatcher.prefix("git push"), Effect.DENY)))]
    permissions = claude_projection(eff(rules, Effect.ALLOW), CTX).claude_settings["permissions"]
    assert permissions["allow"] == ["Read", "Edit", "Write", "Bash"]
    assert permissions["deny"][0] == "Bash(sudo *)" and permissions["deny"][1] == "Bash(git push*)"
    assert permissions["deny"][2:] == [g for g in CLAUDE_GUARDRAILS if g != "Bash(sudo *)"]
    assert len(permissions["deny"]) == len(set(permissions["deny"]))


def test_claude_entries_per_capability_and_effect() -> None:
    rules = [
        PermissionRule(Capability.WRITE, Effect.DENY, (".ideai/**",)),
        PermissionRule(Capability.WRITE, Effect.ALLOW, ("**",)),
        PermissionRule(Capability.READ, Effect.ALLOW),
        PermissionRule(Capability.DELETE, Effect.ASK, ("build/**",)),
        PermissionRule(Capability.EXECUTE_BASH, Effect.ALLOW, (), (CommandRule(CommandMatcher.exact("make"), Effect.ALLOW),
                       CommandRule(CommandMatcher.prefix("npm "), Effect.ASK))),
    ]
    permissions = claude_projection(eff(rules, Effect.ASK), CTX).claude_settings["permissions"]
    assert permissions["allow"] == ["Edit(**)", "Write(**)", "Read", "Bash(make)"]
    assert permissions["ask"] == ["Bash(rm build/**)", "Bash(npm *)"]
    assert permissions["deny"][:2] == ["Edit(.ideai/**)", "Write(.ideai/**)"]


def test_claude_additional_directories_holds_the_escaped_project_root() -> None:
    root = 'C:\\Users\\a"b\\proj'
    settings = claude_projection(eff([], Effect.ALLOW), ProjectionContext(root, "/r")).claude_settings
    assert json.loads(json.dumps(settings))["permissions"]["additionalDirectories"] == [root]


@pytest.mark.parametrize(
    ("fallback", "sandbox", "approval"),
    [(Effect.DENY, "read-only", "on-request"), (Effect.ASK, "workspace-write", "on-request"),
     (Effect.ALLOW, "workspace-write", "never")],
)
def test_codex_posture_matrix_in_keys_and_args(fallback: Effect, sandbox: str, approval: str) -> None:
    effective = eff([PermissionRule(Capability.WRITE, Effect.ALLOW, ("**",))], fallback)
    plan = compile_sandbox_plan(effective, SandboxContext("/proj", "/r"))
    projection = codex_projection(effective, plan)
    assert (projection.codex_sandbox_mode, projection.codex_approval_policy) == (sandbox, approval)
    extra = ["--add-dir", "/proj"] if sandbox == "workspace-write" else []
    assert list(projection.args) == ["--sandbox", sandbox, "--ask-for-approval", approval, *extra]
    assert projection.claude_settings == {} and projection.env == {}
    assert projection.fidelity == ("Codex: per-file and per-command rules are not enforced by the CLI",)


def test_codex_is_not_given_a_project_root_the_policy_forbids_writing() -> None:
    effective = eff([PermissionRule(Capability.WRITE, Effect.DENY, ("**",))], Effect.ALLOW)
    projection = codex_projection(effective, compile_sandbox_plan(effective, SandboxContext("/proj", "/r")))
    assert "--add-dir" not in projection.args


def test_other_clis_are_advisory_only() -> None:
    projection = project_permissions(None, eff([], Effect.DENY), CTX, None)
    assert projection.support is ProjectionSupport.ADVISORY and projection.is_empty


def test_claude_as_root_without_a_sandbox_does_not_ask_for_bypass_it_would_refuse() -> None:
    effective = eff([], Effect.ALLOW)
    sandboxed = claude_projection(effective, CTX)
    assert sandboxed.claude_settings["permissions"]["defaultMode"] == "bypassPermissions" and not sandboxed.fidelity
    bare = claude_projection(effective, ProjectionContext("/proj", "/r", root_without_sandbox=True))
    assert bare.claude_settings["permissions"]["defaultMode"] == "acceptEdits"
    assert bare.fidelity and "refuses to skip its prompts for the root user" in bare.fidelity[0]
    ask = claude_projection(eff([], Effect.ASK), ProjectionContext("/proj", "/r", root_without_sandbox=True))
    assert ask.claude_settings["permissions"]["defaultMode"] == "default"
