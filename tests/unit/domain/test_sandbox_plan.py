"""Spec 06 §7, acceptance PS-6: the sixteen cases of the original's sandbox plan compiler, and the plan file
`sandbox-exec` reads."""

from __future__ import annotations

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
from idea.domain.permissions.sandbox import (
    AmbientPaths,
    ExecGrant,
    PathAccess,
    SandboxContext,
    SandboxPlan,
    compile_sandbox_plan,
    exec_plan,
    exec_plan_from_json,
    static_prefix,
)

ROOT = "/home/anthony/proj"
CTX = SandboxContext(ROOT, "/home/anthony/proj/.ideai/run/agent-x")
R, W, DEL = Capability.READ, Capability.WRITE, Capability.DELETE
A, K, D = Effect.ALLOW, Effect.ASK, Effect.DENY


def eff(rules: list[PermissionRule], fallback: Effect = K) -> EffectivePermissions:
    effective = resolve(PermissionSet(tuple(rules), fallback), None)
    assert effective is not None
    return effective


def rule(capability: Capability, effect: Effect, *globs: str) -> PermissionRule:
    return PermissionRule(capability, effect, globs)


def plan(rules: list[PermissionRule], fallback: Effect = K, ctx: SandboxContext = CTX) -> SandboxPlan:
    compiled = compile_sandbox_plan(eff(rules, fallback), ctx)
    assert compiled is not None
    return compiled


def grant(compiled: SandboxPlan, root: str) -> PathAccess | None:
    return next((g.access for g in compiled.allowed if g.abs_root == root), None)


def test_1_no_policy_no_plan() -> None:
    assert compile_sandbox_plan(None, CTX) is None


def test_2_a_policy_without_allow_is_still_a_plan() -> None:
    assert plan([], D).allowed == ()
    assert plan([rule(W, D, "secret/**")]).allowed == ()


def test_3_read_maps_to_ro() -> None:
    assert grant(plan([rule(R, A, "src/**")]), f"{ROOT}/src") == PathAccess.RO


def test_4_write_and_delete_map_to_rw() -> None:
    compiled = plan([rule(W, A, "out/**"), rule(DEL, A, "tmp/**")])
    assert grant(compiled, f"{ROOT}/out") == PathAccess.RW and grant(compiled, f"{ROOT}/tmp") == PathAccess.RW


def test_5_bash_only_policy_produces_no_grant() -> None:
    bash = [PermissionRule(Capability.EXECUTE_BASH, A),
            PermissionRule(Capability.EXECUTE_BASH, D, (), (CommandRule(CommandMatcher.prefix("rm "), D),))]
    assert plan(bash, A).allowed == ()


def test_6_a_same_class_deny_under_the_root_drops_the_root_grant() -> None:
    assert plan([rule(R, A, "**"), rule(R, D, "secret.txt")]).allowed == ()


def test_7_a_descendant_same_class_deny_drops_the_enclosing_allow() -> None:
    assert grant(plan([rule(R, A, "src/**"), rule(R, D, "src/secret/**")]), f"{ROOT}/src") is None


def test_8_another_class_deny_does_not_amputate_a_read_allow() -> None:
    assert grant(plan([rule(R, A, "src/**"), rule(W, D, "src/secret/**")]), f"{ROOT}/src") == PathAccess.RO


def test_9_a_disjoint_same_class_deny_keeps_the_allow() -> None:
    assert grant(plan([rule(R, A, "src/**"), rule(R, D, "other/**")]), f"{ROOT}/src") == PathAccess.RO


def test_10_an_ancestor_same_class_deny_drops_the_allow() -> None:
    assert grant(plan([rule(R, A, "src/sub/**"), rule(R, D, "src/**")]), f"{ROOT}/src/sub") is None


def test_11_src2_is_a_sibling_of_src_not_a_descendant() -> None:
    assert grant(plan([rule(R, A, "src2/**"), rule(R, D, "src/**")]), f"{ROOT}/src2") == PathAccess.RO


def test_12_accesses_union_on_a_shared_root() -> None:
    compiled = plan([rule(R, A, "src/**"), rule(W, A, "src/**")])
    assert grant(compiled, f"{ROOT}/src") == PathAccess.RO | PathAccess.RW
    assert [g.abs_root for g in compiled.allowed].count(f"{ROOT}/src") == 1


