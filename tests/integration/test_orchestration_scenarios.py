"""Acceptance scenarios of the orchestration core (spec 03 §12, T1-T13), end to end.

Each test bootstraps IdeA with headless PTY terminals, opens a project on its real MCP socket and drives
real bridge and hook-relay subprocesses. The team runs the fake agent CLI (`tests/fake_agent`); Main, the
requester, is either
- the official MCP SDK client started exactly as Main's `.mcp.json` says (T1, T2, T8, T11 and most others),
  Main's own CLI being idle, or
- the fake agent itself, given an `ask <agent> <task>` directive by the person (a human ticket from the UI
  door) for the nested scenarios (T9, T13, T10b).
Setup: Main visible in the only cell, QA and DevFrontend warm in the background, Architect, DevBackend and
Git cold. Timings are shortened through the environment (`scenario_support.FAST_TIMINGS`); every process a
test starts is ended, and checked to be, when it finishes.

Beyond T1-T13: a target the person started an instant before the ask (failure #5 through the UI's launch),
the quiet heuristic of a CLI without turn-end hooks (T5), the file-protocol door, and the real Claude Code
CLI connecting to the project's server (`claude` on PATH; required under IDEA_REQUIRE_REAL_CLIS=1).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from idea.domain.profile import reference_profile_id
from idea.infrastructure.mcp.tools import TOOL_DEFINITIONS
from tests.integration.scenario_support import (
    COLD,
    WAIT_S,
    WARM,
    Scenario,
    ScenarioFactory,
    error_code,
    eventually,
    eventually_async,
    fake_profile,
    file_protocol_profile,
    kill_hard,
    main_waits_while_qa_works,
    requester_client,
    result_text,
    scenario_factory,
)

REQUIRE_REAL_CLIS = "IDEA_REQUIRE_REAL_CLIS"


def require_cli(name: str) -> str:
    """The CLI's path on PATH; absent, the test is skipped, or fails under IDEA_REQUIRE_REAL_CLIS=1."""
    path = shutil.which(name)
    if path is None:
        reason = (
            f"{name} is not on PATH (npm install --prefix <dir> @anthropic-ai/claude-code, then put "
            "<dir>/node_modules/.bin on PATH; .ci/run does)"
        )
        if os.environ.get(REQUIRE_REAL_CLIS) == "1":
            pytest.fail(f"{reason}; {REQUIRE_REAL_CLIS}=1 requires it", pytrace=False)
        pytest.skip(reason)
    return path


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[ScenarioFactory]:
    yield from scenario_factory(tmp_path, monkeypatch)


def test_t1_tools_visible_to_a_launched_agent(world: ScenarioFactory) -> None:
    scenario = world.open()

    async def run() -> tuple[list[dict[str, Any]], dict[str, Any]]:
        async with requester_client(scenario) as client:
            tools = await client.list_tools()
            listed = await client.call_tool("idea_list_agents", {})
            return [tool.model_dump(by_alias=True, exclude_none=True) for tool in tools.tools], json.loads(
                result_text(listed)
            )

    tools, listing = asyncio.run(run())
    assert [tool["name"] for tool in tools] == [definition["name"] for definition in TOOL_DEFINITIONS]
    for tool, definition in zip(tools, TOOL_DEFINITIONS, strict=True):
        assert tool["description"] == definition["description"]
        assert tool["inputSchema"] == definition["inputSchema"]
    assert listing["you"] == "Main"
    agents = {agent["name"]: agent for agent in listing["agents"]}
    for name in WARM:
        assert agents[name]["running"] and agents[name]["bridgeConnected"], agents[name]
    for name in COLD:
        assert not agents[name]["running"] and not agents[name]["bridgeConnected"], agents[name]
    assert scenario.bridge_connections("Main") == 1  # the SDK client, through Main's own bridge


def test_t2_warm_target_trivial_reply(world: ScenarioFactory) -> None:
    scenario = world.open()

    async def run():
        async with requester_client(scenario) as client:
            return await client.call_tool("idea_ask_agent", {"target": "QA", "task": "reply pong"})

    result = asyncio.run(run())
    assert not result.is_error, result_text(result)
    assert result_text(result) == "pong"  # the reply itself, not a window's verdict
    statuses = scenario.statuses("QA")
    assert statuses[-2:] == ["working", "done"]
    assert scenario.queue_depth("QA") == 0 and not scenario.busy("QA")


