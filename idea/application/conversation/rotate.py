"""`RotateConversationLog` (spec 04 §7): best-effort, idempotent, off the hot path. Called at an agent's launch
for its launch conversation and when a person opens a conversation; errors are logged and swallowed."""

from __future__ import annotations

import asyncio

from idea.application.conversation.ports import HandoffStore, LogRotation
from idea.application.ports import Diagnostics
from idea.domain.errors import AppError
from idea.domain.ids import ConversationId
from idea.domain.knowledge.log_rotation import RotationReport, RotationThresholds


class RotateConversationLog:
    def __init__(
        self,
        rotation: LogRotation,
        handoffs: HandoffStore,
        diagnostics: Diagnostics,
        thresholds: RotationThresholds | None = None,
    ) -> None:
        self._rotation = rotation
        self._handoffs = handoffs
        self._diagnostics = diagnostics
        self._thresholds = thresholds or RotationThresholds()

    async def __call__(self, conversation: ConversationId) -> RotationReport | None:
        """The report, None when the rotation failed (the failure is logged). Without a handoff nothing is
        archived (INV-LS6), but lines that are not turns are still set aside."""
        try:
            try:
                handoff = await asyncio.to_thread(self._handoffs.load, conversation)
            except AppError as exc:
                self._diagnostics.beacon(f"[conversation] rotation without handoff: {exc.message}")
                handoff = None
            report = await self._rotation.rotate(
                conversation, handoff.up_to if handoff is not None else None, self._thresholds
            )
        except (AppError, OSError) as exc:
            self._diagnostics.beacon(f"[conversation] rotation failed conversation={conversation}: {exc}")
            return None
        if report.archive or report.set_aside or report.deleted_archives or report.finished_interrupted:
            self._diagnostics.beacon(f"[conversation] rotated conversation={conversation}: {report.describe()}")
        return report
