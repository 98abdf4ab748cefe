"""The team of a project: agents, personas, templates, launching and stopping them — with fakes."""

from __future__ import annotations

import asyncio

import pytest

from idea.application.agents.placement_rules import InBackground, InCell, InFirstEmptyCell
from idea.application.agents.sign_in_cell import open_sign_in
from idea.application.agents.templates import TemplateLink
from idea.application.projects import ProjectRuntime
from idea.application.orchestrator.board import SAVE_DELAY_MS as LIVE_STATE_SAVE_DELAY_MS
from idea.domain import layout as lay
from idea.domain.errors import AppError, ErrorCode
from idea.domain.agent import AgentEntry, AgentManifest
from idea.domain.events import AgentsChanged, ProjectProblem
from idea.domain.orchestration.live_state import LiveEntry, LiveState, WorkStatus
from idea.domain.orchestration.commands import AgentCaller, SetWorkState, Source
from idea.domain.orchestration.events import AgentQueueSnapshot
from idea.domain.profile import reference_profile_id
from idea.domain.session import SessionState
from tests.fakes_orchestration import MemoryLiveStateStore
from tests.world import ROOT, SOCKET, World

CLAUDE = reference_profile_id("claude")
CODEX = reference_profile_id("codex")
GEMINI = reference_profile_id("gemini")


@pytest.fixture
def world() -> World:
    world = World()
    world.prefer_empty_cells()
    return world


async def open_project(world: World) -> ProjectRuntime:
    return await world.service.open(ROOT)


def only_leaf(runtime: ProjectRuntime) -> lay.Leaf:
    [leaf] = lay.leaves(runtime.active.root)
    return leaf


# -- the team --


async def test_creating_an_agent_from_scratch_writes_its_persona_and_manifest_entry(world: World) -> None:
    runtime = await open_project(world)
    agent = await runtime.agents.create("Dev Backend", CLAUDE, "# Role\nBuild the API.")

    assert agent.md_path == "agents/dev-backend.md"
    assert world.personas.files[(ROOT, "agents/dev-backend.md")] == "# Role\nBuild the API."
    assert world.manifests.manifests[ROOT].agents == (agent,)
    assert world.events.of_type(AgentsChanged)[-1].manifest.agents == (agent,)


@pytest.mark.parametrize(
    ("name", "message"),
    [("", "empty"), ("  ", "empty"), ("main", "already"), ("Bad/Name", "letters")],
)
async def test_agent_names_are_validated(world: World, name: str, message: str) -> None:
    runtime = await open_project(world)
    await runtime.agents.create("Main", CLAUDE, "")
    with pytest.raises(AppError) as raised:
        await runtime.agents.create(name, CLAUDE, "")
    assert raised.value.code is ErrorCode.INVALID
    assert message in raised.value.message.lower()


async def test_an_unknown_profile_is_refused(world: World) -> None:
    runtime = await open_project(world)
    with pytest.raises(AppError) as raised:
        await runtime.agents.create("Main", "9d0f9b6e-0000-4000-8000-000000000000", "")
    assert "profile" in raised.value.message


async def test_deleting_an_agent_keeps_its_persona_in_the_trash_and_refuses_a_running_one(world: World) -> None:
    runtime = await open_project(world)
    agent = await runtime.agents.create("QA", CLAUDE, "test everything")
    await runtime.placement.launch(agent.agent_id, InBackground())
    with pytest.raises(AppError) as raised:
        await runtime.agents.delete(agent.agent_id)
    assert "stop it" in raised.value.message

    await runtime.placement.stop(agent.agent_id)
    kept = await runtime.agents.delete(agent.agent_id)

    assert kept == f"agents/.deleted/qa-{world.clock.now}.md"
    assert world.personas.files[(ROOT, kept)] == "test everything"
    assert runtime.agents.manifest().agents == ()


