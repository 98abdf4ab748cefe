"""Test doubles of the usage-limit ports: a scheduler the test fires by hand and a recording resumer."""

from __future__ import annotations

import itertools

from idea.application.limits.ports import ScheduledTask, ScheduleId
from idea.domain.errors import AppError, ErrorCode


class ManualScheduler:
    """Armed timers stay pending until the test calls `fire`; a fired timer can no longer be cancelled."""

    def __init__(self) -> None:
        self._ids = itertools.count(1)
        self.pending: dict[ScheduleId, tuple[int, ScheduledTask]] = {}
        self.fired: list[ScheduledTask] = []
        self.cancelled: list[ScheduleId] = []

    def arm(self, deadline_ms: int, task: ScheduledTask) -> ScheduleId:
        schedule_id = next(self._ids)
        self.pending[schedule_id] = (deadline_ms, task)
        return schedule_id

    def cancel(self, schedule_id: ScheduleId) -> bool:
        if self.pending.pop(schedule_id, None) is None:
            return False
        self.cancelled.append(schedule_id)
        return True

    def fire(self, schedule_id: ScheduleId) -> ScheduledTask:
        _, task = self.pending.pop(schedule_id)
        self.fired.append(task)
        return task

    def only_pending(self) -> tuple[ScheduleId, int, ScheduledTask]:
        ((schedule_id, (deadline, task)),) = self.pending.items()
        return schedule_id, deadline, task


class RecordingResumer:
    def __init__(self) -> None:
        self.calls: list[tuple[str, str | None, str | None, str]] = []
        self.fail_with: AppError | None = None

    async def resume(self, agent_id: str, node_id: str | None, conversation_id: str | None, prompt: str) -> None:
        self.calls.append((agent_id, node_id, conversation_id, prompt))
        if self.fail_with is not None:
            raise self.fail_with

    def fail(self, message: str = "could not start agent Architect") -> None:
        self.fail_with = AppError(ErrorCode.PROCESS, message)
