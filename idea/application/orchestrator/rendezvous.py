"""The bounded-time guarantee of a delegation (spec 03 §9), implemented once, in the application layer, for
every door (original failure #14: a fix first went into the MCP adapter while the timer that fired lived
here).

- `run_inactivity_watchdog` races a pending outcome against an inactivity window re-armed on progress,
  under an absolute ceiling (§9.4).
- `no_reply_grace` is the last step of the no-reply backstop (§9.3-2): after the turn that processed a
  ticket ended without idea_reply, a short grace lets a late reply win and an agent that continued cancel.
- `watch_for_quiet_return` is the conservative heuristic for CLIs without an authoritative turn-end signal.

Activity is observed as a snapshot `{agent id: token}` over the target and every agent it transitively
waits on. Progress means some agent's token grew (or appeared): comparing per agent rather than a plain
sum keeps a finished nested ask (whose agent leaves the set) from looking like a regression. An agent that
left the set during a window is still looked at once more, so the work it did in that window counts.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Collection, Mapping
from enum import Enum
from typing import Any

from idea.application.orchestrator.ports import Timer

ActivitySnapshot = Mapping[str, int]
CPU_BUSY_FRACTION = 0.01  # descendants using 1 % of a CPU or more are still working
QUIET_POLLS_PER_WINDOW = 4
QUIET_POLL_MAX_MS = 5_000


def activity_progressed(before: ActivitySnapshot | None, after: ActivitySnapshot) -> bool:
    """True when some token in `after` grew since `before` or is observed for the first time. An empty
    `after` (every token lost) is no proof of life."""
    return any(before is None or agent not in before or token > before[agent] for agent, token in after.items())


class WatchdogVerdict(Enum):
    RESOLVED = "resolved"
    NO_PROGRESS = "noProgress"
    CEILING_ACTIVE = "ceilingActive"


async def wait_done(future: asyncio.Future[Any], timer: Timer, timeout_ms: int) -> bool:
    """Wait up to `timeout_ms` for `future`; never cancels it. True when it is done."""
    if future.done():
        return True
    sleeper = asyncio.ensure_future(timer.sleep(timeout_ms))
    try:
        await asyncio.wait({future, sleeper}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        sleeper.cancel()
    return future.done()


async def run_inactivity_watchdog(
    pending: asyncio.Future[Any],
    *,
    window_ms: int,
    ceiling_ms: int,
    started_mono_ms: int,
    timer: Timer,
    probe: Callable[[], ActivitySnapshot],
    on_extended: Callable[[int], None],
    on_expired: Callable[[int], None],
    on_ceiling: Callable[[int], None],
    probe_agents: Callable[[Collection[str]], ActivitySnapshot] | None = None,
) -> WatchdogVerdict:
    """Wait for `pending` one window at a time (the future is kept across windows, never restarted nor
    cancelled). At each expiry: progress under the ceiling re-arms the window; progress at or past the
    ceiling is CEILING_ACTIVE; no progress is NO_PROGRESS. Worst case about ceiling + window.

    `probe_agents` gives the tokens of named agents: the agents of the previous snapshot that `probe` no
    longer covers (their nested ask ended within the window) are judged on what they did in it (T13: C
    works, replies to B a moment before the window ends, B has not written yet; A's ask is not idle)."""
    last: ActivitySnapshot = probe()
    while True:
        if await wait_done(pending, timer, window_ms):
            return WatchdogVerdict.RESOLVED
        elapsed = timer.monotonic_ms() - started_mono_ms
        now = probe()
        departed = [agent for agent in last if agent not in now]
        observed = {**probe_agents(departed), **now} if departed and probe_agents is not None else now
        if activity_progressed(last, observed):
            if elapsed >= ceiling_ms:
                on_ceiling(elapsed)
                return WatchdogVerdict.CEILING_ACTIVE
            on_extended(elapsed)
            last = now
            continue
        on_expired(elapsed)
        return WatchdogVerdict.NO_PROGRESS


async def no_reply_grace(timer: Timer, grace_ms: int, probe: Callable[[], ActivitySnapshot]) -> bool:
    """True when the no-reply verdict stands after the grace.

    Writes that trail the end of a turn (Claude's stop-hook summary, Codex's token counts) land in the
    first half of the grace; an agent that continued working is still writing in the second half, and
    only that cancels the verdict. A reply during the grace ends the ticket, which cancels this task.
    """
    first_half = grace_ms // 2
    await timer.sleep(first_half)
    midway = probe()
    await timer.sleep(grace_ms - first_half)
    return not activity_progressed(midway, probe())


async def watch_for_quiet_return(
    *,
    timer: Timer,
    quiet_ms: int,
    probe: Callable[[], ActivitySnapshot],
    waits_on_others: Callable[[], bool],
    alive: Callable[[], bool],
    cpu_seconds: Callable[[], float | None],
    baseline: ActivitySnapshot | None = None,
) -> None:
    """Return once the target looks back at its prompt without a turn-end signal (§9.3-2 heuristic): its
    activity grew at least once since the submission, then stayed still for `quiet_ms`, it waits on no
    other agent, its process lives, and the processes it started used under 1 % CPU over that period.
    Returns never for a dead process: its exit ends the ticket. `baseline`: the activity at the submission,
    when it was taken before this watch started (growth since then counts)."""
    poll_ms = max(1, min(QUIET_POLL_MAX_MS, quiet_ms // QUIET_POLLS_PER_WINDOW))
    last = baseline if baseline is not None else probe()
    grew_once = False
    still_since = timer.monotonic_ms()
    cpu_at_still = cpu_seconds()
    while True:
        await timer.sleep(poll_ms)
        now_ms = timer.monotonic_ms()
        current = probe()
        if activity_progressed(last, current) or waits_on_others() or not alive():
            grew_once = grew_once or activity_progressed(last, current)
            last, still_since, cpu_at_still = current, now_ms, cpu_seconds()
            continue
        if not grew_once or now_ms - still_since < quiet_ms:
            continue
        cpu_now = cpu_seconds()
        children_busy = (
            cpu_at_still is not None
            and cpu_now is not None
            and (cpu_now - cpu_at_still) * 1000 >= CPU_BUSY_FRACTION * (now_ms - still_since)
        )
        if children_busy:  # a build or test run it started is still going
            still_since, cpu_at_still = now_ms, cpu_now
            continue
        return