async def test_the_orchestrator_is_the_first_agent_until_another_is_designated(world: World) -> None:
    runtime = await open_project(world)
    main = await runtime.agents.create("Main", CLAUDE, "")
    architect = await runtime.agents.create("Architect", CODEX, "")
    assert runtime.agents.manifest().effective_orchestrator() == main
    await runtime.agents.set_orchestrator(architect.agent_id)
    assert runtime.agents.manifest().effective_orchestrator().agent_id == architect.agent_id
    assert world.manifests.manifests[ROOT].orchestrator == architect.agent_id


# -- templates --


async def test_a_synchronized_agent_follows_its_template_unless_edited_locally(world: World) -> None:
    runtime = await open_project(world)
    template = world.templates.create("Reviewer", "Reviews changes", "v1 body", CLAUDE)
    synced = await runtime.agents.create("QA", CLAUDE, "", template=template, synchronized=True)
    edited = await runtime.agents.create("QA2", CLAUDE, "", template=template, synchronized=True)
    manual = await runtime.agents.create("QA3", CLAUDE, "", template=template, synchronized=False)
    await runtime.agents.update_persona(edited.agent_id, "v1 body, with my notes")

    world.templates.update(template.id, "v2 body")
    assert await runtime.agents.sync_templates() == ["QA"]

    assert runtime.agents.persona(synced.agent_id) == "v2 body"
    assert runtime.agents.agent(synced.agent_id).template_version == 2
    assert runtime.agents.persona(edited.agent_id) == "v1 body, with my notes"
    assert runtime.agents.template_status(edited.agent_id).link is TemplateLink.LOCAL_EDITS
    assert runtime.agents.template_status(manual.agent_id).link is TemplateLink.UPDATE_AVAILABLE

    await runtime.agents.pull_template(manual.agent_id)
    assert runtime.agents.persona(manual.agent_id) == "v2 body"
    assert runtime.agents.template_status(manual.agent_id).link is TemplateLink.CURRENT


async def test_opening_a_project_syncs_its_agents_with_newer_templates(world: World) -> None:
    runtime = await open_project(world)
    template = world.templates.create("Git", "", "old", CLAUDE)
    agent = await runtime.agents.create("Git", CLAUDE, "", template=template, synchronized=True)
    await world.service.close(runtime.id)
    world.templates.update(template.id, "new")

    reopened = await open_project(world)
    assert reopened.agents.persona(agent.agent_id) == "new"


async def test_save_as_template_creates_version_one_with_the_persona(world: World) -> None:
    runtime = await open_project(world)
    agent = await runtime.agents.create("Main", CLAUDE, "orchestrate")
    record = await runtime.agents.save_as_template(agent.agent_id, "Lead", "Leads the team")
    assert (record.name, record.version, record.default_profile_id) == ("Lead", 1, CLAUDE)
    assert world.templates.body(record.id) == "orchestrate"


# -- launching --


async def test_launch_in_a_cell_runs_the_cli_in_its_run_dir_with_identity_and_secret(world: World) -> None:
    runtime = await open_project(world)
    agent = await runtime.agents.create("Main", CLAUDE, "lead the team")
    cell = only_leaf(runtime).id

    live = await runtime.placement.launch(agent.agent_id, InCell(cell))

    [request] = world.run_dirs.requests
    assert request.bridge is not None and request.bridge.endpoint == SOCKET and request.bridge.token == "token-1"
    assert "lead the team" in request.convention_text and "You are Main (MCP)." in request.convention_text
    spec = world.terminals.terminals[live.session_id].spec
    run_dir = f"{ROOT}/.ideai/run/{agent.agent_id}"
    assert spec.cwd == run_dir
    assert spec.argv[0] == "/usr/bin/claude"
    assert spec.argv[-2] == "--session-id"
    assert spec.env["IDEA_AGENT_ID"] == agent.agent_id and spec.env["IDEA_MCP_TOKEN"] == "token-1"
    assert spec.env["IDEA_RUN_DIR"] == run_dir and spec.env["FROM_RUN_DIR"] == "1"
    leaf = only_leaf(runtime)
    assert (leaf.agent, leaf.session, leaf.agent_was_running) == (agent.agent_id, live.session_id, True)
    assert live.node_id == cell
    assert runtime.runner.verify_token(agent.agent_id, "token-1")
    assert not runtime.runner.verify_token(agent.agent_id, "token-2")


