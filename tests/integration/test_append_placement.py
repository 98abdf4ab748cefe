"""Where the conversation log's fsynced appends run: on the core loop while the disk is quick, on a worker
thread from the first slow one (`append_placement.py`); durations from a fake clock."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from idea.domain.conversation_log import ConversationTurn, TurnRole
from idea.domain.tickets import HumanSource
from idea.infrastructure.stores import conversation_log
from idea.infrastructure.stores.append_placement import AppendPlacement
from idea.infrastructure.stores.conversation_log import JsonlConversationLog

CONVERSATION = "6ffc1f69-77a5-0da1-1965-ef26d1df72f5"


class DiskClock:
    """perf_counter as the placement reads it: each append takes `append_s` of it."""

    def __init__(self) -> None:
        self.now = 0.0
        self.append_s = 0.0002

    def __call__(self) -> float:
        return self.now


def test_appends_go_inline_after_a_streak_of_quick_ones_and_back_after_a_slow_one() -> None:
    placement = AppendPlacement(inline_at_most_s=0.001, streak=3)
    seen = []
    for seconds in (0.0002, 0.0003, 0.001, 0.0002, 0.004, 0.0001, 0.0001, 0.0001):
        seen.append(placement.inline())
        placement.took(seconds)
    assert seen == [False, False, False, True, True, False, False, False]
    assert placement.inline()


def test_a_placement_that_never_runs_inline() -> None:
    placement = AppendPlacement(inline_at_most_s=0)
    for _ in range(100):
        placement.took(0.0)
    assert not placement.inline()


async def test_the_log_appends_on_the_loop_while_the_disk_is_quick(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = DiskClock()
    threads: list[bool] = []
    append_line = conversation_log.append_line

    def timed(path: Path, line: bytes, *, wait: bool = True) -> None:
        threads.append(threading.current_thread() is threading.main_thread())
        append_line(path, line, wait=wait)
        clock.now += clock.append_s

    monkeypatch.setattr(conversation_log, "append_line", timed)
    log = JsonlConversationLog(str(tmp_path), placement=AppendPlacement(streak=2, clock=clock))
    turns = [ConversationTurn(f"00000000-0000-4000-8000-{i:012d}", CONVERSATION, i, HumanSource(), TurnRole.PROMPT, "t")
             for i in range(6)]

    for turn in turns[:3]:
        await log.append(turn)
    clock.append_s = 0.05  # the disk turns slow
    await log.append(turns[3])
    await log.append(turns[4])
    await log.append(turns[5])

    assert threads == [False, False, True, True, False, False]  # the slow one held the loop, the next did not
    assert await log.last(CONVERSATION, 10) == turns
