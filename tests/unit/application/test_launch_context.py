""""Context changed — restart to apply" (spec 02 §2, 04 §13.2): a running agent whose persona, assigned skills,
project context or profile changed since it started is behind until it is launched again; a stopped agent
never is."""

from __future__ import annotations

import pytest

from idea.application.agents.agent_rows import AgentRow, build_rows
from idea.application.agents.launch_context import ContextPart, may_change_launch_context
from idea.application.agents.placement_rules import InBackground, InCell
from idea.application.projects import ProjectRuntime
from idea.domain import layout as lay
from idea.domain.agent import AgentEntry, AgentManifest
from idea.domain.events import AgentLaunched, AgentsChanged, OrchestrationNews, SessionsChanged
from idea.domain.knowledge.events import MemorySaved, ProjectContextChanged, SkillsChanged
from idea.domain.orchestration.commands import AgentCaller, Source, UpdateAgentContext
from idea.domain.profile import reference_profile_id
from tests.world import ROOT, World

CLAUDE = reference_profile_id("claude")


@pytest.fixture
def world() -> World:
    world = World()
    world.prefer_empty_cells()
    return world


async def team(world: World) -> tuple[ProjectRuntime, AgentEntry, AgentEntry]:
    """Main (the orchestrator) and Dev, both running."""
    runtime = await world.service.open(ROOT)
    main = await runtime.agents.create("Main", CLAUDE, "# Main\nDelegate.")
    dev = await runtime.agents.create("Dev", CLAUDE, "# Dev\nBuild the API.")
    await runtime.placement.launch(main.agent_id, InBackground())
    [cell] = lay.leaves(runtime.active.root)
    await runtime.placement.launch(dev.agent_id, InCell(cell.id))
    return runtime, main, dev


async def rewrite_persona_by_tool(runtime: ProjectRuntime, main: AgentEntry, content: str) -> None:
    """The orchestrator's `idea_update_context(target="Dev", content=…)`."""
    await runtime.orchestrator.dispatch(AgentCaller(main.agent_id), UpdateAgentContext("Dev", content), Source.MCP)


async def test_a_running_agent_whose_persona_the_orchestrator_rewrites_is_behind_until_restarted(
    world: World,
) -> None:
    runtime, main, dev = await team(world)
    assert await runtime.runner.context_changes() == {}

    await rewrite_persona_by_tool(runtime, main, "# Dev\nBuild the API and its tests.")

    changes = await runtime.runner.context_changes()
    assert list(changes) == [dev.agent_id]
    assert changes[dev.agent_id].parts == (ContextPart.PERSONA,)
    assert changes[dev.agent_id].describe() == "Persona changed since it started — restart to apply"

    await runtime.placement.relaunch(dev.agent_id, "context changed")

    assert await runtime.runner.context_changes() == {}
    assert "Build the API and its tests." in world.run_dirs.requests[-1].convention_text  # the relaunch read the new persona


async def test_a_persona_written_back_as_it_was_is_no_change(world: World) -> None:
    runtime, main, dev = await team(world)
    await rewrite_persona_by_tool(runtime, main, "# Dev\nSomething else.")
    await runtime.agents.update_persona(dev.agent_id, "# Dev\nBuild the API.")

    assert await runtime.runner.context_changes() == {}


async def test_a_stopped_agent_is_never_behind_it_reads_everything_at_its_next_launch(world: World) -> None:
    runtime, main, dev = await team(world)
    await runtime.placement.stop(dev.agent_id)

    await rewrite_persona_by_tool(runtime, main, "# Dev\nNew role.")
    skill = await runtime.knowledge.skills.create("lint", "# Lint\nRun ruff.")
    await runtime.knowledge.skills.assign(dev.agent_id, "project", skill.record.id)

    assert await runtime.runner.context_changes() == {}
    await runtime.placement.launch(dev.agent_id, InBackground())
    assert await runtime.runner.context_changes() == {}


async def test_assigning_or_unassigning_a_skill_to_a_running_agent_changes_its_context(world: World) -> None:
    runtime, _main, dev = await team(world)
    skill = await runtime.knowledge.skills.create("lint", "# Lint\nRun ruff.", description="How we lint")

    assert await runtime.runner.context_changes() == {}  # a skill nobody was given
    await runtime.knowledge.skills.assign(dev.agent_id, "project", skill.record.id)

    changes = await runtime.runner.context_changes()
    assert changes[dev.agent_id].parts == (ContextPart.SKILLS,)
    assert changes[dev.agent_id].describe() == "Assigned skills changed since it started — restart to apply"

    await runtime.knowledge.skills.unassign(dev.agent_id, "project", skill.record.id)
    assert await runtime.runner.context_changes() == {}  # back to what it was launched with