async def test_the_assigned_session_id_is_stored_and_resumed_at_the_next_launch(world: World) -> None:
    runtime = await open_project(world)
    agent = await runtime.agents.create("Main", CLAUDE, "")
    first = await runtime.placement.launch(agent.agent_id, InBackground())
    assigned = world.terminals.terminals[first.session_id].spec.argv[-1]
    engine = world.providers.load(ROOT).engine_session_for(agent.agent_id, "claude")
    assert engine == assigned

    await runtime.placement.stop(agent.agent_id)
    second = await runtime.placement.launch(agent.agent_id, InBackground())
    assert world.terminals.terminals[second.session_id].spec.argv[-2:] == ("--resume", assigned)


async def test_a_cli_that_restarts_before_its_session_is_given_no_id_and_resumes_the_one_it_reports(
    world: World,
) -> None:
    runtime = await open_project(world)
    agent = await runtime.agents.create("Main", CLAUDE, "")
    world.run_dirs.session_assignable = False
    first = await runtime.placement.launch(agent.agent_id, InBackground())
    argv = world.terminals.terminals[first.session_id].spec.argv
    assert "--session-id" not in argv and "--resume" not in argv
    assert world.providers.load(ROOT).engine_session_for(agent.agent_id, "claude") is None
    # Its own id, from its hooks once it runs.
    own = "4c1d8e2a-7b3f-4a9e-8d2c-1f0e9a8b7c6d"
    runtime.orchestrator.hook_event(agent.agent_id, "claude", "SessionStart", {"session_id": own, "source": "startup"})
    await runtime.placement.stop(agent.agent_id)
    second = await runtime.placement.launch(agent.agent_id, InBackground())
    assert world.terminals.terminals[second.session_id].spec.argv[-2:] == ("--resume", own)  # a resume stays


async def test_one_agent_is_one_live_session(world: World) -> None:
    runtime = await open_project(world)
    agent = await runtime.agents.create("Main", CLAUDE, "")
    cell = only_leaf(runtime).id
    other = await runtime.split(cell, lay.Direction.ROW)

    first = await runtime.placement.launch(agent.agent_id, InCell(cell))
    again = await runtime.placement.launch(agent.agent_id, InBackground())
    assert again.session_id == first.session_id
    assert len(world.terminals.terminals) == 1

    with pytest.raises(AppError) as raised:
        await runtime.placement.launch(agent.agent_id, InCell(other))
    assert raised.value.code is ErrorCode.AGENT_ALREADY_RUNNING
    assert raised.value.data == {"nodeId": cell}


async def test_a_background_agent_attaches_to_a_cell_with_the_same_process(world: World) -> None:
    runtime = await open_project(world)
    agent = await runtime.agents.create("Architect", CODEX, "")
    live = await runtime.placement.launch(agent.agent_id, InBackground())
    assert live.node_id is None
    assert runtime.background_sessions()[0].id == live.session_id

    cell = only_leaf(runtime).id
    await runtime.placement.attach(agent.agent_id, InCell(cell))

    attached = runtime.runner.live(agent.agent_id)
    assert (attached.session_id, attached.node_id) == (live.session_id, cell)
    assert len(world.terminals.terminals) == 1

    await runtime.placement.send_to_background(agent.agent_id)
    assert runtime.runner.live(agent.agent_id).node_id is None
    assert only_leaf(runtime).is_empty