def test_t3_cold_target(world: ScenarioFactory) -> None:
    scenario = world.open()
    main_cell = scenario.live("Main").node_id
    free_cell = scenario.on_core(scenario.runtime.split(main_cell, "row"))
    assert scenario.live("Architect") is None and scenario.bridge_connections("Architect") == 0

    async def run():
        async with requester_client(scenario) as client:
            return await client.call_tool("idea_ask_agent", {"target": "Architect", "task": "reply pong-cold"})

    result = asyncio.run(run())
    assert not result.is_error, result_text(result)
    assert result_text(result) == "pong-cold"
    assert scenario.bridge_connections("Architect") == 1
    ticket = result.structured_content["ticket"]
    assert scenario.user_prompts("Architect")[0] == (  # the first user record of its transcript, whole
        f"[IdeA · task from Main · ticket {ticket}] reply pong-cold\n\n"
        f'IdeA: when you are done you MUST call idea_reply(result=<your complete answer>, ticket="{ticket}"). '
        "A plain-text answer is not delivered to Main and leaves it waiting."
    )
    assert scenario.live("Architect").node_id == free_cell  # the first empty cell (§13 #19)
    assert scenario.beacons("[cold-start] released agent=Architect")


def test_t3_a_target_the_person_launched_an_instant_before_gets_its_first_task(world: ScenarioFactory) -> None:
    # Failure #5 through the person's door: the person starts Git (the agents panel's Launch), Main asks it
    # at once. The task must wait for the CLI to be ready, not be typed before its prompt exists.
    scenario = world.open()

    async def run():
        async with requester_client(scenario) as client:
            await asyncio.to_thread(scenario.launch, "Git")
            return await client.call_tool("idea_ask_agent", {"target": "Git", "task": "reply fresh-3"})

    result = asyncio.run(run())
    assert result_text(result) == "fresh-3"
    assert scenario.beacons("[cold-start] released agent=Git")  # by the CLI's readiness, not its time limit
    assert not scenario.beacons("[cold-start] degraded")
    assert scenario.user_prompts("Git")[0].startswith("[IdeA · task from Main · ticket ")


def test_t4_background_target_successive_asks(world: ScenarioFactory) -> None:
    scenario = world.open()  # Main fills the only cell: a cold target starts in the background

    async def run() -> list[str]:
        answers = []
        async with requester_client(scenario) as client:
            for index in range(1, 4):
                task = f"reply pong-bg-{index}"
                result = await client.call_tool("idea_ask_agent", {"target": "Git", "task": task})
                assert not result.is_error, result_text(result)
                answers.append(result_text(result))
                pids.append(scenario.pid("Git"))
        return answers

    pids: list[int | None] = []
    assert asyncio.run(run()) == ["pong-bg-1", "pong-bg-2", "pong-bg-3"]
    assert len(set(pids)) == 1 and pids[0] is not None
    assert scenario.live("Git").node_id is None
    assert scenario.bridge_connections("Git") == 1
    git = scenario.id_of("Git")
    assert git not in scenario.layouts_text()
    assert git in scenario.running_text()


# The prose scenarios tell the quiet release (about 1 s) from the inactivity window: the window is made long
# enough that no machine load can blur the two.
PROSE_WINDOW = {"IDEA_ASK_RENDEZVOUS_TIMEOUT_MS": 60_000}


def test_t5_prose_answer_releases_the_requester(world: ScenarioFactory) -> None:
    scenario = world.open(timings=PROSE_WINDOW)

    async def run():
        async with requester_client(scenario) as client:
            return await client.call_tool("idea_ask_agent", {"target": "QA", "task": "prose the answer is 42"})

    result = asyncio.run(run())
    assert result.is_error
    assert error_code(result) == "TARGET_RETURNED_NO_REPLY"  # the turn's end released it, not a window
    assert result_text(result).startswith("IdeA error TARGET_RETURNED_NO_REPLY (retryable):")
    row = scenario.row("QA")
    assert row["status"] == "done" and row["progress"] == "(abandoned: TARGET_RETURNED_NO_REPLY)"
    assert row["ticket"] is None
    assert scenario.row("Main")["status"] == "working"
    assert scenario.queue_depth("QA") == 0


