"""Spec 06 §4, §10 and the issue's fail-closed rule, with fakes: the permission use cases and what a launch
applies (settings, sandbox plan, wrapped command, summary)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from idea.application.agents.convention_file import OrchestrationTexts
from idea.application.agents.placement_rules import InBackground
from idea.application.project_service import ProjectService
from idea.application.projects import ProjectRuntime
from idea.domain.errors import AppError, ErrorCode
from idea.domain.permissions.document import permissions_to_json
from idea.domain.permissions.model import Capability, Effect, PermissionRule, PermissionSet, resolve
from idea.domain.permissions.sandbox import EnforcementLevel, SandboxStatus
from idea.domain.permissions.summary import NO_POLICY_SUMMARY
from idea.domain.permissions.view import preset
from idea.domain.profile import reference_profile_id
from tests.fakes_permissions import IDEA_EXE
from tests.world import ROOT, World

CLAUDE = reference_profile_id("claude")
CODEX = reference_profile_id("codex")
GEMINI = reference_profile_id("gemini")
REVIEWER = preset("reviewer").permissions


class SummaryPrompts:
    def orchestration_texts(self) -> OrchestrationTexts:
        return OrchestrationTexts(mcp="## Your permissions\n{permissionSummary}", file="## Your permissions\n{permissionSummary}")


@pytest.fixture
def world() -> World:
    world = World()
    world.prefer_empty_cells()
    world.deps = replace(world.deps, launching=replace(world.deps.launching, prompts=SummaryPrompts()))
    world.service = ProjectService(world.deps, world.user_data)
    return world


async def open_project(world: World) -> ProjectRuntime:
    return await world.service.open(ROOT)


async def test_use_cases_replace_defaults_add_and_remove_an_override(world: World) -> None:
    service = world.permissions
    result = await service.update_project_defaults(ROOT, PermissionSet((), Effect.ASK))
    assert result.reading.document.project_defaults == PermissionSet((), Effect.ASK)
    await service.update_agent_permissions(ROOT, "agent-1", PermissionSet((), Effect.DENY))
    assert service.reading(ROOT).document.agent_permissions("agent-1") == PermissionSet((), Effect.DENY)
    await service.update_agent_permissions(ROOT, "agent-1", None)
    assert service.reading(ROOT).document.agent_permissions("agent-1") is None
    assert world.permission_store.saves == 3
    assert await service.resolve_agent_permissions(ROOT, "agent-1") == resolve(PermissionSet((), Effect.ASK), None)
    await service.update_project_defaults(ROOT, None)
    assert await service.resolve_agent_permissions(ROOT, "agent-1") is None


async def test_without_a_policy_nothing_is_written_and_the_cli_runs_as_usual(world: World) -> None:
    runtime = await open_project(world)
    agent = await runtime.agents.create("Main", CLAUDE, "")
    live = await runtime.placement.launch(agent.agent_id, InBackground())

    [request] = world.run_dirs.requests
    assert request.claude_permission_settings == {} and request.sandbox_plan is None
    assert request.codex_sandbox_mode is None and request.permission_args == ()
    assert NO_POLICY_SUMMARY in request.convention_text
    assert world.terminals.terminals[live.session_id].spec.argv[0] == "/usr/bin/claude"
    assert world.permission_store.saves == 0


async def test_a_reviewer_claude_agent_is_projected_sandboxed_and_told(world: World) -> None:
    runtime = await open_project(world)
    agent = await runtime.agents.create("Architect", CLAUDE, "")
    await world.permissions.update_agent_permissions(ROOT, agent.agent_id, REVIEWER)
    live = await runtime.placement.launch(agent.agent_id, InBackground())

    [request] = world.run_dirs.requests
    permissions = request.claude_permission_settings["permissions"]
    assert permissions["defaultMode"] == "bypassPermissions" and "Edit(**)" in permissions["deny"]
    run_dir = f"{ROOT}/.ideai/run/{agent.agent_id}"
    plan = request.sandbox_plan
    assert plan is not None and plan["handled"] == {"ro": False, "rw": True}
    grants = {grant["path"]: grant["access"] for grant in plan["grants"]}
    assert grants[ROOT] == ["ro"] and grants[run_dir] == ["ro", "rw"] and grants["/home/dev/.claude"] == ["ro", "rw"]
    argv = world.terminals.terminals[live.session_id].spec.argv
    assert argv[:5] == (IDEA_EXE, "sandbox-exec", "--plan", f"{run_dir}/sandbox-plan.json", "--")
    assert argv[5] == "/usr/bin/claude"
    assert "you cannot create, modify or delete files in the project" in request.convention_text
    assert "enforced by the operating system (Landlock)" in request.convention_text


async def test_a_codex_agent_gets_the_posture_in_its_config_and_arguments(world: World) -> None:
    runtime = await open_project(world)
    agent = await runtime.agents.create("Builder", CODEX, "")
    await world.permissions.update_project_defaults(ROOT, preset("autonomous").permissions)
    await runtime.placement.launch(agent.agent_id, InBackground())

    [request] = world.run_dirs.requests
    assert (request.codex_sandbox_mode, request.codex_approval_policy) == ("workspace-write", "never")
    assert request.permission_args == ("--sandbox", "workspace-write", "--ask-for-approval", "never", "--add-dir", ROOT)
    assert "Codex takes no per-command rules" in request.convention_text


async def test_an_unreadable_policy_refuses_every_launch_with_the_reason(world: World) -> None:
    runtime = await open_project(world)
    agent = await runtime.agents.create("Main", CLAUDE, "")
    world.permission_store.unreadable[ROOT] = "invalid JSON at line 3, column 5: Expecting ','"

    with pytest.raises(AppError) as raised:
        await runtime.placement.launch(agent.agent_id, InBackground())

    assert raised.value.code is ErrorCode.PERMISSION_DENIED
    assert "Main was not started: permissions.json cannot be read (invalid JSON at line 3" in raised.value.message
    assert world.run_dirs.requests == [] and world.terminals.terminals == {}
    assert runtime.runner.live(agent.agent_id) is None


async def test_a_problem_in_one_override_refuses_only_that_agent(world: World) -> None:
    runtime = await open_project(world)
    architect = await runtime.agents.create("Architect", CLAUDE, "")
    developer = await runtime.agents.create("Developer", CLAUDE, "")
    world.permission_store.raw[ROOT] = {
        "version": 1,
        "agents": [{"agentId": architect.agent_id, "permissions": {
            "rules": [{"capability": "write", "effect": "deny", "paths": ["/etc/**"], "commands": []}],
            "fallback": "allow"}}],
    }

    with pytest.raises(AppError) as raised:
        await runtime.placement.launch(architect.agent_id, InBackground())
    assert "agents[0].permissions.rules[0].paths[0]" in raised.value.message
    await runtime.placement.launch(developer.agent_id, InBackground())
    assert runtime.runner.live(developer.agent_id) is not None


async def test_a_policy_that_stops_agents_is_said_as_the_project_opens(world: World) -> None:
    runtime = await open_project(world)
    architect = await runtime.agents.create("Architect", CLAUDE, "")
    await runtime.agents.create("Developer", CLAUDE, "")
    assert runtime.problems == []
    world.permission_store.raw[ROOT] = {
        "version": 1,
        "agents": [{"agentId": architect.agent_id, "permissions": {
            "rules": [{"capability": "write", "effect": "deny", "paths": ["/etc/**"], "commands": []}],
            "fallback": "allow"}}],
    }
    await world.service.close(runtime.record.id)

    reopened = await open_project(world)
    [notice] = reopened.problems
    assert notice.startswith("permissions.json has a problem that could make a policy looser than written "
                             "(agents[0].permissions.rules[0].paths[0]: ")
    assert notice.endswith("); Architect cannot start until it is fixed in .ideai/permissions.json or a policy is "
                           "saved in Agents ▸ Permissions.")
    await world.service.close(reopened.record.id)
    world.permission_store.unreadable[ROOT] = "invalid JSON at line 3, column 5: Expecting ','"
    assert (await open_project(world)).problems == [
        "permissions.json cannot be read (invalid JSON at line 3, column 5: Expecting ','); no agent starts until it "
        "is fixed in .ideai/permissions.json or a policy is saved in Agents ▸ Permissions."
    ]


async def test_a_deny_fallback_is_refused_where_nothing_can_enforce_it(world: World) -> None:
    world.sandbox.current = SandboxStatus(EnforcementLevel.UNSUPPORTED, "this kernel was built without Landlock")
    runtime = await open_project(world)
    strict = await runtime.agents.create("Strict", CLAUDE, "")
    relaxed = await runtime.agents.create("Relaxed", CLAUDE, "")
    await world.permissions.update_agent_permissions(ROOT, strict.agent_id, PermissionSet((), Effect.DENY))
    await world.permissions.update_agent_permissions(ROOT, relaxed.agent_id, REVIEWER)

    with pytest.raises(AppError) as raised:
        await runtime.placement.launch(strict.agent_id, InBackground())
    assert "needs the operating system to enforce file rules" in raised.value.message
    await runtime.placement.launch(relaxed.agent_id, InBackground())
    [request] = world.run_dirs.requests
    assert "advisory only on this system (this kernel was built without Landlock)" in request.convention_text


async def test_a_gemini_agent_is_advisory_only_and_its_warnings_say_so(world: World) -> None:
    runtime = await open_project(world)
    agent = await runtime.agents.create("Scout", GEMINI, "")
    await world.permissions.update_agent_permissions(ROOT, agent.agent_id, REVIEWER)
    profile = runtime.runner.profile_of(agent.agent_id)
    policy = world.permissions.policy_for(ROOT, agent.agent_id, profile)
    assert any("Gemini CLI has no permission settings IdeA can write" in w for w in policy.warnings)
    assert policy.projection.is_empty and policy.exec_plan is not None
    # It replies through IdeA's tools; on a profile without them (the file protocol) it may still write its
    # own request folder.
    requests = f"{ROOT}/.ideai/requests/{agent.agent_id}"
    assert requests not in {grant.path for grant in policy.exec_plan.grants}
    files = world.permissions.policy_for(ROOT, agent.agent_id, profile.with_changes({"mcp": None}))
    assert files.exec_plan is not None and requests in {grant.path for grant in files.exec_plan.grants}


async def test_changing_a_running_agents_permissions_says_what_applies_now_and_at_next_launch(world: World) -> None:
    runtime = await open_project(world)
    agent = await runtime.agents.create("Architect", CLAUDE, "")
    profile = runtime.runner.profile_of(agent.agent_id)
    before = world.permissions.policy_for(ROOT, agent.agent_id, profile)
    await runtime.placement.launch(agent.agent_id, InBackground())
    await world.permissions.update_agent_permissions(ROOT, agent.agent_id, REVIEWER)
    after = world.permissions.policy_for(ROOT, agent.agent_id, profile)

    impact = world.permissions.change_impact(before, after, running=True)
    assert impact is not None
    message = impact.message("Architect")
    assert "the running process keeps the permissions it started with" in message
    assert "When Architect next starts: the operating-system sandbox is rebuilt" in message
    assert "Claude Code's permission settings are rewritten" in message and "Restart it to apply" in message
    assert world.permissions.change_impact(after, after, running=True) is None
    idle = world.permissions.change_impact(before, after, running=False)
    assert idle is not None and idle.next_launch == ()


async def test_saving_over_a_file_with_problems_keeps_a_copy(world: World) -> None:
    world.permission_store.raw[ROOT] = {"version": 1, "projectDefaults": {"rules": "oops", "fallback": "allow"}}
    result = await world.permissions.update_project_defaults(ROOT, REVIEWER)
    assert result.kept_previous_as == "kept-copy"
    assert result.reading.problems == ()
    assert world.permission_store.raw[ROOT] == permissions_to_json(result.reading.document)
    rule = result.reading.document.project_defaults.rules[1]  # type: ignore[union-attr]
    assert rule == PermissionRule(Capability.WRITE, Effect.DENY, ("**",))


async def test_a_root_user_without_a_sandbox_gets_accept_edits_and_is_told_why(world: World) -> None:
    world.sandbox.root = True
    world.sandbox.current = SandboxStatus(EnforcementLevel.UNSUPPORTED, "no Landlock")
    runtime = await open_project(world)
    agent = await runtime.agents.create("Main", CLAUDE, "")
    await world.permissions.update_project_defaults(ROOT, preset("autonomous").permissions)
    policy = world.permissions.policy_for(ROOT, agent.agent_id, runtime.runner.profile_of(agent.agent_id))
    assert policy.projection.claude_settings["permissions"]["defaultMode"] == "acceptEdits"
    assert any("refuses to skip its prompts for the root user" in warning for warning in policy.warnings)
    world.sandbox.current = SandboxStatus(EnforcementLevel.ENFORCED, "Landlock ABI 7")
    policy = world.permissions.policy_for(ROOT, agent.agent_id, runtime.runner.profile_of(agent.agent_id))
    assert policy.projection.claude_settings["permissions"]["defaultMode"] == "bypassPermissions"
