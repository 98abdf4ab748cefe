"""The lifecycle events of spec 00 §5.4 are published where they happen, and the Agents panel's activity
follows them: agentLaunched / agentExited, agentProfileChanged, orchestratorChanged and
orchestratorRequestProcessed."""

from __future__ import annotations

import pytest

from idea.application.agents.agent_activity import ActivityBook
from idea.application.agents.placement_rules import InBackground
from idea.domain.errors import AppError
from idea.domain.events import (
    AgentExited,
    AgentLaunched,
    AgentProfileChanged,
    OrchestrationNews,
    OrchestratorChanged,
)
from idea.domain.orchestration.commands import AgentCaller, AskAgent, Human, ListAgents, Source
from idea.domain.orchestration.events import AgentAttention, OrchestratorRequestProcessed, command_action
from idea.domain.profile import reference_profile_id
from idea.infrastructure.mcp.tools import TOOLS, parse_tool_call
from tests.unit.infrastructure.test_knowledge_tools import VALID_CALLS as KNOWLEDGE_CALLS
from tests.unit.infrastructure.test_mcp_tools import VALID_CALLS
from tests.world import ROOT, World

CLAUDE = reference_profile_id("claude")
CODEX = reference_profile_id("codex")


@pytest.fixture
def world() -> World:
    world = World()
    world.prefer_empty_cells()
    return world


def processed(world: World) -> list[OrchestratorRequestProcessed]:
    return [e.event for e in world.events.of_type(OrchestrationNews) if isinstance(e.event, OrchestratorRequestProcessed)]


async def test_an_agent_process_starting_and_ending_is_published(world: World) -> None:
    runtime = await world.service.open(ROOT)
    agent = await runtime.agents.create("QA", CLAUDE, "")

    live = await runtime.placement.launch(agent.agent_id, InBackground())
    assert world.events.of_type(AgentLaunched) == [AgentLaunched(runtime.id, agent.agent_id, live.session_id)]
    assert world.events.of_type(AgentExited) == []
    world.terminals.terminals[live.session_id].exit(3)  # the CLI quits by itself

    assert world.events.of_type(AgentExited) == [AgentExited(runtime.id, agent.agent_id, live.session_id, 3)]


async def test_profile_and_orchestrator_changes_are_published_once_each(world: World) -> None:
    runtime = await world.service.open(ROOT)
    main = await runtime.agents.create("Main", CLAUDE, "")
    qa = await runtime.agents.create("QA", CLAUDE, "")

    await runtime.agents.set_profile(qa.agent_id, CODEX)
    await runtime.agents.set_profile(qa.agent_id, CODEX)  # no change, no event
    await runtime.agents.set_orchestrator(qa.agent_id)
    await runtime.agents.delete(qa.agent_id)  # the designated orchestrator goes: the designation with it

    assert world.events.of_type(AgentProfileChanged) == [AgentProfileChanged(runtime.id, qa.agent_id, CODEX)]
    assert world.events.of_type(OrchestratorChanged) == [
        OrchestratorChanged(runtime.id, qa.agent_id),
        OrchestratorChanged(runtime.id, None),
    ]
    assert runtime.agents.manifest().effective_orchestrator() == runtime.agents.agent(main.agent_id)


async def test_every_command_a_door_processes_is_published_with_its_outcome(world: World) -> None:
    runtime = await world.service.open(ROOT)
    qa = await runtime.agents.create("QA", CLAUDE, "")

    await runtime.orchestrator.dispatch(AgentCaller(qa.agent_id), ListAgents(), Source.MCP)
    with pytest.raises(AppError):
        await runtime.orchestrator.dispatch(AgentCaller(qa.agent_id), AskAgent("Nobody", "hi"), Source.FILE)
    await runtime.orchestrator.dispatch(Human(), ListAgents(), Source.UI)

    assert processed(world) == [
        OrchestratorRequestProcessed("mcp", "idea_list_agents", True, qa.agent_id),
        OrchestratorRequestProcessed("file", "idea_ask_agent", False, qa.agent_id),
        OrchestratorRequestProcessed("ui", "idea_list_agents", True, None),
    ]


@pytest.mark.parametrize("tool", TOOLS, ids=lambda tool: tool.name)
def test_the_action_of_each_tools_command_is_the_tool_name(tool) -> None:  # noqa: ANN001
    arguments, _ = {**VALID_CALLS, **KNOWLEDGE_CALLS}[tool.name]
    assert command_action(parse_tool_call(tool.name, arguments)) == tool.name


def test_the_panel_activity_follows_requests_and_exits() -> None:
    book = ActivityBook()
    book.apply(AgentAttention("qa", "permission"), now_ms=1_000)

    assert book.apply(OrchestratorRequestProcessed("mcp", "idea_ask_agent", False, "qa"), now_ms=2_000)
    assert book.apply(AgentExited("p", "qa", "s1", 0), now_ms=3_000)

    last = book.of("qa").last_request
    assert last is not None and (last.action, last.ok, last.at_ms) == ("idea_ask_agent", False, 2_000)
    assert "refused or failed" in last.describe()
    assert book.of("qa").attention is None