def test_t5_prose_answer_of_a_cli_without_a_turn_end_signal(world: ScenarioFactory) -> None:
    # No hooks: the conservative quiet heuristic (§9.3-2) decides. A turn as short as a prose answer is
    # over before the delivery has finished checking that it started; it still counts as activity.
    scenario = world.open(warm=(), cold=(), timings=PROSE_WINDOW)
    scenario.add_agent("Gemini", fake_profile("Fake without hooks", hooks=False))

    async def run():
        async with requester_client(scenario) as client:
            prose = await client.call_tool("idea_ask_agent", {"target": "Gemini", "task": "prose 42, obviously"})
            work = await client.call_tool("idea_ask_agent", {"target": "Gemini", "task": "work 2 then reply done-5"})
            return prose, work

    prose, work = asyncio.run(run())
    # Released by the quiet heuristic (quiet, then the grace), not by the inactivity window (RENDEZVOUS_TIMEOUT).
    assert error_code(prose) == "TARGET_RETURNED_NO_REPLY", result_text(prose)
    assert scenario.beacons("[rendezvous] turn ended without reply")
    assert result_text(work) == "done-5"  # longer than the quiet period, but never quiet: not released


def test_t6_multi_step_work_is_not_released_early(world: ScenarioFactory) -> None:
    scenario = world.open(timings={"IDEA_ASK_RENDEZVOUS_TIMEOUT_MS": 700})  # shorter than the work

    async def run():
        async with requester_client(scenario) as client:
            started = time.monotonic()
            result = await client.call_tool("idea_ask_agent", {"target": "QA", "task": "work 2 then reply done-6"})
            return result, time.monotonic() - started

    result, elapsed = asyncio.run(run())
    assert not result.is_error, result_text(result)
    assert result_text(result) == "done-6"
    assert elapsed >= 2
    assert scenario.beacons("[rendezvous] window re-armed")
    assert scenario.statuses("QA")[-2:] == ["working", "done"]


def test_t7_long_work_window_and_ceiling(world: ScenarioFactory) -> None:
    # The window stays far above a loaded machine's gaps between two signs of activity (one every 0.2 s); the
    # first task outlives it twice and ends well under the ceiling, the second outlives the ceiling.
    scenario = world.open(timings={"IDEA_ASK_RENDEZVOUS_TIMEOUT_MS": 1_200, "IDEA_ASK_RENDEZVOUS_CEILING_MS": 6_000})

    async def run():
        async with requester_client(scenario) as client:
            task = "work 3 then reply in-time-7"
            in_time = await client.call_tool("idea_ask_agent", {"target": "QA", "task": task})
            cut = await client.call_tool("idea_ask_agent", {"target": "QA", "task": "work 9 then reply late-7"})
            return in_time, cut

    in_time, cut = asyncio.run(run())
    assert not in_time.is_error and result_text(in_time) == "in-time-7"
    # Cut while the target still worked (ACTIVE), its reply recorded late below.
    assert cut.is_error and error_code(cut) == "RENDEZVOUS_CEILING_ACTIVE", result_text(cut)
    assert "(not retryable)" in result_text(cut)
    ticket = cut.structured_content["error"]["ticket"]
    eventually(
        lambda: any(r.get("ticket") == ticket and r.get("late") for r in scenario.conversation_records()),
        "the late reply to be recorded",
    )
    late = next(r for r in scenario.conversation_records() if r.get("ticket") == ticket and r.get("late"))
    assert late["text"] == "late-7"
    closed = eventually(lambda: [t for t, _ in scenario.tool_results("QA") if "TICKET_CLOSED" in t], "TICKET_CLOSED")
    assert "your result was saved and will be shown to Main" in closed[0]
    # ... and delivered to the requester, which is still live, as a ticket that expects no reply.
    delivered = f"[IdeA · late reply from QA · ticket {ticket}] late-7"
    eventually(lambda: delivered in scenario.screen("Main"), "the late reply shown to Main")
    assert scenario.late_replies("Main") == 1


def test_t8_two_concurrent_asks_one_bridge(world: ScenarioFactory) -> None:
    scenario = world.open()

    async def run():
        async with requester_client(scenario) as client:
            return await asyncio.gather(
                client.call_tool("idea_ask_agent", {"target": "DevFrontend", "task": "reply alpha-8"}),
                client.call_tool("idea_ask_agent", {"target": "Git", "task": "reply beta-8"}),
            )

    alpha, beta = asyncio.run(run())
    assert (result_text(alpha), result_text(beta)) == ("alpha-8", "beta-8")
    assert scenario.bridge_connections("Main") == 1
    tickets = [r["ticket"] for r in scenario.conversation_records() if r.get("role") == "prompt"]
    assert len(set(tickets)) == 2