def test_13_same_root_drops_rw_but_keeps_ro_under_a_write_deny() -> None:
    compiled = plan([rule(R, A, "src/**"), rule(W, A, "src/**"), rule(W, D, "src/secret/**")])
    assert grant(compiled, f"{ROOT}/src") == PathAccess.RO


def test_14_a_literal_allow_grants_that_file() -> None:
    assert grant(plan([rule(R, A, "src/lib.rs")]), f"{ROOT}/src/lib.rs") == PathAccess.RO


@pytest.mark.parametrize("posture", [A, K, D])
def test_15_the_default_posture_mirrors_the_fallback(posture: Effect) -> None:
    assert plan([rule(R, A, "src/**")], posture).default_posture is posture


def test_16_a_trailing_slash_on_the_project_root_is_normalised() -> None:
    compiled = plan([rule(R, A, "src/**")], ctx=SandboxContext(f"{ROOT}/", "/x"))
    assert grant(compiled, f"{ROOT}/src") is not None


@pytest.mark.parametrize(
    ("pattern", "prefix"),
    [("**", ""), ("*.rs", ""), ("src/**/*.rs", "src"), ("docs/*.md", "docs"), ("a/b/**/*.rs", "a/b"),
     ("src/foo.rs", "src/foo.rs"), ("src/", "src"), ("src/[ab]/x", "src")],
)
def test_static_prefix(pattern: str, prefix: str) -> None:
    assert static_prefix(pattern) == prefix


AMBIENT = AmbientPaths(
    run_dir=f"{ROOT}/.ideai/run/agent-x", home="/home/anthony", temp_dirs=("/tmp",), cli_family="claude",
    readable=("/opt/clis/node_modules",),
)


def test_the_exec_plan_adds_what_the_clis_need_and_handles_reading_only_on_a_read_deny() -> None:
    effective = eff([rule(R, A, "**"), rule(W, D, "**"), rule(DEL, D, "**")], A)
    compiled = compile_sandbox_plan(effective, CTX)
    assert compiled is not None
    executable = exec_plan(compiled, effective, AMBIENT)
    assert (executable.handled_ro, executable.handled_rw, executable.require_enforcement) == (False, True, False)
    paths = {g.path: g for g in executable.grants}
    assert paths[ROOT] == ExecGrant(ROOT, ro=True, rw=False)  # the reviewer reads the project, never writes it
    assert "/dev" not in paths  # never the whole of /dev: a root process could write a disk
    for ambient in (AMBIENT.run_dir, "/tmp", "/dev/null", "/dev/pts", "/dev/tty", "/home/anthony/.claude",
                    "/home/anthony/.npm",
                    "/home/anthony/.codex", "/home/anthony/.claude.json"):
        assert paths[ambient].rw, ambient
    assert paths["/home/anthony/.claude"].create == "dir" and paths["/home/anthony/.claude.json"].create == "file"
    assert paths["/home/anthony/.gemini"].create is None  # not this CLI's: granted if present, never made
    assert "/usr" not in paths  # reading is not handled: no read grants needed


def test_a_read_deny_handles_reading_and_grants_system_folders() -> None:
    effective = eff([rule(R, A, "src/**"), rule(R, D, "secrets/**"), rule(W, A, "src/**")], D)
    compiled = compile_sandbox_plan(effective, CTX)
    assert compiled is not None
    executable = exec_plan(compiled, effective, AMBIENT)
    assert executable.handled_ro and executable.require_enforcement
    paths = {g.path: g for g in executable.grants}
    assert paths["/usr"] == ExecGrant("/usr", ro=True, rw=False)
    assert paths["/opt/clis/node_modules"].ro
    assert paths[f"{ROOT}/src"] == ExecGrant(f"{ROOT}/src", ro=True, rw=True)


def test_the_plan_file_round_trips_and_bad_plans_are_refused() -> None:
    effective = eff([rule(W, A, "src/**")], A)
    compiled = compile_sandbox_plan(effective, CTX)
    assert compiled is not None
    executable = exec_plan(compiled, effective, AMBIENT)
    assert exec_plan_from_json(executable.to_json()) == executable
    good = executable.to_json()
    for broken in ({**good, "version": 2}, {**good, "handled": {"rw": 1}}, {**good, "grants": [{"path": "rel",
                   "access": ["rw"]}]}, {**good, "grants": [{"path": "/x", "access": ["wx"]}]},
                   {**good, "defaultPosture": "maybe"}, {**good, "requireEnforcement": "yes"}, []):
        with pytest.raises(ValueError):
            exec_plan_from_json(broken)
