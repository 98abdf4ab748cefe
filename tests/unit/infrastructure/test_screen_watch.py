"""The screen watch of a live agent: blocking prompts appear and leave, limits from output and screen."""

from __future__ import annotations

import asyncio
import heapq
import itertools
import json
from collections.abc import Callable
from datetime import datetime
from zoneinfo import ZoneInfo

from idea.domain.profile import Profile
from idea.infrastructure.limits.detector import LimitMatch
from idea.infrastructure.limits.screen_watch import AgentScreenWatch
from idea.infrastructure.resources import resources_dir
from tests.fakes import FakeTerminal, RecordingDiagnostics

PARIS = ZoneInfo("Europe/Paris")
NOW = int(datetime(2026, 6, 17, 10, 0, tzinfo=PARIS).timestamp() * 1000)


class VirtualTimer:
    def __init__(self) -> None:
        self.mono = 0
        self._sleepers: list[tuple[int, int, asyncio.Future[None]]] = []
        self._order = itertools.count()

    def monotonic_ms(self) -> int:
        return self.mono

    async def sleep(self, ms: int) -> None:
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._sleepers, (self.mono + ms, next(self._order), future))
        await future

    async def advance(self, ms: int) -> None:
        target = self.mono + ms
        await settle()
        while self._sleepers and self._sleepers[0][0] <= target:
            deadline, _, future = heapq.heappop(self._sleepers)
            self.mono = max(self.mono, deadline)
            future.set_result(None)
            await settle()
        self.mono = target
        await settle()


async def settle() -> None:
    for _ in range(10):
        await asyncio.sleep(0)


def shipped(name: str) -> Profile:
    data = json.loads((resources_dir() / "profiles" / "reference-profiles.json").read_text(encoding="utf-8"))
    return Profile.from_json(next(p for p in data if p["name"] == name))


class Rig:
    def __init__(self, profile: Profile, on_settled: Callable[[], None] | None = None) -> None:
        self.terminal = FakeTerminal("s", "p")
        self.timer = VirtualTimer()
        self.limits: list[LimitMatch] = []
        self.prompts: list[str | None] = []
        self.watch = AgentScreenWatch(
            terminal=self.terminal,
            profile=profile,
            timer=self.timer,
            now_ms=lambda: NOW,
            diagnostics=RecordingDiagnostics(),
            on_limit=self.limits.append,
            on_prompt=self.prompts.append,
            on_settled=on_settled,
            tz=PARIS,
        )


async def test_a_trust_dialog_already_on_screen_is_seen_then_its_leaving() -> None:
    rig = Rig(shipped("Gemini CLI"))
    rig.terminal.screen = "│ Do you trust the files in this folder? │\n│ ● 1. Trust folder │"
    rig.watch.start()
    await rig.timer.advance(300)
    assert rig.prompts == ["Do you trust the files in this folder?"]
    rig.terminal.screen = "> Type your message"
    rig.terminal.emit_output(b"\x1b[2J> Type your message")
    await rig.timer.advance(299)
    assert rig.prompts == ["Do you trust the files in this folder?"]  # output not quiet yet...
    await rig.timer.advance(2000)
    assert rig.prompts == ["Do you trust the files in this folder?", None]
    await rig.watch.stop()


async def test_screen_is_not_reread_while_nothing_is_printed() -> None:
    rig = Rig(shipped("Gemini CLI"))
    reads = 0
    original = rig.terminal.screen_text

    async def counting() -> str:
        nonlocal reads
        reads += 1
        return await original()

    rig.terminal.screen_text = counting  # type: ignore[method-assign]
    rig.watch.start()
    await rig.timer.advance(60_000)
    assert reads == 1
    for _ in range(10):  # a spinner: output every 100 ms for a second, then quiet
        rig.terminal.emit_output(b"\r|")
        await rig.timer.advance(100)
    await rig.timer.advance(5_000)
    assert reads == 2
    await rig.watch.stop()


async def test_limit_in_the_output_and_on_a_tui_screen() -> None:
    rig = Rig(shipped("Claude Code"))
    rig.watch.start()
    rig.terminal.emit_output(b"\x1b[31mClaude usage limit reached \xe2\x88\x99 resets 3pm (Europe/Paris)\x1b[0m\r\n")
    await rig.timer.advance(1_000)  # the stream is read once a second while output flows, and once it is quiet
    assert [m.resets_at_ms for m in rig.limits] == [int(datetime(2026, 6, 17, 15, tzinfo=PARIS).timestamp() * 1000)]
    rig.terminal.screen = "  5-hour limit reached ∙ resets 4pm (Europe/Paris)"
    rig.terminal.emit_output(b"\x1b[3;1H\x1b[K")
    await rig.timer.advance(2_300)
    assert rig.limits[-1].resets_at_ms == int(datetime(2026, 6, 17, 16, tzinfo=PARIS).timestamp() * 1000)
    await rig.watch.stop()


async def test_a_profile_without_prompts_or_pattern_needs_no_watch() -> None:
    profile = Profile.from_json({**shipped("Aider").to_json(), "blockingPrompts": []})
    rig = Rig(profile)
    assert not rig.watch.needed
    rig.watch.start()
    rig.terminal.emit_output(b"anything")
    await rig.timer.advance(10_000)
    assert rig.prompts == [] and rig.limits == []
    await rig.watch.stop()


async def test_whoever_reads_the_cli_records_is_told_each_time_its_output_settled() -> None:
    profile = Profile.from_json({**shipped("Aider").to_json(), "blockingPrompts": []})
    settled: list[int] = []
    rig = Rig(profile, on_settled=lambda: settled.append(rig.timer.monotonic_ms()))
    assert rig.watch.needed  # nothing on the screen to look for, but someone waits for the readbacks
    rig.watch.start()
    await rig.timer.advance(10_000)
    assert settled == [300]
    rig.terminal.emit_output(b"\x1b[31m\xe2\x96\xa0 The model does not exist\x1b[0m")  # an error drawn, then quiet
    await rig.timer.advance(10_000)
    assert len(settled) == 2 and settled[1] - 10_300 <= 2_000
    await rig.watch.stop()


async def test_a_flood_of_output_is_scanned_once_a_second_not_per_chunk() -> None:
    rig = Rig(shipped("Claude Code"))
    scans = 0
    scanner = rig.watch._scanner  # noqa: SLF001
    assert scanner is not None
    original = scanner.scan

    def counting(now_ms: int, *, final: bool = False):  # type: ignore[no-untyped-def]
        nonlocal scans
        scans += 1
        return original(now_ms, final=final)

    scanner.scan = counting  # type: ignore[method-assign]
    rig.watch.start()
    for _ in range(300):  # three seconds of output, a chunk every 10 ms
        rig.terminal.emit_output(b"\x1b[32mbuilding\x1b[0m " * 200)
        await rig.timer.advance(10)
    assert 2 <= scans <= 4
    rig.terminal.emit_output(b"Claude usage limit reached \xe2\x88\x99 resets 3pm (Europe/Paris)")
    await rig.timer.advance(300)  # quiet: the final scan reports what ends the output
    assert len(rig.limits) == 1
    await rig.watch.stop()


def test_a_sequence_half_read_by_a_terminal_scanner_is_read_on_whatever_follows() -> None:
    from idea.infrastructure.terminal.stream import BracketedPasteTracker

    tracker = BracketedPasteTracker()
    tracker.feed(b"\x1b[?20")
    assert not tracker.idle  # the rest of the sequence must be read, whatever the next chunk holds
    tracker.feed(b"04h")
    assert tracker.idle and tracker.enabled
