"""The inactivity watchdog, the no-reply grace and the quiet heuristic on their own (spec 03 §9.3-§9.4)."""

from __future__ import annotations

import asyncio

from idea.application.orchestrator.rendezvous import (
    QUIET_POLL_MAX_MS,
    WatchdogVerdict,
    activity_progressed,
    no_reply_grace,
    run_inactivity_watchdog,
    watch_for_quiet_return,
)
from idea.application.orchestrator.timing import OrchestratorTimings
from tests.fakes_orchestration import VirtualTime, settle

WINDOW = 1_000


def test_progress_is_judged_per_agent() -> None:
    assert activity_progressed({}, {"a": 1})  # first observation
    assert activity_progressed({"a": 5}, {"a": 6})
    assert activity_progressed({"a": 5}, {"a": 5, "c": 1})  # an agent joined the waited-on set
    assert not activity_progressed({"a": 5}, {"a": 5})
    assert not activity_progressed({"a": 5}, {"a": 4})  # regressed
    assert not activity_progressed({"a": 5}, {})  # token lost: no proof of life
    assert not activity_progressed({"a": 5, "c": 9}, {"a": 5})  # a finished nested ask is not a regression


async def watch(time: VirtualTime, pending: asyncio.Future[object], probe, *, ceiling: int = 10_000):  # type: ignore[no-untyped-def]
    calls: list[tuple[str, int]] = []
    task = asyncio.ensure_future(
        run_inactivity_watchdog(
            pending,
            window_ms=WINDOW,
            ceiling_ms=ceiling,
            started_mono_ms=time.monotonic_ms(),
            timer=time,
            probe=probe,
            on_extended=lambda ms: calls.append(("extended", ms)),
            on_expired=lambda ms: calls.append(("expired", ms)),
            on_ceiling=lambda ms: calls.append(("ceiling", ms)),
        )
    )
    await settle()  # the baseline is taken before the first window
    return task, calls


async def test_a_silent_target_expires_after_one_window() -> None:
    time = VirtualTime()
    pending: asyncio.Future[object] = asyncio.get_running_loop().create_future()
    task, calls = await watch(time, pending, lambda: {"b": 42})

    await time.advance(WINDOW)

    assert task.result() is WatchdogVerdict.NO_PROGRESS and calls == [("expired", WINDOW)]
    assert not pending.done()  # the watchdog never cancels the rendezvous itself


async def test_no_source_at_all_falls_back_to_a_flat_window() -> None:
    time = VirtualTime()
    pending: asyncio.Future[object] = asyncio.get_running_loop().create_future()
    task, _ = await watch(time, pending, dict)

    await time.advance(WINDOW)

    assert task.result() is WatchdogVerdict.NO_PROGRESS


async def test_progress_re_arms_the_window_until_the_outcome_arrives() -> None:
    time = VirtualTime()
    pending: asyncio.Future[object] = asyncio.get_running_loop().create_future()
    token = {"b": 0}
    task, calls = await watch(time, pending, lambda: dict(token))

    for _ in range(5):
        token["b"] += 10
        await time.advance(WINDOW)
    pending.set_result("reply")
    await time.advance(1)

    assert task.result() is WatchdogVerdict.RESOLVED
    assert [kind for kind, _ in calls] == ["extended"] * 5


async def test_progress_at_the_ceiling_is_a_distinct_verdict() -> None:
    time = VirtualTime()
    pending: asyncio.Future[object] = asyncio.get_running_loop().create_future()
    ticks = iter(range(100))
    task, calls = await watch(time, pending, lambda: {"b": next(ticks)}, ceiling=2_500)

    await time.advance(3 * WINDOW)

    assert task.result() is WatchdogVerdict.CEILING_ACTIVE
    assert calls == [("extended", 1000), ("extended", 2000), ("ceiling", 3000)]


async def test_work_of_a_nested_agent_whose_ask_ended_within_the_window_counts() -> None:
    time = VirtualTime()
    pending: asyncio.Future[object] = asyncio.get_running_loop().create_future()
    tokens = {"b": 5, "c": 9}
    chain = {"b", "c"}  # b waits on c
    calls: list[str] = []
    task = asyncio.ensure_future(
        run_inactivity_watchdog(
            pending,
            window_ms=WINDOW,
            ceiling_ms=10_000,
            started_mono_ms=time.monotonic_ms(),
            timer=time,
            probe=lambda: {agent: tokens[agent] for agent in chain},
            on_extended=lambda ms: calls.append("extended"),
            on_expired=lambda ms: calls.append("expired"),
            on_ceiling=lambda ms: calls.append("ceiling"),
            probe_agents=lambda agents: {agent: tokens[agent] for agent in agents},
        )
    )
    await settle()

    tokens["c"] = 12  # c worked, answered b, and left the chain; b has not written yet
    chain.discard("c")
    await time.advance(WINDOW)
    assert calls == ["extended"]

    await time.advance(WINDOW)  # now neither wrote: c is no longer watched
    assert task.result() is WatchdogVerdict.NO_PROGRESS and calls == ["extended", "expired"]


async def test_the_grace_ignores_writes_that_trail_the_turn_end_but_not_continued_work() -> None:
    time = VirtualTime()
    token = {"b": 0}

    async def grow_at(ms: int) -> None:
        await time.sleep(ms)
        token["b"] += 1

    trailing = asyncio.ensure_future(no_reply_grace(time, 2_000, lambda: dict(token)))
    asyncio.ensure_future(grow_at(300))
    await time.advance(2_000)
    assert trailing.result() is True

    continued = asyncio.ensure_future(no_reply_grace(time, 2_000, lambda: dict(token)))
    asyncio.ensure_future(grow_at(1_500))
    await time.advance(2_000)
    assert continued.result() is False


async def test_the_quiet_heuristic_needs_growth_then_quiet_then_idle_children() -> None:
    time = VirtualTime()
    quiet = OrchestratorTimings().no_reply_quiet_ms
    token = {"b": 0}
    cpu = {"seconds": 0.0}
    task = asyncio.ensure_future(
        watch_for_quiet_return(
            timer=time,
            quiet_ms=quiet,
            probe=lambda: dict(token),
            waits_on_others=lambda: False,
            alive=lambda: True,
            cpu_seconds=lambda: cpu["seconds"],
        )
    )
    await time.advance(3 * quiet)
    assert not task.done()  # never grew since the submission: no proof it worked at all

    token["b"] = 10
    await time.advance(quiet // 2)
    cpu["seconds"] = 5.0  # a build it started keeps a CPU busy
    await time.advance(quiet)
    assert not task.done()

    await time.advance(quiet + 5_000)
    assert task.done()


async def test_the_quiet_heuristic_counts_growth_since_the_submission_it_did_not_watch() -> None:
    # A prose answer can be over before the delivery has finished checking that the turn started.
    time = VirtualTime()
    quiet = OrchestratorTimings().no_reply_quiet_ms
    task = asyncio.ensure_future(
        watch_for_quiet_return(
            timer=time,
            quiet_ms=quiet,
            probe=lambda: {"b": 250},
            waits_on_others=lambda: False,
            alive=lambda: True,
            cpu_seconds=lambda: 0.0,
            baseline={"b": 100},
        )
    )
    await time.advance(quiet + QUIET_POLL_MAX_MS)
    assert task.done()
