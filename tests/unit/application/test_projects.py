"""Opening projects, cells and sessions, and named layouts — use cases driven with in-memory fakes."""

from __future__ import annotations

import asyncio

import pytest

from idea.domain import layout as lay
from idea.domain.errors import AppError, CorruptFileError, ErrorCode
from idea.domain.events import LayoutChanged, ProjectOpened, ProjectProblem, SessionsChanged
from idea.domain.session import SessionState, start_refusal
from tests.world import ROOT, SOCKET, World


@pytest.fixture
def world() -> World:
    return World()


async def test_opening_a_new_project_scaffolds_it_and_starts_a_shell_in_its_only_cell(world: World) -> None:
    runtime = await world.service.open(ROOT)

    assert world.folder.scaffolded == [ROOT]
    assert world.events.of_type(ProjectOpened)[0].root == ROOT
    [leaf] = lay.leaves(runtime.active.root)
    assert leaf.session is not None
    info = runtime.sessions.info(leaf.session)
    assert info.state is SessionState.RUNNING
    spec = world.terminals.terminals[leaf.session].spec
    assert spec is not None and spec.argv == ("/bin/bash",) and spec.cwd == ROOT
    assert spec.env["TERM"] == "xterm-256color" and spec.env["TERM_PROGRAM"] == "IdeA"
    assert world.layouts.documents[ROOT] == runtime.document
    assert [p.root for p in world.user_data.projects.projects] == [ROOT]


async def test_terminals_inherit_what_the_settings_deny_list_lets_through(world: World) -> None:
    world.host.env.update({"TMUX": "/tmp/tmux-1000/default,1,0", "KITTY_PID": "42", "APPIMAGE": "/x/IdeA.AppImage"})

    async def shell_env() -> dict[str, str]:
        runtime = await world.service.open(ROOT)
        [leaf] = lay.leaves(runtime.active.root)
        assert leaf.session is not None
        spec = world.terminals.terminals[leaf.session].spec
        assert spec is not None
        return dict(spec.env)

    assert {"TMUX", "KITTY_PID", "APPIMAGE"}.isdisjoint(await shell_env())  # the default list
    await world.service.close_all()

    world.preferences.update_settings(env_deny_list=("KITTY_PID",))  # the person lets tmux's variables through
    env = await shell_env()
    assert env["TMUX"] == "/tmp/tmux-1000/default,1,0"
    assert "KITTY_PID" not in env and "APPIMAGE" not in env  # packaging variables go whatever the list says


async def test_opening_a_project_points_its_existing_run_dirs_at_this_idea(world: World) -> None:
    world.run_dirs.drifted = [f"{ROOT}/.ideai/run/a/.mcp.json"]

    await world.service.open(ROOT)

    assert world.run_dirs.retargeted == [(ROOT, SOCKET)]
    assert f"[project] retargeted {ROOT}/.ideai/run/a/.mcp.json to this IdeA" in world.diagnostics.lines


async def test_opening_the_same_root_twice_returns_the_same_runtime(world: World) -> None:
    first = await world.service.open(ROOT)
    second = await world.service.open(ROOT + "/")
    assert second is first
    assert len(world.events.of_type(ProjectOpened)) == 1


async def test_a_missing_root_is_refused_with_a_clear_error(world: World) -> None:
    with pytest.raises(AppError) as raised:
        await world.service.open("/nowhere")
    assert raised.value.code is ErrorCode.NOT_FOUND
    assert "/nowhere" in raised.value.message


async def test_a_corrupt_layouts_file_gives_a_default_layout_and_a_visible_problem(world: World) -> None:
    world.layouts.load_error = CorruptFileError(
        f"{ROOT}/.ideai/layouts.json", "invalid JSON at line 1, column 2", f"{ROOT}/.ideai/layouts.json.corrupt-1"
    )
    runtime = await world.service.open(ROOT)

    assert len(lay.leaves(runtime.active.root)) == 1
    [problem] = world.events.of_type(ProjectProblem)
    assert "layouts.json" in problem.message and "corrupt-1" in problem.message
    assert runtime.problems == [problem.message]


