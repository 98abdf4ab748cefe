"""Where agents are shown — a cell, a new split, the background — and that each of the person's gestures is
one saved change of layouts.json, whatever processes it stops or starts on the way."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable

import pytest

from idea.application.agents.placement_rules import (
    InBackground,
    InCell,
    InNewSplit,
    runs_another_agent,
    split_target,
)
from idea.application.orchestrator.ports import LiveAgent
from idea.application.projects import ProjectRuntime
from idea.domain import layout as lay
from idea.domain.agent import AgentEntry
from idea.domain.errors import AppError, ErrorCode
from idea.domain.events import LayoutChanged
from idea.domain.profile import reference_profile_id
from idea.domain.session import SessionKind, start_refusal
from tests.world import ROOT, World

CLAUDE = reference_profile_id("claude")
CODEX = reference_profile_id("codex")


@pytest.fixture
def world() -> World:
    return World()  # new cells run the user's shell, as by default


async def open_project(world: World) -> ProjectRuntime:
    return await world.service.open(ROOT)


def cells(runtime: ProjectRuntime) -> list[lay.Leaf]:
    return lay.leaves(runtime.active.root)


async def settled() -> None:
    """Let follow-up work scheduled on the loop (exit handling) run."""
    for _ in range(5):
        await asyncio.sleep(0)


async def saves_of(world: World, gesture: Awaitable[object]) -> int:
    """How many times the gesture saved layouts.json, follow-up work included; each save is published once."""
    saves, published = world.layouts.saves, len(world.events.of_type(LayoutChanged))
    try:
        await gesture
    finally:
        await settled()
    assert len(world.events.of_type(LayoutChanged)) - published == world.layouts.saves - saves
    return world.layouts.saves - saves


async def team(runtime: ProjectRuntime, *names: str) -> list[AgentEntry]:
    return [await runtime.agents.create(name, CLAUDE, "") for name in names]


async def dev_running_in_the_only_cell(world: World) -> tuple[ProjectRuntime, AgentEntry, LiveAgent]:
    runtime = await open_project(world)
    [dev] = await team(runtime, "Dev")
    return runtime, dev, await runtime.placement.launch(dev.agent_id, InCell(cells(runtime)[0].id))


# -- the rules of placement --


async def test_launching_in_a_cell_stops_its_idle_shell_and_takes_the_cell(world: World) -> None:
    runtime = await open_project(world)
    [shell_cell] = cells(runtime)
    shell = shell_cell.session
    [dev] = await team(runtime, "Dev")

    live = await runtime.placement.launch(dev.agent_id, InCell(shell_cell.id))

    assert world.terminals.terminals[shell].terminated
    assert not runtime.sessions.knows(shell)  # the ended shell is forgotten once no layout shows it
    [leaf] = cells(runtime)
    assert (leaf.agent, leaf.session, leaf.agent_was_running) == (dev.agent_id, live.session_id, True)


async def test_a_cell_running_another_agent_is_refused_before_anything_stops(world: World) -> None:
    runtime = await open_project(world)
    main, dev = await team(runtime, "Main", "Dev")
    [cell] = cells(runtime)
    await runtime.placement.launch(main.agent_id, InCell(cell.id))
    saves = world.layouts.saves

    with pytest.raises(AppError) as raised:
        await runtime.placement.launch(dev.agent_id, InCell(cell.id))

    assert raised.value.code is ErrorCode.INVALID and "Main is running in that cell" in raised.value.message
    assert runtime.runner.live(dev.agent_id) is None and runtime.runner.live(main.agent_id) is not None
    assert world.layouts.saves == saves


async def test_an_agent_shown_in_a_cell_is_not_shown_in_a_second_one(world: World) -> None:
    runtime = await open_project(world)
    [dev] = await team(runtime, "Dev")
    [first] = cells(runtime)
    await runtime.placement.launch(dev.agent_id, InCell(first.id))
    shells = len(world.terminals.terminals)

    with pytest.raises(AppError) as raised:
        await runtime.placement.launch(dev.agent_id, InNewSplit(first.id))

    assert raised.value.code is ErrorCode.AGENT_ALREADY_RUNNING and raised.value.data == {"nodeId": first.id}
    assert len(cells(runtime)) == 1 and len(world.terminals.terminals) == shells  # no split, no shell


async def test_a_cell_still_showing_the_agents_ended_run_gives_it_up(world: World) -> None:
    world.prefer_empty_cells()
    runtime = await open_project(world)
    [dev] = await team(runtime, "Dev")
    [first] = cells(runtime)
    ended = await runtime.placement.launch(dev.agent_id, InCell(first.id))
    world.terminals.terminals[ended.session_id].exit(1)
    await settled()
    assert cells(runtime)[0].agent == dev.agent_id  # the ended run stays visible with its exit code

    live = await runtime.placement.launch(dev.agent_id, InNewSplit(first.id))

    left, right = cells(runtime)
    assert left.is_empty and not runtime.sessions.knows(ended.session_id)
    assert (right.agent, right.session) == (dev.agent_id, live.session_id)


async def test_a_new_split_goes_away_when_the_cli_cannot_start(world: World) -> None:
    runtime = await open_project(world)
    [dev] = await team(runtime, "Dev")
    [first] = cells(runtime)
    world.terminals.fail_next = "exec failed"

    saves = await saves_of(world, _refused(runtime.placement.launch(dev.agent_id, InNewSplit(first.id))))

    assert saves == 0 and [leaf.id for leaf in cells(runtime)] == [first.id]
    assert [s.kind for s in runtime.sessions.snapshot()] == [SessionKind.SHELL]  # the failed one is forgotten


async def test_a_cli_that_cannot_start_in_a_cell_shows_why_there(world: World) -> None:
    world.prefer_empty_cells()
    runtime = await open_project(world)
    [dev] = await team(runtime, "Dev")
    [cell] = cells(runtime)
    world.terminals.fail_next = start_refusal("/usr/bin/claude", "Permission denied")

    with pytest.raises(AppError) as raised:
        await runtime.placement.launch(dev.agent_id, InCell(cell.id))

    # Said once, in the adapter's words, both in the error and in the cell.
    assert raised.value.code is ErrorCode.PROCESS
    assert raised.value.message == "Cannot start /usr/bin/claude: Permission denied."
    [leaf] = cells(runtime)
    assert leaf.agent == dev.agent_id and not leaf.agent_was_running
    assert runtime.sessions.info(leaf.session).describe_end() == raised.value.message


async def test_attaching_needs_a_running_agent(world: World) -> None:
    runtime = await open_project(world)
    [dev] = await team(runtime, "Dev")
    with pytest.raises(AppError) as raised:
        await runtime.placement.attach(dev.agent_id, InCell(cells(runtime)[0].id))
    assert raised.value.code is ErrorCode.NOT_FOUND and "Dev is not running" in raised.value.message


async def test_a_request_takes_a_cell_only_when_it_is_free(world: World) -> None:
    runtime = await open_project(world)
    [dev] = await team(runtime, "Dev")
    [shell_cell] = cells(runtime)
    with pytest.raises(AppError) as raised:
        await runtime.placement.start(dev.agent_id, InCell(shell_cell.id), reason="launch")
    assert "that cell is not empty" in raised.value.message
    assert runtime.sessions.is_live(shell_cell.session)


async def test_double_click_uses_the_previous_cell_then_the_active_one_then_a_free_one_then_a_new_split(
    world: World,
) -> None:
    world.prefer_empty_cells()
    runtime = await open_project(world)
    main, dev, qa = await team(runtime, "Main", "Dev", "QA")
    [first] = cells(runtime)
    second = await runtime.split(first.id, lay.Direction.ROW)

    shown = await runtime.placement.show(main.agent_id, active=second)
    assert shown.node_id == second  # the active cell, free
    await runtime.placement.stop(main.agent_id)
    await runtime.placement.launch(main.agent_id, InCell(second))
    world.terminals.terminals[runtime.runner.live(main.agent_id).session_id].exit(0)
    await settled()

    again = await runtime.placement.show(main.agent_id, active=first.id)
    assert again.node_id == second  # the cell its last run left beats the active one
    shown = await runtime.placement.show(dev.agent_id, active=second)
    assert shown.node_id == first.id  # the active cell is busy: the first free one
    shown = await runtime.placement.show(qa.agent_id, active=first.id)
    assert shown.node_id not in (first.id, second) and len(cells(runtime)) == 3  # a new split
    assert lay.parent_of(runtime.active.root, shown.node_id) == lay.parent_of(runtime.active.root, first.id)
    assert (await runtime.placement.show(qa.agent_id, active=None)).node_id == shown.node_id  # stays


async def test_a_background_agent_attached_through_attach_session_is_shown_as_the_agent(world: World) -> None:
    world.prefer_empty_cells()
    runtime = await open_project(world)
    [dev] = await team(runtime, "Dev")
    live = await runtime.placement.launch(dev.agent_id, InBackground())

    await runtime.attach(cells(runtime)[0].id, live.session_id)

    [leaf] = cells(runtime)
    assert (leaf.agent, leaf.session, leaf.agent_was_running) == (dev.agent_id, live.session_id, True)
    assert world.running.load(ROOT).agents[0].node_id == leaf.id


async def test_a_cell_running_another_agent_is_told_apart_from_the_agents_own_and_from_a_shell(
    world: World,
) -> None:
    runtime = await open_project(world)
    main, dev = await team(runtime, "Main", "Dev")
    [shell_cell] = cells(runtime)
    agent_cell = await runtime.split(shell_cell.id, lay.Direction.ROW)
    await runtime.placement.launch(main.agent_id, InCell(agent_cell))
    root, live = runtime.active.root, runtime.sessions.info

    assert runs_another_agent(root, agent_cell, dev.agent_id, live)
    assert runs_another_agent(root, agent_cell, None, live)
    assert not runs_another_agent(root, agent_cell, main.agent_id, live)
    assert not runs_another_agent(root, shell_cell.id, dev.agent_id, live)
    await runtime.placement.stop(main.agent_id)
    await runtime.placement.launch(main.agent_id, InCell(agent_cell))
    world.terminals.terminals[runtime.runner.live(main.agent_id).session_id].exit(0)
    await settled()
    assert not runs_another_agent(runtime.active.root, agent_cell, dev.agent_id, live)  # it ended


def test_a_new_split_goes_beside_the_active_cell_else_the_last_one() -> None:
    document = lay.default_document("layout", "a")
    root = lay.apply(document.active, lay.SplitCell("a", lay.Direction.ROW, "after", "b"), lambda: "s").layout.root
    assert split_target(root, "a") == "a"
    assert split_target(root, "gone") == "b" and split_target(root, None) == "b"


# -- one gesture, one save --


async def test_launching_in_the_active_cell_saves_once(world: World) -> None:
    runtime = await open_project(world)
    [dev] = await team(runtime, "Dev")
    assert await saves_of(world, runtime.placement.launch(dev.agent_id, InCell(cells(runtime)[0].id))) == 1


async def test_launching_in_a_new_split_saves_once(world: World) -> None:
    runtime = await open_project(world)
    [dev] = await team(runtime, "Dev")
    assert await saves_of(world, runtime.placement.launch(dev.agent_id, InNewSplit(cells(runtime)[0].id))) == 1
    assert len(cells(runtime)) == 2


async def test_launching_in_the_background_saves_only_to_free_a_pinned_cell(world: World) -> None:
    world.prefer_empty_cells()
    runtime = await open_project(world)
    main, dev = await team(runtime, "Main", "Dev")
    assert await saves_of(world, runtime.placement.launch(main.agent_id, InBackground())) == 0
    ended = await runtime.placement.launch(dev.agent_id, InCell(cells(runtime)[0].id))
    world.terminals.terminals[ended.session_id].exit(0)
    await settled()
    assert await saves_of(world, runtime.placement.launch(dev.agent_id, InBackground())) == 1
    assert cells(runtime)[0].is_empty


async def test_attaching_a_background_agent_saves_once(world: World) -> None:
    runtime = await open_project(world)
    dev, qa = await team(runtime, "Dev", "QA")
    [cell] = cells(runtime)
    world.terminals.terminals[cell.session].exit(0)  # the cell shows an ended shell
    await settled()
    await runtime.placement.launch(dev.agent_id, InBackground())
    await runtime.placement.launch(qa.agent_id, InBackground())

    assert await saves_of(world, runtime.placement.attach(dev.agent_id, InCell(cell.id))) == 1
    assert await saves_of(world, runtime.placement.attach(qa.agent_id, InNewSplit(cell.id))) == 1
    assert [leaf.agent for leaf in cells(runtime)] == [dev.agent_id, qa.agent_id]


async def test_double_click_saves_once(world: World) -> None:
    runtime = await open_project(world)
    [dev] = await team(runtime, "Dev")
    assert await saves_of(world, runtime.placement.show(dev.agent_id, active=cells(runtime)[0].id)) == 1


async def test_sending_to_the_background_stopping_and_restarting_save_once_each(world: World) -> None:
    runtime = await open_project(world)
    [dev] = await team(runtime, "Dev")
    [cell] = cells(runtime)
    await runtime.placement.launch(dev.agent_id, InCell(cell.id))

    assert await saves_of(world, runtime.placement.send_to_background(dev.agent_id)) == 1
    assert await saves_of(world, runtime.placement.attach(dev.agent_id, InCell(cell.id))) == 1
    assert await saves_of(world, runtime.restart(cell.id)) == 1
    assert await saves_of(world, runtime.placement.stop(dev.agent_id)) == 1
    assert cells(runtime)[0].is_empty


async def test_stopping_saves_once_when_the_exit_is_handled_before_the_stop_returns(world: World) -> None:
    runtime, dev, live = await dev_running_in_the_only_cell(world)
    terminal = world.terminals.terminals[live.session_id]

    async def terminate_then_wait(grace_ms: int = 3000) -> None:
        terminal.terminated = True
        terminal.exit(-15)
        await asyncio.sleep(0)  # a real terminal reports the exit while the stop still waits

    terminal.terminate = terminate_then_wait  # type: ignore[method-assign]
    assert await saves_of(world, runtime.placement.stop(dev.agent_id)) == 1
    assert cells(runtime)[0].is_empty


async def test_an_agent_that_exits_by_itself_saves_once(world: World) -> None:
    runtime, _dev, live = await dev_running_in_the_only_cell(world)

    saves = world.layouts.saves
    world.terminals.terminals[live.session_id].exit(0)
    await settled()

    assert world.layouts.saves == saves + 1 and not cells(runtime)[0].agent_was_running  # no resume offer


async def test_restarting_an_ended_agent_cell_saves_once(world: World) -> None:
    runtime = await open_project(world)
    [dev] = await team(runtime, "Dev")
    [cell] = cells(runtime)
    ended = await runtime.placement.launch(dev.agent_id, InCell(cell.id))
    world.terminals.terminals[ended.session_id].exit(1)
    await settled()

    assert await saves_of(world, runtime.restart(cell.id)) == 1
    [leaf] = cells(runtime)
    assert leaf.session != ended.session_id and runtime.sessions.is_live(leaf.session) and leaf.agent_was_running


async def test_changing_the_profile_of_a_running_agent_saves_once(world: World) -> None:
    runtime = await open_project(world)
    [dev] = await team(runtime, "Dev")
    [cell] = cells(runtime)
    first = await runtime.placement.launch(dev.agent_id, InCell(cell.id))

    assert await saves_of(world, runtime.placement.change_profile(dev.agent_id, CODEX)) == 1

    second = runtime.runner.live(dev.agent_id)
    assert second.session_id != first.session_id and second.node_id == cell.id


async def test_resuming_and_declining_together_save_once(world: World) -> None:
    world.prefer_empty_cells()
    runtime = await open_project(world)
    main, dev, qa = await team(runtime, "Main", "Dev", "QA")
    [first] = cells(runtime)
    second = await runtime.split(first.id, lay.Direction.ROW)
    await runtime.placement.launch(main.agent_id, InCell(first.id))
    await runtime.placement.launch(dev.agent_id, InCell(second))
    await runtime.placement.launch(qa.agent_id, InBackground())
    await world.service.close(runtime.id)
    reopened = await open_project(world)
    main_offer, dev_offer, qa_offer = reopened.runner.resumable()

    failures: list[str] = []

    async def resume() -> None:
        failures.extend(await reopened.placement.resume([main_offer, qa_offer], [dev.agent_id]))

    assert await saves_of(world, resume()) == 1
    assert failures == []
    assert reopened.runner.live(main.agent_id).node_id == first.id
    assert reopened.runner.live(qa.agent_id).node_id is None
    assert reopened.runner.resumable() == [] and dev_offer.node_id == second


async def test_not_resuming_several_agents_saves_once(world: World) -> None:
    world.prefer_empty_cells()
    runtime = await open_project(world)
    main, dev = await team(runtime, "Main", "Dev")
    [first] = cells(runtime)
    second = await runtime.split(first.id, lay.Direction.ROW)
    await runtime.placement.launch(main.agent_id, InCell(first.id))
    await runtime.placement.launch(dev.agent_id, InCell(second))
    await world.service.close(runtime.id)
    reopened = await open_project(world)

    assert await saves_of(world, reopened.placement.forget_resume([main.agent_id, dev.agent_id])) == 1
    assert reopened.runner.resumable() == []


async def test_cell_and_layout_gestures_save_once_each(world: World) -> None:
    runtime = await open_project(world)
    [first] = cells(runtime)
    second: list[str] = []

    async def split() -> None:
        second.append(await runtime.split(first.id, lay.Direction.COLUMN))

    assert await saves_of(world, split()) == 1
    assert runtime.sessions.is_live(lay.find_leaf(runtime.active.root, second[0]).session)
    assert await saves_of(world, runtime.close_cell(second[0], stop_session=True)) == 1
    assert await saves_of(world, runtime.layouts.create("Review")) == 1
    assert runtime.sessions.is_live(cells(runtime)[0].session)
    review = runtime.document.active_id
    assert await saves_of(world, runtime.layouts.duplicate(review, "Review copy")) == 1
    assert await saves_of(world, runtime.layouts.activate(review)) == 1
    assert await saves_of(world, runtime.layouts.delete(review)) == 1


async def test_switching_to_a_layout_of_a_previous_run_gives_its_shell_cells_shells_in_the_same_save(
    world: World,
) -> None:
    runtime = await open_project(world)
    await runtime.layouts.create("Other")
    await world.service.close(runtime.id)
    reopened = await open_project(world)  # "Other" is active and reconciled; "Default" names dead shells
    default = next(layout.id for layout in reopened.document.layouts if layout.name == "Default")

    assert await saves_of(world, reopened.layouts.activate(default)) == 1
    [leaf] = cells(reopened)
    assert reopened.sessions.is_live(leaf.session)


async def _refused(gesture: Awaitable[object]) -> None:
    with pytest.raises(AppError):
        await gesture