def directive(text: str) -> str:
    """What the person sends Main: a fake agent acts on prompts that carry an IdeA task header."""
    return f"[IdeA · task from you · ticket person-1] {text}"


def test_t9_nested_ask_double_cold_start(world: ScenarioFactory) -> None:
    scenario = world.open(requester="fake")
    scenario.submit_human("Main", directive("ask Architect ask DevBackend reply gamma-9"))

    results = eventually(lambda: scenario.tool_results("Main"), "Main's ask to return", timeout=WAIT_S)
    assert results[0] == ("relay:gamma-9", False)
    assert ("gamma-9", False) in scenario.tool_results("Architect")
    assert scenario.bridge_connections("Architect") == 1 and scenario.bridge_connections("DevBackend") == 1
    assert scenario.row("Architect")["status"] == "done" and scenario.row("DevBackend")["status"] == "done"
    assert "waiting" in scenario.statuses("Architect")  # both rendezvous were live at once


def late_replies(scenario: Scenario, ticket: str) -> list[dict]:
    return [r for r in scenario.conversation_records() if r.get("ticket") == ticket and r.get("late")]


def test_t10a_cancel_from_the_ui(world: ScenarioFactory) -> None:
    scenario = world.open()

    async def run():
        async with requester_client(scenario) as client:
            ask = asyncio.create_task(
                client.call_tool("idea_ask_agent", {"target": "QA", "task": "work 4 then reply late-10"})
            )
            row = await eventually_async(lambda: scenario.row("QA").get("ticket") and scenario.row("QA"), "QA at work")
            assert row["status"] == "working"
            await asyncio.to_thread(scenario.cancel, row["ticket"])
            result = await ask
            replied_meanwhile = late_replies(scenario, row["ticket"])
            after = await client.call_tool("idea_ask_agent", {"target": "QA", "task": "reply after-10"})
            return row["ticket"], result, replied_meanwhile, after

    ticket, result, replied_meanwhile, after = asyncio.run(run())
    assert result.is_error and error_code(result) == "CANCELLED", result_text(result)
    assert "(not retryable)" in result_text(result)
    assert replied_meanwhile == []  # answered at the cancel, while QA still worked: not at QA's reply
    assert result_text(after) == "after-10"  # no phantom busy turn: the queue kept flowing
    ended = [c for c in scenario.history if c.agent == "QA" and c.progress == "(abandoned: CANCELLED)"]
    assert ended and ended[0].status == "done"
    assert "waiting" not in scenario.statuses("Main")[-1:]
    late = eventually(
        lambda: [r for r in scenario.conversation_records() if r.get("ticket") == ticket and r.get("late")],
        "the late reply to be recorded",
    )
    assert late[0]["text"] == "late-10"
    closed = eventually(lambda: [t for t, _ in scenario.tool_results("QA") if "TICKET_CLOSED" in t], "TICKET_CLOSED")
    assert "the delegation was cancelled; your result was saved" in closed[0]


def test_t10b_reconciliation_after_a_crash(world: ScenarioFactory) -> None:
    world.crashed_run(directive("ask QA work 30 then reply never-10b"), main_waits_while_qa_works)
    socket_corpse = list(world.runtime_dir.glob("idea-mcp/*.sock"))
    assert socket_corpse  # a killed IdeA never unlinks its endpoint
    before = json.loads((world.project_dir / ".ideai" / "live-state.json").read_text())["entries"]
    intents = {entry["agentId"]: entry["intent"] for entry in before}

    scenario = world.open(requester="fake", warm=("QA",), cold=(), launch=False)

    for name, was in (("Main", "waiting"), ("QA", "working")):
        row = scenario.row(name)
        assert any(e["agentId"] == row["agentId"] and e["status"] == was for e in before)
        assert row["status"] == "idle"
        assert row["progress"] == "(stale — session not running at restart)"
        assert row["intent"] == intents[row["agentId"]]
        assert row["ticket"] is None and row["lastDelegation"] is None
    assert intents[scenario.id_of("QA")].startswith("task from Main: work 30")
    assert scenario.beacons("[live-state] reconciled stale rows")
    assert scenario.beacons("[mcp] removed stale endpoint")
    scenario.launch("QA")  # the project works again: a launch after the reconciliation
    scenario.wait_bridge("QA")