async def test_visible_launch_takes_the_first_empty_cell(world: World) -> None:
    runtime = await open_project(world)
    agent = await runtime.agents.create("QA", GEMINI, "")
    live = await runtime.placement.start(agent.agent_id, InFirstEmptyCell(), reason="launch")
    assert live.node_id == only_leaf(runtime).id
    request = world.run_dirs.requests[0]
    assert request.profile.materializes_idea_bridge()  # Gemini CLI reads IdeA's server in its settings
    assert request.bridge is not None


async def test_stopping_an_agent_ends_its_process_and_frees_its_cell(world: World) -> None:
    runtime = await open_project(world)
    agent = await runtime.agents.create("Main", CLAUDE, "")
    live = await runtime.placement.launch(agent.agent_id, InCell(only_leaf(runtime).id))

    await runtime.placement.stop(agent.agent_id)

    assert world.terminals.terminals[live.session_id].terminated
    assert only_leaf(runtime).is_empty
    assert runtime.runner.live(agent.agent_id) is None
    assert world.running.load(ROOT).agents == ()


async def test_a_cli_missing_from_path_gives_a_clear_error_and_no_process(world: World) -> None:
    runtime = await open_project(world)
    world.host.installed.discard("codex")
    agent = await runtime.agents.create("Architect", CODEX, "")
    with pytest.raises(AppError) as raised:
        await runtime.placement.launch(agent.agent_id, InBackground())
    assert raised.value.code is ErrorCode.PROCESS
    assert raised.value.message == (
        "Codex (codex) is not installed or not on PATH. Install it, or give its full path in the profile "
        "(Agents ▸ Profiles)."
    )
    assert world.terminals.terminals == {}


async def test_a_cli_that_exits_at_once_shows_its_exit_in_the_cell(world: World) -> None:
    runtime = await open_project(world)
    agent = await runtime.agents.create("Main", CLAUDE, "")
    live = await runtime.placement.launch(agent.agent_id, InCell(only_leaf(runtime).id))
    world.terminals.terminals[live.session_id].exit(1)

    info = runtime.sessions.info(live.session_id)
    assert (info.state, info.exit_code) == (SessionState.EXITED, 1)
    assert only_leaf(runtime).session == live.session_id
    assert runtime.runner.live(agent.agent_id) is None
    assert not runtime.runner.verify_token(agent.agent_id, "token-1")


async def test_agents_running_at_close_are_offered_for_resume_at_reopen(world: World) -> None:
    runtime = await open_project(world)
    main = await runtime.agents.create("Main", CLAUDE, "")
    architect = await runtime.agents.create("Architect", CODEX, "")
    cell = only_leaf(runtime).id
    await runtime.placement.launch(main.agent_id, InCell(cell))
    await runtime.placement.launch(architect.agent_id, InBackground())
    await world.service.close(runtime.id)

    reopened = await open_project(world)
    candidates = reopened.runner.resumable()

    assert [(c.name, c.node_id) for c in candidates] == [("Main", cell), ("Architect", None)]
    assert only_leaf(reopened).session is None and only_leaf(reopened).agent == main.agent_id

    await reopened.placement.forget_resume([c.agent_id for c in candidates])
    assert reopened.runner.resumable() == []


async def test_changing_the_profile_relaunches_in_the_same_cell(world: World) -> None:
    runtime = await open_project(world)
    agent = await runtime.agents.create("Main", CLAUDE, "")
    cell = only_leaf(runtime).id
    first = await runtime.placement.launch(agent.agent_id, InCell(cell))

    await runtime.placement.change_profile(agent.agent_id, CODEX)

    second = runtime.runner.live(agent.agent_id)
    assert second.session_id != first.session_id and second.node_id == cell
    assert world.terminals.terminals[second.session_id].spec.argv[0] == "/usr/bin/codex"
    assert runtime.agents.agent(agent.agent_id).profile_id == CODEX