async def test_split_starts_a_shell_in_the_new_cell_and_persists(world: World) -> None:
    runtime = await world.service.open(ROOT)
    [first] = lay.leaves(runtime.active.root)

    new_leaf = await runtime.split(first.id, lay.Direction.ROW)

    left, right = lay.leaves(runtime.active.root)
    assert (left.id, right.id) == (first.id, new_leaf)
    assert right.session is not None and runtime.sessions.is_live(right.session)
    assert world.layouts.documents[ROOT] == runtime.document
    assert isinstance(world.events.events[-1], (LayoutChanged, SessionsChanged))


async def test_empty_cells_preference_leaves_new_cells_empty(world: World) -> None:
    world.prefer_empty_cells()
    runtime = await world.service.open(ROOT)
    [leaf] = lay.leaves(runtime.active.root)
    assert leaf.session is None
    await runtime.start_shell(leaf.id)
    assert lay.leaves(runtime.active.root)[0].session is not None


async def test_closing_a_cell_keeps_its_session_in_the_background_unless_asked_to_stop(world: World) -> None:
    runtime = await world.service.open(ROOT)
    [first] = lay.leaves(runtime.active.root)
    second = await runtime.split(first.id, lay.Direction.COLUMN)
    kept = lay.find_leaf(runtime.active.root, second).session

    await runtime.close_cell(second, stop_session=False)

    assert [leaf.id for leaf in lay.leaves(runtime.active.root)] == [first.id]
    assert runtime.sessions.is_live(kept)
    assert [s.id for s in runtime.background_sessions()] == [kept]
    assert not world.terminals.terminals[kept].terminated

    await runtime.attach(first.id, kept)
    assert lay.leaves(runtime.active.root)[0].session == kept


async def test_closing_a_cell_and_stopping_ends_and_releases_its_session(world: World) -> None:
    runtime = await world.service.open(ROOT)
    [first] = lay.leaves(runtime.active.root)
    second = await runtime.split(first.id, lay.Direction.ROW)
    session = lay.find_leaf(runtime.active.root, second).session

    await runtime.close_cell(second, stop_session=True)

    assert world.terminals.terminals[session].terminated
    assert not runtime.sessions.knows(session)
    assert world.terminals.released == [session]


async def test_an_exited_process_stays_visible_until_restarted(world: World) -> None:
    runtime = await world.service.open(ROOT)
    [leaf] = lay.leaves(runtime.active.root)
    world.terminals.terminals[leaf.session].exit(3)

    info = runtime.sessions.info(leaf.session)
    assert (info.state, info.exit_code) == (SessionState.EXITED, 3)
    assert info.describe_end() == "bash exited with code 3"

    restarted = await runtime.restart(leaf.id)
    assert restarted.id != leaf.session and restarted.state is SessionState.RUNNING
    assert lay.leaves(runtime.active.root)[0].session == restarted.id
    assert not runtime.sessions.knows(leaf.session)


async def test_a_program_that_cannot_start_shows_its_error_in_the_cell(world: World) -> None:
    world.terminals.fail_next = "/bin/bash cannot be executed: permission denied"
    runtime = await world.service.open(ROOT)
    [leaf] = lay.leaves(runtime.active.root)
    info = runtime.sessions.info(leaf.session)
    assert info.state is SessionState.FAILED
    assert info.describe_end() == "Could not start bash: /bin/bash cannot be executed: permission denied"


async def test_a_start_refused_by_the_terminal_says_so_once(world: World) -> None:
    world.terminals.fail_next = start_refusal("C:\\Windows\\System32\\cmd.exe", "Invalid handle.")
    runtime = await world.service.open(ROOT)
    [leaf] = lay.leaves(runtime.active.root)
    assert runtime.sessions.info(leaf.session).describe_end() == "Cannot start C:\\Windows\\System32\\cmd.exe: Invalid handle."


