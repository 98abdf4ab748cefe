"""Spec 06 §2-§4, acceptance PS-2 and PS-3: resolution (deny wins, nothing set → nothing) and decisions."""

from __future__ import annotations

import pytest

from idea.domain.permissions.globs import match_path, match_text
from idea.domain.permissions.model import (
    Capability,
    CommandMatcher,
    CommandRule,
    Effect,
    PermissionRule,
    PermissionSet,
    ProjectPermissions,
    decide_bash,
    decide_file,
    path_glob_problem,
    resolve,
)

A = Effect.ALLOW
K = Effect.ASK
D = Effect.DENY


def files(capability: Capability, effect: Effect, *globs: str) -> PermissionRule:
    return PermissionRule(capability, effect, globs)


def bash(effect: Effect, *entries: CommandRule) -> PermissionRule:
    return PermissionRule(Capability.EXECUTE_BASH, effect, (), entries)


def test_nothing_set_resolves_to_none_and_the_cli_keeps_its_prompts() -> None:
    assert resolve(None, None) is None
    assert ProjectPermissions().resolve_for("any-agent") is None


@pytest.mark.parametrize(
    ("project", "agent", "expected"),
    [(A, A, A), (A, K, K), (K, A, K), (A, D, D), (D, A, D), (K, D, D), (D, K, D)],
)
def test_the_fallback_is_the_most_restrictive_of_the_present_ones(project: Effect, agent: Effect, expected: Effect) -> None:
    assert resolve(PermissionSet((), project), PermissionSet((), agent)).fallback is expected  # type: ignore[union-attr]
    assert resolve(PermissionSet((), project), None).fallback is project  # type: ignore[union-attr]
    assert resolve(None, PermissionSet((), agent)).fallback is agent  # type: ignore[union-attr]


def test_deny_wins_across_project_and_agent_whatever_the_order() -> None:
    project = PermissionSet((files(Capability.WRITE, A, "**"),), A)
    agent = PermissionSet((files(Capability.WRITE, D, "secrets/**"),), A)
    for effective in (resolve(project, agent), resolve(agent, project)):
        assert effective is not None
        assert decide_file(effective, Capability.WRITE, "secrets/key.pem").effect is D
        assert decide_file(effective, Capability.WRITE, "src/main.py").effect is A
        assert decide_file(effective, Capability.READ, "secrets/key.pem").effect is A  # no read rule: fallback


def test_a_project_deny_cannot_be_loosened_by_a_more_specific_agent_allow() -> None:
    project = PermissionSet((files(Capability.WRITE, D, "docs/**"),), A)
    agent = PermissionSet((files(Capability.WRITE, A, "docs/api/x.md"),), A)
    effective = resolve(project, agent)
    assert effective is not None
    decision = decide_file(effective, Capability.WRITE, "docs/api/x.md")
    assert decision.effect is D and decision.rules == (project.rules[0],)


def test_ask_sits_between_allow_and_deny() -> None:
    effective = resolve(PermissionSet((files(Capability.WRITE, A, "**"), files(Capability.WRITE, K, "docs/**")), D), None)
    assert effective is not None
    assert decide_file(effective, Capability.WRITE, "docs/x.md").effect is K
    assert decide_file(effective, Capability.WRITE, "src/x.py").effect is A
    assert decide_file(effective, Capability.DELETE, "src/x.py").effect is D  # fallback


def test_a_file_rule_without_paths_covers_the_whole_project() -> None:
    effective = resolve(PermissionSet((PermissionRule(Capability.WRITE, D),), A), None)
    assert effective is not None
    assert decide_file(effective, Capability.WRITE, "any/where.txt").effect is D


def test_decide_bash_ignores_the_rule_level_effect_when_commands_are_listed() -> None:
    """PS-3: the rule says deny, its entries say allow for `git ` and deny for `rm -rf .`."""
    rule = bash(D, CommandRule(CommandMatcher.prefix("git "), A), CommandRule(CommandMatcher.exact("rm -rf ."), D))
    effective = resolve(PermissionSet((rule,), K), None)
    assert effective is not None
    assert decide_bash(effective, "git status").effect is A
    assert decide_bash(effective, "rm -rf .").effect is D
    assert decide_bash(effective, "ls").effect is K  # no entry matches: fallback, not the rule's deny
    assert decide_bash(effective, "ls").from_fallback


def test_a_bash_rule_without_commands_applies_to_every_command() -> None:
    effective = resolve(PermissionSet((bash(A), bash(D, CommandRule(CommandMatcher.glob("sudo *"), D))), K), None)
    assert effective is not None
    assert decide_bash(effective, "make test").effect is A
    assert decide_bash(effective, "sudo rm x").effect is D


def test_a_plain_string_entry_takes_the_rule_effect() -> None:
    effective = resolve(PermissionSet((bash(D, CommandRule(CommandMatcher.exact("rm -rf *"))),), A), None)
    assert effective is not None
    assert decide_bash(effective, "rm -rf *").effect is D
    assert decide_bash(effective, "rm x").effect is A


@pytest.mark.parametrize(
    ("pattern", "path", "expected"),
    [
        ("**", "a/b/c.rs", True),
        ("src/**/*.rs", "src/a/b/c.rs", True),
        ("src/**/*.rs", "src/c.rs", True),
        ("src/**/*.rs", "lib/c.rs", False),
        ("src/*.rs", "src/a/c.rs", False),
        ("docs/*.md", "docs/x.md", True),
        ("secrets", "secrets/key.pem", True),  # a rule on a folder covers what it holds
        ("src", "src2/x", False),
        ("*.rs", "main.rs", True),
        ("*.rs", "a/main.rs", False),
        ("[ab]/x", "b/x", True),
        ("[!ab]/x", "b/x", False),
        ("?.txt", "a.txt", True),
    ],
)
def test_path_globs(pattern: str, path: str, expected: bool) -> None:
    assert match_path(pattern, path) is expected


@pytest.mark.parametrize(
    ("pattern", "command", "expected"),
    [("git *", "git push origin main", True), ("git *", "gitk", False), ("rm -rf /*", "rm -rf /tmp/x", True),
     ("mkfs*", "mkfs.ext4 /dev/sda", True), ("a[b", "a[b", True)],
)
def test_command_globs_match_the_whole_line(pattern: str, command: str, expected: bool) -> None:
    assert match_text(pattern, command) is expected


@pytest.mark.parametrize("glob", ["/etc/**", "~/x", "C:/x", "../other/**", "a/../../b", "", "a\\b"])
def test_absolute_paths_and_dot_dot_are_rejected(glob: str) -> None:
    assert path_glob_problem(glob) is not None


def test_with_agent_permissions_replaces_in_place_and_removes() -> None:
    first = PermissionSet((), A)
    document = ProjectPermissions().with_agent_permissions("a", first).with_agent_permissions("b", first)
    document = document.with_agent_permissions("a", PermissionSet((), D))
    assert [entry.agent_id for entry in document.agents] == ["a", "b"]
    assert document.agent_permissions("a") == PermissionSet((), D)
    assert document.with_agent_permissions("a", None).agent_permissions("a") is None