async def test_an_agent_cli_that_quits_by_itself_has_its_leftovers_ended(world: World) -> None:
    # Codex leaves its app-server daemon running after its TUI quits; the exited session is terminated
    # so that whatever carries the agent's marker ends too.
    runtime = await open_project(world)
    agent = await runtime.agents.create("Architect", CODEX, "")
    live = await runtime.placement.launch(agent.agent_id, InBackground())
    terminal = world.terminals.terminals[live.session_id]

    terminal.exit(0)
    await asyncio.sleep(0)

    assert terminal.terminated


async def test_a_stdin_profile_is_told_to_read_its_context_once_ready(world: World) -> None:
    runtime = await open_project(world)
    profile = world.profiles.profile(GEMINI).with_changes(
        {"id": "0b9d3c3e-0000-4000-8000-00000000abcd", "name": "Reads stdin", "contextInjection": {"strategy": "stdin"}}
    )
    world.profiles.save_profile(profile)
    world.run_dirs.first_turn = "Read /work/demo/.ideai/run/x/IDEA_CONTEXT.md now: it contains your role and IdeA's rules."
    agent = await runtime.agents.create("Scout", profile.id, "")
    await runtime.placement.launch(agent.agent_id, InBackground())

    def queue() -> AgentQueueSnapshot:
        return next(q for q in runtime.orchestrator.queue_snapshots() if q.agent_id == agent.agent_id)

    for _ in range(500):  # the ticket is queued once its prompt turn is recorded (on a worker thread)
        if queue().tickets:
            break
        await asyncio.sleep(0.01)
    assert [t.task_preview for t in queue().tickets] == [world.run_dirs.first_turn[:160]]


async def test_trusting_run_dirs_follows_the_setting(world: World) -> None:
    runtime = await open_project(world)
    agent = await runtime.agents.create("Main", CLAUDE, "")
    await runtime.placement.launch(agent.agent_id, InBackground())
    world.preferences.update_settings(trust_run_dirs_automatically=True)
    await runtime.placement.stop(agent.agent_id)
    await runtime.placement.launch(agent.agent_id, InBackground())
    assert [r.trust_run_dir for r in world.run_dirs.requests] == [False, True]


async def test_agents_sharing_an_id_are_repaired_at_open_and_the_person_is_told(world: World) -> None:
    shared = "a6ced819-b893-4213-b003-9e9dc79b9641"
    claude = world.profiles.profiles()[0].id
    world.manifests.manifests[ROOT] = AgentManifest(agents=(
        AgentEntry(agent_id=shared, name="Main", md_path="agents/main.md", profile_id=claude),
        AgentEntry(agent_id=shared, name="Main copy", md_path="agents/main.md", profile_id=claude),
    ), orchestrator=shared)
    world.personas.files[(ROOT, "agents/main.md")] = "# Main\n"

    runtime = await world.service.open(ROOT)

    main, copy = runtime.agents.manifest().agents
    assert main.agent_id == shared and copy.agent_id != shared
    assert runtime.agents.manifest().effective_orchestrator() == main  # only one row is the orchestrator
    assert world.manifests.manifests[ROOT] == runtime.agents.manifest()  # the repair is saved
    assert world.personas.files[(ROOT, "agents/main.md")] == "# Main\n"
    assert world.personas.files[(ROOT, copy.md_path)] == "# Main\n"
    [told] = [e.message for e in world.events.of_type(ProjectProblem) if "same id" in e.message]
    assert "'Main copy' had the id" in told and "removed no agent or persona" in told