def test_t11_notifications_cancelled_from_the_client(world: ScenarioFactory) -> None:
    scenario = world.open()

    async def run():
        async with requester_client(scenario) as client:
            ask = asyncio.create_task(
                client.call_tool("idea_ask_agent", {"target": "QA", "task": "work 4 then reply late-11"})
            )
            row = await eventually_async(lambda: scenario.row("QA").get("ticket") and scenario.row("QA"), "QA at work")
            ask.cancel()  # the SDK sends notifications/cancelled for the abandoned request
            with pytest.raises(asyncio.CancelledError):
                await ask
            await eventually_async(
                lambda: scenario.row("QA").get("progress") == "(abandoned: CANCELLED)", "QA's row released"
            )
            replied_meanwhile = late_replies(scenario, row["ticket"])
            still_listing = await client.call_tool("idea_list_agents", {})  # the connection lives on
            return row["ticket"], replied_meanwhile, still_listing

    ticket, replied_meanwhile, listing = asyncio.run(run())
    assert replied_meanwhile == []  # released at the cancel, while QA still worked
    assert not listing.is_error
    assert scenario.row("QA")["status"] == "done"
    assert scenario.row("Main")["status"] == "working"
    assert scenario.beacons(f"ticket={ticket} agent=QA outcome=cancelled cancel=requesterGone")
    late = eventually(
        lambda: [r for r in scenario.conversation_records() if r.get("ticket") == ticket and r.get("late")],
        "the late reply to be recorded",
    )
    assert late[0]["text"] == "late-11"
    eventually(lambda: any("TICKET_CLOSED" in text for text, _ in scenario.tool_results("QA")), "TICKET_CLOSED")


def test_t12_target_killed_during_a_task(world: ScenarioFactory) -> None:
    scenario = world.open()
    first_pid = scenario.pid("QA")

    async def run():
        async with requester_client(scenario) as client:
            ask = asyncio.create_task(
                client.call_tool("idea_ask_agent", {"target": "QA", "task": "work 20 then reply never-12"})
            )
            await eventually_async(lambda: scenario.row("QA").get("status") == "working", "QA at work")
            kill_hard(first_pid)
            result = await ask  # at the death, not after the 20 s of work nor a window (TARGET_DIED says which)
            retry = await client.call_tool("idea_ask_agent", {"target": "QA", "task": "reply back-12"})
            return result, retry

    result, retry = asyncio.run(run())
    assert result.is_error and error_code(result) == "TARGET_DIED", result_text(result)
    assert "(retryable)" in result_text(result)
    exited = [c for c in scenario.history if c.agent == "QA" and c.progress and c.progress.startswith("(exited")]
    assert exited and exited[0].status == "idle" and exited[0].ticket is None
    assert result_text(retry) == "back-12"
    assert scenario.pid("QA") not in (None, first_pid)  # the retry cold-started it
    assert scenario.bridge_connections("QA") == 2


def test_t13_nested_activity_keeps_the_outer_ask_alive(world: ScenarioFactory) -> None:
    # B and C already run: their start-up (seconds on a loaded machine) is no part of this scenario, and
    # the window must stay shorter than C's work.
    scenario = world.open(
        requester="fake",
        warm=("Architect", "DevBackend"),
        cold=("QA", "DevFrontend", "Git"),
        # The window is far longer than the gaps a loaded machine puts between two signs of DevBackend's
        # activity (one every 0.2 s), and still shorter than its work: only re-arming keeps the outer ask.
        timings={"IDEA_ASK_RENDEZVOUS_TIMEOUT_MS": 2500},
    )
    scenario.submit_human("Main", directive("ask Architect ask DevBackend work 6 then reply deep-13"))

    results = eventually(lambda: scenario.tool_results("Main"), "Main's ask to return", timeout=WAIT_S)
    assert results[0] == ("relay:deep-13", False)
    architect = scenario.id_of("Architect")
    main_ticket = next(r["ticket"] for r in scenario.conversation_records() if r.get("target") == architect)
    assert scenario.beacons(f"[rendezvous] window re-armed ticket={main_ticket}")  # kept alive by DevBackend
    assert not scenario.beacons("[rendezvous] no activity")


