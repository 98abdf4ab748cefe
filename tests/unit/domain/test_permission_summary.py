"""Spec 06 §9, acceptance PS-8: the summary for Enforced, Degraded, Unsupported and no policy."""

from __future__ import annotations

from idea.domain.permissions.model import (
    Capability,
    Effect,
    EffectivePermissions,
    PermissionRule,
    PermissionSet,
    resolve,
)
from idea.domain.permissions.projection import ProjectionSupport
from idea.domain.permissions.sandbox import EnforcementLevel, SandboxContext, SandboxStatus, compile_sandbox_plan
from idea.domain.permissions.summary import NO_POLICY_SUMMARY, render_permission_summary
from idea.domain.permissions.view import preset

ROOT = "/home/me/proj"
ENFORCED = SandboxStatus(EnforcementLevel.ENFORCED, "Landlock ABI 7")
DEGRADED = SandboxStatus(EnforcementLevel.DEGRADED, "Landlock ABI 2 cannot restrict: truncate files")
UNSUPPORTED = SandboxStatus(EnforcementLevel.UNSUPPORTED, "this kernel was built without Landlock")


def summary(effective: EffectivePermissions | None, status: SandboxStatus,
            support: ProjectionSupport = ProjectionSupport.CLAUDE) -> str:
    plan = compile_sandbox_plan(effective, SandboxContext(ROOT, f"{ROOT}/.ideai/run/a"))
    return render_permission_summary(effective, status, support, plan, ROOT)


def autonomous_with_secrets() -> EffectivePermissions:
    rules = (*preset("autonomous").permissions.rules, PermissionRule(Capability.WRITE, Effect.DENY, ("secrets/**",)))
    effective = resolve(PermissionSet(rules, Effect.ALLOW), None)
    assert effective is not None
    return effective


def test_no_policy() -> None:
    assert summary(None, ENFORCED) == NO_POLICY_SUMMARY
    assert NO_POLICY_SUMMARY == "IdeA sets no permission policy; your CLI asks the user as usual."


def test_enforced_autonomous() -> None:
    effective = resolve(preset("autonomous").permissions, None)
    text = summary(effective, ENFORCED)
    lines = text.splitlines()
    assert lines[0] == (
        "- Files — enforced by the operating system (Landlock): you may create, modify and delete files only "
        "under the project root, your run directory and temporary directories. Reading is not restricted."
    )
    assert lines[1].startswith("- Shell commands — advisory only: your CLI is asked to refuse `sudo *`, `rm -rf /`,")
    assert "and to allow any command. IdeA cannot stop a command your CLI runs anyway." in lines[1]
    assert lines[-2:] == [
        "- Anything not listed: allowed.",
        "- Pushing, publishing, or opening remote pull requests always requires the user's explicit approval.",
    ]


def test_enforced_reviewer_cannot_write_the_project() -> None:
    text = summary(resolve(preset("reviewer").permissions, None), ENFORCED)
    assert "you cannot create, modify or delete files in the project; you may write only in your run directory" in text
    assert "- Denied writes: `**`." in text and "- Denied deletions: `**`." in text


def test_a_deny_inside_an_allow_is_stated_honestly() -> None:
    text = summary(autonomous_with_secrets(), ENFORCED)
    assert "- Denied writes: `secrets/**`." in text
    assert "Landlock cannot leave `secrets/**` out of it, so the operating system blocks the whole of it" in text
    assert "you cannot create, modify or delete files in the project" in text


def test_degraded_names_what_is_missing() -> None:
    text = summary(resolve(preset("reviewer").permissions, None), DEGRADED)
    assert text.splitlines()[0].endswith(
        "This system enforces them only partly: Landlock ABI 2 cannot restrict: truncate files."
    )


def test_unsupported_says_advisory_only_on_this_system() -> None:
    text = summary(resolve(preset("reviewer").permissions, None), UNSUPPORTED)
    assert text.splitlines()[0] == (
        "- Files — advisory only on this system (this kernel was built without Landlock): nothing stops a write "
        "the rules below forbid, so keep to them yourself."
    )
    assert "Their file changes are confined" not in text


def test_codex_and_advisory_clis_are_told_to_follow_the_command_rules_themselves() -> None:
    effective = resolve(preset("autonomous").permissions, None)
    codex = summary(effective, ENFORCED, ProjectionSupport.CODEX)
    assert "Codex takes no per-command rules (its sandbox mode is workspace-write, approvals never)" in codex
    assert "do not run `sudo *`" in codex
    other = summary(effective, ENFORCED, ProjectionSupport.ADVISORY)
    assert "IdeA cannot pass command rules to your CLI; follow them yourself: do not run `sudo *`" in other


def test_ask_first_has_no_rule_and_asks() -> None:
    text = summary(resolve(preset("ask-first").permissions, None), ENFORCED)
    assert "- Anything not listed: ask the user first." in text
    assert "you cannot create, modify or delete files in the project" in text