async def test_deleting_an_agent_clears_its_cells_in_every_layout_and_its_live_state_row(world: World) -> None:
    runtime = await open_project(world)
    agent = await runtime.agents.create("QA", CLAUDE, "test everything")
    other = await runtime.agents.create("Dev", CLAUDE, "build")
    await runtime.placement.launch(agent.agent_id, InCell(only_leaf(runtime).id))
    await runtime.layouts.duplicate(runtime.active.id, "Copy")  # a second layout pins it too
    for declaring in (agent, other):
        await runtime.orchestrator.dispatch(  # raises when refused
            AgentCaller(declaring.agent_id), SetWorkState(WorkStatus.WORKING, intent="tests"), Source.MCP
        )
    runtime.orchestrator.forget_agent("nobody")  # forgetting an unknown row changes nothing
    await runtime.placement.stop(agent.agent_id)
    saves = world.layouts.saves

    await runtime.agents.delete(agent.agent_id)

    for layout in runtime.document.layouts:
        assert all(leaf.agent is None and not leaf.agent_was_running for leaf in lay.leaves(layout.root))
    assert world.layouts.saves == saves + 1  # one gesture, one save
    assert world.layouts.documents[ROOT] == runtime.document
    assert [row.agent_id for row in runtime.orchestrator.work_state_rows(excluding="")] == [other.agent_id]
    await world.time.advance(LIVE_STATE_SAVE_DELAY_MS)  # the file follows the board
    assert [e.agent_id for e in world.orchestration.live_states[ROOT].load().entries] == [other.agent_id]


async def test_cells_and_rows_of_an_agent_deleted_just_before_a_crash_are_cleared_at_open(world: World) -> None:
    ghost = "0000dead-0000-4000-8000-000000000000"
    leaf = lay.Leaf("leaf-1", agent=ghost, agent_was_running=True)
    world.layouts.documents[ROOT] = lay.LayoutDocument("layout-1", (lay.Layout("layout-1", "Default", leaf),))
    world.orchestration.live_states[ROOT] = MemoryLiveStateStore(
        LiveState((LiveEntry(agent_id=ghost, status=WorkStatus.WORKING, updated_at_ms=world.clock.now_ms()),))
    )

    runtime = await open_project(world)

    assert all(leaf.agent is None for leaf in lay.leaves(runtime.active.root))
    assert world.layouts.documents[ROOT] == runtime.document
    await world.time.advance(LIVE_STATE_SAVE_DELAY_MS)  # the file follows the board
    assert world.orchestration.live_states[ROOT].load().entries == ()
    assert world.events.of_type(ProjectProblem) == []  # a repair of IdeA's own half-finished change: nothing to tell
async def test_a_cli_without_credentials_started_by_the_person_starts_and_says_what_to_do(world: World) -> None:
    from idea.domain.events import ProjectProblem

    runtime = await open_project(world)
    agent = await runtime.agents.create("Main", CLAUDE, "")
    world.sign_in.signed_out.add("claude")
    live = await runtime.placement.launch(agent.agent_id, InCell(only_leaf(runtime).id))
    assert live is not None
    [problem] = [e for e in world.events.events if isinstance(e, ProjectProblem)]
    assert problem.message.startswith("Claude Code is not signed in for agent Main. Run `claude login`")


async def test_a_delegation_to_a_cli_without_credentials_is_refused_with_what_to_do(world: World) -> None:
    from idea.domain.orchestration.commands import AgentCaller, AskAgent, Source

    runtime = await open_project(world)
    main = await runtime.agents.create("Main", CLAUDE, "")
    await runtime.agents.create("Reviewer", CODEX, "")
    await runtime.placement.launch(main.agent_id, InBackground())
    world.sign_in.signed_out.add("codex")
    with pytest.raises(AppError) as refused:
        await runtime.orchestrator.dispatch(AgentCaller(main.agent_id), AskAgent("Reviewer", "review"), Source.MCP)
    assert refused.value.code is ErrorCode.PROCESS
    assert refused.value.message.startswith("Codex is not signed in for agent Reviewer. Run `codex login`")
    assert runtime.runner.live(runtime.agents.manifest().by_name("Reviewer").agent_id) is None  # type: ignore[union-attr]