def test_the_file_protocol_door_serves_a_cli_without_mcp(world: ScenarioFactory) -> None:
    # The third door (spec 03 §6): the target answers through its request folder, and asks through it.
    scenario = world.open(warm=("QA",), cold=())
    scenario.add_agent("Aider", file_protocol_profile())
    inbox = scenario.project_dir / ".ideai" / "requests" / scenario.id_of("Aider") / "in"

    async def run():
        async with requester_client(scenario) as client:
            ask = asyncio.create_task(client.call_tool("idea_ask_agent", {"target": "Aider", "task": "summarise"}))
            ticket = await eventually_async(lambda: scenario.row("Aider").get("ticket"), "the delivery to Aider")
            screen = "".join(scenario.screen("Aider").split())  # rows joined, wrapping undone
            assert f"[IdeA·taskfromMain·ticket{ticket}]summarise" in screen
            assert "".join(f'"{inbox}"'.split()) in screen
            assert '"type":"agent.reply"' in screen
            answer = scenario.write_request("Aider", {"type": "agent.reply", "ticket": ticket, "result": "by-file"})
            return await ask, answer

    result, answer = asyncio.run(run())
    assert result_text(result) == "by-file"
    assert eventually(lambda: scenario.response("Aider", answer), "the reply's response")["ok"]
    asked = scenario.write_request("Aider", {"type": "agent.message", "targetAgent": "qa", "task": "reply via-file"})
    response = eventually(lambda: scenario.response("Aider", asked), "the ask's response")
    assert (response["ok"], response["reply"]) == (True, "via-file")
    eventually(lambda: not list(inbox.glob("*.json")), "each request file to be deleted once answered")


def test_real_claude_reports_the_idea_server_connected(world: ScenarioFactory) -> None:
    claude = require_cli("claude")
    scenario = world.open(warm=(), cold=())
    profile = next(p for p in scenario.app.profiles.reference_profiles() if p.id == reference_profile_id("claude"))
    agent = scenario.add_agent("Claude", profile)
    # The temporary HOME of a person who went through Claude's onboarding and accepted the trust dialog of
    # this agent's run dir once (spec 02 §9): Claude applies the run dir's `enabledMcpjsonServers` only in
    # a trusted folder ("Pending approval" otherwise).
    run_dir = os.path.realpath(scenario.run_dir("Claude"))
    (world.home / ".claude.json").write_text(
        json.dumps({"hasCompletedOnboarding": True, "projects": {run_dir: {"hasTrustDialogAccepted": True}}})
    )
    live = scenario.launch("Claude")
    assert live.node_id is None  # in the background
    sessions = scenario.runtime.sessions
    # The CLI itself loads IdeA's tools, no manual step (T1). Its launch token is valid while it runs: a
    # CLI that quit (offline, signed out) would make the check below fail, so say so plainly.
    eventually(lambda: scenario.bridge_connected("Claude") or scenario.live("Claude") is None, "Claude's bridge", 60)
    if scenario.live("Claude") is None:
        screen = scenario.on_core(live.terminal.screen_text())
        pytest.fail(f"claude exited before connecting to IdeA; its screen:\n{screen}")
    spawn = scenario.sync(lambda: sessions.spawn_spec(sessions.request(live.session_id)))
    assert spawn.argv[0] == claude and spawn.cwd == run_dir

    listed = subprocess.run(
        [claude, "mcp", "list"],
        cwd=spawn.cwd,
        env=dict(spawn.env),  # the agent's own environment: its launch token, the temporary HOME
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
    )
    line = next((text for text in listed.stdout.splitlines() if text.startswith("idea:")), "")
    alive = scenario.live("Claude") is not None
    assert re.search(r"[✓✔] Connected", line), (
        f"`claude mcp list` said {listed.stdout!r} {listed.stderr!r}; agent still running: {alive}; "
        f"its screen: {scenario.screen('Claude') if alive else ''}"
    )
    assert f"--requester {agent.agent_id}" in line
    # `claude mcp list` opened and closed a second connection; the agent's own bridge is still connected.
    assert scenario.bridge_connections("Claude") >= 2
    eventually(lambda: scenario.beacons(f"[mcp] disconnected requester={agent.agent_id}"), "its end to be seen")
    assert scenario.bridge_connected("Claude")