async def test_switching_layouts_never_stops_a_session(world: World) -> None:
    runtime = await world.service.open(ROOT)
    [leaf] = lay.leaves(runtime.active.root)
    original = leaf.session
    default_id = runtime.document.active_id

    second_id = await runtime.layouts.create("Review")
    assert runtime.document.active_id == second_id
    [new_leaf] = lay.leaves(runtime.active.root)
    assert new_leaf.session not in (None, original)
    assert runtime.sessions.is_live(original)
    assert [s.id for s in runtime.background_sessions()] == [original]

    await runtime.layouts.activate(default_id)
    assert lay.leaves(runtime.active.root)[0].session == original
    assert not any(t.terminated for t in world.terminals.terminals.values())


async def test_reopening_a_project_gives_fresh_shells_to_cells_that_had_one(world: World) -> None:
    runtime = await world.service.open(ROOT)
    [first] = lay.leaves(runtime.active.root)
    await runtime.split(first.id, lay.Direction.ROW)
    before = runtime.document
    await world.service.close(runtime.id)
    assert all(t.terminated for t in world.terminals.terminals.values())

    reopened = await world.service.open(ROOT)

    assert [leaf.id for leaf in lay.leaves(reopened.active.root)] == [leaf.id for leaf in lay.leaves(before.active.root)]
    for leaf in lay.leaves(reopened.active.root):
        assert reopened.sessions.is_live(leaf.session)
    assert reopened.id == runtime.id


async def test_deleting_the_active_layout_activates_another_and_keeps_sessions(world: World) -> None:
    runtime = await world.service.open(ROOT)
    default_id = runtime.document.active_id
    second_id = await runtime.layouts.create("Second")
    shown = lay.leaves(runtime.active.root)[0].session

    await runtime.layouts.delete(second_id)

    assert runtime.document.active_id == default_id
    assert [layout.id for layout in runtime.document.layouts] == [default_id]
    assert runtime.sessions.is_live(shown)
    with pytest.raises(AppError):
        await runtime.layouts.delete(default_id)


async def test_a_project_opened_twice_at_once_opens_once(world: World) -> None:
    # Restored from the last run and named on the command line: both opens start before either ends.
    first, second = await asyncio.gather(world.service.open(ROOT), world.service.open(ROOT + "/"))

    assert first is second
    assert len(world.events.of_type(ProjectOpened)) == 1
    assert [d.open for d in world.orchestration.opened_doors] == [True]


async def test_a_project_folder_that_cannot_be_written_is_refused_with_the_reason(world: World) -> None:
    world.orchestration.next_door_error = OSError(30, "Read-only file system", f"{ROOT}/.ideai")

    with pytest.raises(AppError) as refused:
        await world.service.open(ROOT)

    assert refused.value.code is ErrorCode.STORE
    assert refused.value.message == f"Cannot prepare {ROOT} for IdeA: Read-only file system"
    assert world.service.open_runtimes() == []


async def test_a_failed_open_can_be_tried_again(world: World) -> None:
    world.orchestration.next_door_error = OSError(30, "Read-only file system", f"{ROOT}/.ideai")
    with pytest.raises(AppError):
        await world.service.open(ROOT)

    runtime = await world.service.open(ROOT)

    assert runtime.root == ROOT


async def test_a_project_opened_from_a_windows_path_is_named_after_its_folder_and_its_shell_after_the_program(
    world: World,
) -> None:
    # As IdeA on Windows gets them: a root with backslashes and the shell's full path.
    root = "C:\\Users\\dev\\shop"
    world.folder.roots.add(root)
    world.host.shell = "C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe"

    runtime = await world.service.open(root)

    assert runtime.record.name == "shop"
    assert [p.name for p in world.user_data.projects.projects] == ["shop"]
    [leaf] = lay.leaves(runtime.active.root)
    assert leaf.session is not None
    assert runtime.sessions.info(leaf.session).label == "powershell"