async def test_the_sign_in_of_a_cli_without_credentials_runs_in_a_cell_beside_the_agent(world: World) -> None:
    runtime = await open_project(world)
    reviewer = await runtime.agents.create("Reviewer", CODEX, "")
    world.sign_in.signed_out.add("codex")

    session = await open_sign_in(runtime, runtime.runner, reviewer.agent_id)

    spec = world.terminals.terminals[session].spec
    assert spec is not None and spec.argv == ("codex", "login") and spec.cwd == ROOT
    assert spec.env["CODEX_HOME"] == "/home/dev/.codex"
    assert runtime.sessions.info(session).label == "sign in · Codex"
    assert any(leaf.session == session for leaf in lay.leaves(runtime.active.root))  # shown, in the empty cell
    assert runtime.runner.live(reviewer.agent_id) is None  # the agent itself is not started

    world.sign_in.can_log_in = False
    with pytest.raises(AppError) as refused:
        await open_sign_in(runtime, runtime.runner, reviewer.agent_id)
    assert refused.value.message == (
        "IdeA cannot run the sign-in of Codex for Reviewer in a cell: run `codex login`, then start the agent again."
    )


async def test_a_session_the_cli_started_itself_is_recorded_for_its_conversation_and_resumed(world: World) -> None:
    """After `/clear` (or a session chosen inside the CLI), the hooks name a new session: it is the one
    resumed next time, by its id."""
    runtime = await open_project(world)
    agent = await runtime.agents.create("Main", CLAUDE, "")
    await runtime.placement.launch(agent.agent_id, InBackground())
    fresh = "7d9c0b6e-1f2a-4b3c-8d4e-5f6a7b8c9d0e"
    runtime.orchestrator.hook_event(agent.agent_id, "claude", "SessionStart", {"session_id": fresh, "source": "clear"})
    assert world.providers.load(ROOT).engine_session_for(agent.agent_id, "claude") == fresh

    await runtime.placement.stop(agent.agent_id)
    again = await runtime.placement.launch(agent.agent_id, InBackground())
    assert world.terminals.terminals[again.session_id].spec.argv[-2:] == ("--resume", fresh)


async def test_lr13_the_resume_offer_lists_background_agents_says_what_resuming_means_and_starts_nothing_alone(
    world: World,
) -> None:
    from idea.domain.agent_states.resume_offer import ResumeChoice

    runtime = await open_project(world)
    main = await runtime.agents.create("Main", CLAUDE, "")
    scout = await runtime.agents.create("Scout", GEMINI, "")
    cell = only_leaf(runtime).id
    await runtime.placement.launch(main.agent_id, InCell(cell))
    await runtime.placement.launch(scout.agent_id, InBackground())
    runtime.runner.note_limit(main.agent_id, 1_781_380_000_000)
    first_main_session = world.providers.load(ROOT).engine_session_for(main.agent_id, "claude")
    await world.service.close(runtime.id)

    reopened = await open_project(world)
    candidates = {c.name: c for c in reopened.runner.resumable()}
    assert candidates["Scout"].node_id is None  # from running.json: no cell remembers it
    assert candidates["Main"].native_resume and candidates["Main"].limited_until_ms == 1_781_380_000_000
    assert candidates["Scout"].native_resume  # Gemini: IdeA assigned its session id, resumed by --resume
    assert reopened.runner.live(main.agent_id) is None and reopened.runner.live(scout.agent_id) is None

    failures = await reopened.placement.apply_resume(
        [(candidates["Main"], ResumeChoice.FRESH), (candidates["Scout"], ResumeChoice.RESUME)], spacing_ms=0
    )
    assert failures == []
    main_argv = world.terminals.terminals[reopened.runner.live(main.agent_id).session_id].spec.argv  # type: ignore[union-attr]
    scout_argv = world.terminals.terminals[reopened.runner.live(scout.agent_id).session_id].spec.argv  # type: ignore[union-attr]
    assert "--resume" not in main_argv and main_argv[-2] == "--session-id" and main_argv[-1] != first_main_session
    assert scout_argv[-2] == "--resume"
    assert reopened.runner.resumable() == []
