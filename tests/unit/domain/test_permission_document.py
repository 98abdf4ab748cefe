"""Spec 06 §3, acceptance PS-1 and the issue's bad input: the original's permissions.json round-trips; a
hand-edited file gives its valid part and located problems, and never a looser policy than written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from idea.domain.permissions.document import ALL_AGENTS, permissions_to_json, read_permissions, unreadable_reading
from idea.domain.permissions.model import Capability, CommandMatcher, CommandRule, Effect, decide_bash, decide_file

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "permissions"
ARCHITECT = "dce19c75-9669-4e45-b8de-9950025157da"
OTHER = "a6ced819-b893-4213-b003-9e9dc79b9641"


def dumped(document: object) -> str:
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


@pytest.mark.parametrize("name", ["original-team.json", "original-defaults-only.json"])
def test_the_original_files_load_and_round_trip_byte_for_byte(name: str) -> None:
    text = (FIXTURES / name).read_text(encoding="utf-8")
    reading = read_permissions(json.loads(text))
    assert reading.problems == () and reading.unreadable is None
    assert dumped(permissions_to_json(reading.document)) == text


def test_the_original_team_file_means_what_the_original_meant() -> None:
    reading = read_permissions(json.loads((FIXTURES / "original-team.json").read_text(encoding="utf-8")))
    document = reading.document
    assert document.project_defaults is not None and document.project_defaults.fallback is Effect.ALLOW
    assert [entry.agent_id for entry in document.agents][1] == ARCHITECT
    architect = document.resolve_for(ARCHITECT)
    assert architect is not None
    assert decide_file(architect, Capability.WRITE, "docs/x.md").effect is Effect.DENY
    assert decide_file(architect, Capability.READ, "docs/x.md").effect is Effect.ALLOW
    assert decide_bash(architect, "git push").effect is Effect.ALLOW
    newcomer = document.resolve_for("0b0b0b0b-0000-4000-8000-000000000000")
    assert newcomer is not None and decide_file(newcomer, Capability.WRITE, "x").effect is Effect.ALLOW


def test_command_entries_in_both_forms_round_trip() -> None:
    raw = {
        "version": 1,
        "projectDefaults": {
            "rules": [
                {
                    "capability": "executeBash",
                    "effect": "deny",
                    "paths": [],
                    "commands": [
                        {"match": "prefix", "value": "git ", "effect": "allow"},
                        {"match": "exact", "value": "rm -rf .", "effect": "deny"},
                        "rm -rf *",
                        {"match": "glob", "value": "curl * | sh"},
                    ],
                }
            ],
            "fallback": "ask",
        },
    }
    reading = read_permissions(raw)
    assert reading.problems == ()
    rule = reading.document.project_defaults.rules[0]  # type: ignore[union-attr]
    assert rule.commands == (
        CommandRule(CommandMatcher.prefix("git "), Effect.ALLOW),
        CommandRule(CommandMatcher.exact("rm -rf ."), Effect.DENY),
        CommandRule(CommandMatcher.exact("rm -rf *"), None),
        CommandRule(CommandMatcher.glob("curl * | sh"), None),
    )
    assert permissions_to_json(reading.document) == raw


def test_unknown_keys_and_an_explicit_null_are_kept() -> None:
    raw = {"version": 1, "projectDefaults": None, "agents": [], "comment": "team policy",
           "x": {"nested": [1, 2]}}
    reading = read_permissions(raw)
    assert reading.problems == ()
    assert permissions_to_json(reading.document) == raw
    rule_raw = {"version": 1, "projectDefaults": {"rules": [{"capability": "read", "effect": "allow",
                "paths": ["**"], "commands": [], "note": "why"}], "fallback": "allow", "owner": "me"}}
    assert permissions_to_json(read_permissions(rule_raw).document) == rule_raw


def _agent(rules: list[object], fallback: object = "allow", agent_id: str = ARCHITECT) -> dict[str, object]:
    return {"agentId": agent_id, "permissions": {"rules": rules, "fallback": fallback}}


def _reading(*agents: dict[str, object], defaults: object = None) -> object:
    raw: dict[str, object] = {"version": 1, "agents": list(agents)}
    if defaults is not None:
        raw["projectDefaults"] = defaults
    return read_permissions(raw)


def test_an_unknown_capability_in_an_allow_rule_is_dropped_and_reported() -> None:
    reading = _reading(_agent([
        {"capability": "network", "effect": "allow", "paths": [], "commands": []},
        {"capability": "write", "effect": "deny", "paths": ["**"], "commands": []},
    ]))
    [problem] = reading.problems  # type: ignore[attr-defined]
    assert problem.location == "agents[0].permissions.rules[0].capability"
    assert "'network'" in problem.message and problem.blocks is None
    assert reading.launch_blocker(ARCHITECT) is None  # type: ignore[attr-defined]
    assert len(reading.document.agents[0].permissions.rules) == 1  # type: ignore[attr-defined]
    assert reading.blocking_notice({ARCHITECT: "Architect"}) is None  # type: ignore[attr-defined]  # stops nobody


def test_an_unknown_capability_in_a_deny_rule_blocks_that_agent_only() -> None:
    reading = _reading(_agent([{"capability": "writes", "effect": "deny", "paths": ["**"], "commands": []}]))
    [problem] = reading.problems  # type: ignore[attr-defined]
    assert problem.blocks == ARCHITECT
    blocker = reading.launch_blocker(ARCHITECT)  # type: ignore[attr-defined]
    assert blocker is not None and "agents[0].permissions.rules[0].capability" in blocker
    assert reading.launch_blocker(OTHER) is None  # type: ignore[attr-defined]
    assert reading.blocking_notice({ARCHITECT: "Architect", OTHER: "Developer"}) == (  # type: ignore[attr-defined]
        "permissions.json has a problem that could make a policy looser than written "
        f"({problem.describe()}); Architect cannot start until it is fixed"
    )
    assert reading.blocking_notice({OTHER: "Developer"}) is None  # type: ignore[attr-defined]  # not in the team


def test_what_stops_every_agent_is_said_as_such() -> None:
    defaults = {"rules": [{"capability": "write", "effect": "deny", "paths": ["/etc/**"], "commands": []}],
                "fallback": "maybe"}
    reading = _reading(defaults=defaults)
    notice = reading.blocking_notice({ARCHITECT: "Architect"})  # type: ignore[attr-defined]
    assert notice is not None and notice.startswith("permissions.json has 2 problems that could make a policy ")
    assert notice.endswith("; no agent starts until it is fixed")
    unreadable = unreadable_reading("invalid JSON at line 3, column 5: Expecting ','")
    assert unreadable.blocking_notice({}) == (
        "permissions.json cannot be read (invalid JSON at line 3, column 5: Expecting ','); no agent starts until "
        "it is fixed"
    )


@pytest.mark.parametrize("glob", ["/etc/**", "../outside/**", "src/../../x"])
def test_absolute_or_dot_dot_globs_in_a_deny_block_the_scope(glob: str) -> None:
    defaults = {"rules": [{"capability": "write", "effect": "deny", "paths": ["secrets/**", glob],
                           "commands": []}], "fallback": "allow"}
    reading = _reading(defaults=defaults)
    [problem] = reading.problems  # type: ignore[attr-defined]
    assert problem.location == "projectDefaults.rules[0].paths[1]" and problem.blocks == ALL_AGENTS
    assert reading.launch_blocker(OTHER) is not None  # type: ignore[attr-defined]
    # The valid part is still shown.
    assert reading.document.project_defaults.rules[0].paths == ("secrets/**",)  # type: ignore[attr-defined]


def test_bad_globs_of_an_allow_rule_are_dropped_never_widening_it() -> None:
    reading = _reading(_agent([
        {"capability": "write", "effect": "allow", "paths": ["src/**", "/abs/**"], "commands": []},
        {"capability": "read", "effect": "allow", "paths": ["../x"], "commands": []},
    ]))
    rules = reading.document.agents[0].permissions.rules  # type: ignore[attr-defined]
    assert [rule.paths for rule in rules] == [("src/**",)]  # the read rule would cover everything: dropped
    assert all(problem.blocks is None for problem in reading.problems)  # type: ignore[attr-defined]
    assert [problem.location for problem in reading.problems] == [  # type: ignore[attr-defined]
        "agents[0].permissions.rules[0].paths[1]",
        "agents[0].permissions.rules[1].paths[0]",
        "agents[0].permissions.rules[1].paths",
    ]


@pytest.mark.parametrize(
    ("rule", "location"),
    [
        ({"capability": "write", "effect": "deny", "paths": "secrets/**", "commands": []}, "rules[0].paths"),
        ({"capability": "write", "effect": "denied", "paths": ["**"], "commands": []}, "rules[0].effect"),
        ({"capability": "executeBash", "effect": "deny", "paths": [], "commands": {"rm": True}}, "rules[0].commands"),
        ({"capability": "executeBash", "effect": "allow", "paths": [], "commands": [{"match": "regex",
          "value": "rm", "effect": "deny"}]}, "rules[0].commands[0]"),
        ("deny everything", "rules[0]"),
    ],
)
def test_wrong_types_that_could_loosen_block(rule: object, location: str) -> None:
    reading = _reading(_agent([rule]))
    locations = [problem.location for problem in reading.problems]  # type: ignore[attr-defined]
    assert f"agents[0].permissions.{location}" in locations
    assert reading.launch_blocker(ARCHITECT) is not None  # type: ignore[attr-defined]


def test_a_wrong_fallback_blocks_and_a_missing_one_reads_as_ask() -> None:
    blocked = _reading(_agent([], fallback="never"))
    assert blocked.launch_blocker(ARCHITECT) is not None  # type: ignore[attr-defined]
    missing = read_permissions({"version": 1, "projectDefaults": {"rules": []}})
    assert missing.document.project_defaults.fallback is Effect.ASK  # type: ignore[union-attr]
    assert missing.launch_blocker(OTHER) is None and missing.problems[0].location == "projectDefaults.fallback"


def test_a_duplicate_agent_is_combined_deny_wins_and_reported() -> None:
    reading = _reading(
        _agent([{"capability": "write", "effect": "allow", "paths": ["**"], "commands": []}], "allow"),
        _agent([{"capability": "write", "effect": "deny", "paths": ["docs/**"], "commands": []}], "ask"),
    )
    [problem] = reading.problems  # type: ignore[attr-defined]
    assert problem.location == "agents[1]" and "second override" in problem.message and problem.blocks is None
    effective = reading.document.resolve_for(ARCHITECT)  # type: ignore[attr-defined]
    assert effective.fallback is Effect.ASK
    assert decide_file(effective, Capability.WRITE, "docs/x.md").effect is Effect.DENY
    assert len(reading.document.agents) == 1  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "raw", [[], "text", {"version": "one"}, {"version": 2}, {"version": 1, "agents": {ARCHITECT: {}}},
            {"version": 1, "agents": [{"permissions": {}}]}, {"version": 1, "projectDefaults": []}],
)
def test_problems_the_whole_team_depends_on_block_every_agent(raw: object) -> None:
    reading = read_permissions(raw)
    assert reading.launch_blocker(ARCHITECT) is not None
    assert reading.launch_blocker(OTHER) is not None