async def test_an_assigned_skill_changes_an_mcp_agents_context_by_its_description_not_its_body(world: World) -> None:
    runtime, _main, dev = await team(world)
    skill = await runtime.knowledge.skills.create("lint", "# Lint\nRun ruff.", description="How we lint")
    await runtime.knowledge.skills.assign(dev.agent_id, "project", skill.record.id)
    await runtime.placement.relaunch(dev.agent_id, "context changed")

    await runtime.knowledge.skills.update("project", skill.record.id, name="lint", description="How we lint",
                                          body="# Lint\nRun ruff twice.")
    assert await runtime.runner.context_changes() == {}  # it loads the body on demand

    await runtime.knowledge.skills.update("project", skill.record.id, name="lint", description="How we format",
                                          body="# Lint\nRun ruff twice.")
    assert (await runtime.runner.context_changes())[dev.agent_id].parts == (ContextPart.SKILLS,)


async def test_the_project_context_and_the_profile_are_part_of_every_running_agents_context(world: World) -> None:
    runtime, main, dev = await team(world)

    await runtime.knowledge.context.write("# Context\nWe ship on Fridays.\n")

    changes = await runtime.runner.context_changes()
    assert set(changes) == {main.agent_id, dev.agent_id}
    assert changes[dev.agent_id].parts == (ContextPart.PROJECT_CONTEXT,)

    claude = world.profiles.profile(CLAUDE)
    edited = claude.model_copy(update={"args": (*claude.args, "--verbose"), "edited": ("args",)})
    world.profiles.save_profile(edited)
    await rewrite_persona_by_tool(runtime, main, "# Dev\nNew role.")

    changes = await runtime.runner.context_changes()
    assert changes[dev.agent_id].parts == (ContextPart.PERSONA, ContextPart.PROJECT_CONTEXT, ContextPart.PROFILE)
    assert changes[dev.agent_id].describe() == (
        "Persona, project context and profile changed since it started — restart to apply"
    )


async def test_a_profile_setting_read_as_the_agent_runs_is_no_change(world: World) -> None:
    runtime, _main, _dev = await team(world)
    claude = world.profiles.profile(CLAUDE)
    slower = claude.model_copy(update={"submit_delay_ms": claude.submit_delay_ms + 100, "edited": ("submitDelayMs",)})
    world.profiles.save_profile(slower)

    assert world.profiles.profile(CLAUDE).submit_delay_ms == slower.submit_delay_ms
    assert await runtime.runner.context_changes() == {}


async def test_the_change_stays_told_while_the_agent_moves_to_the_background_and_back(world: World) -> None:
    runtime, main, dev = await team(world)
    await rewrite_persona_by_tool(runtime, main, "# Dev\nNew role.")
    [cell] = [leaf for leaf in lay.leaves(runtime.active.root) if leaf.agent == dev.agent_id]

    await runtime.placement.send_to_background(dev.agent_id)
    assert dev.agent_id in await runtime.runner.context_changes()
    await runtime.placement.attach(dev.agent_id, InCell(cell.id))
    assert dev.agent_id in await runtime.runner.context_changes()


async def test_the_agents_row_carries_the_change_of_its_running_session_only(world: World) -> None:
    runtime, main, dev = await team(world)
    await rewrite_persona_by_tool(runtime, main, "# Dev\nNew role.")
    changes = await runtime.runner.context_changes()

    def dev_row() -> AgentRow:
        rows = build_rows(runtime.agents.manifest(), runtime.sessions.snapshot(), runtime.active.root,
                          world.profiles.known(), {}, {}, changes)
        return next(row for row in rows if row.agent_id == dev.agent_id)

    row = dev_row()
    assert (row.context_text, row.context_change_text) == (
        "context changed", "Persona changed since it started — restart to apply"
    )
    await runtime.placement.relaunch(dev.agent_id, "context changed")
    row = dev_row()  # the same (older) answer, about the session that ended
    assert (row.context_text, row.context_change_text) == ("", "")
    await runtime.placement.stop(dev.agent_id)
    assert dev_row().context_text == ""


def test_the_events_after_which_the_panel_reads_the_changes_again() -> None:
    project, other = "p-1", "p-2"
    assert may_change_launch_context(AgentsChanged(project, AgentManifest()), project)
    assert may_change_launch_context(AgentLaunched(project, "a-1", "s-1"), project)
    assert may_change_launch_context(OrchestrationNews(project, ProjectContextChanged()), project)
    assert may_change_launch_context(OrchestrationNews(project, SkillsChanged("project")), project)
    assert not may_change_launch_context(AgentsChanged(other, AgentManifest()), project)
    assert not may_change_launch_context(OrchestrationNews(project, MemorySaved("a-note")), project)
    assert not may_change_launch_context(SessionsChanged(project, ()), project)
