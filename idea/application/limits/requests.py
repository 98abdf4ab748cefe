"""What the person asks about an agent's usage limit (spec 05 §8.3, §10): cancel the automatic resume,
resume now, resume at a time they give (the human net), or say it was not a limit. Each one use case on
the core loop; a project whose core does not follow limits refuses them clearly."""

from __future__ import annotations

from collections.abc import Callable

from idea.application.limits.service import SessionLimitService
from idea.domain.errors import AppError, ErrorCode
from idea.domain.ids import AgentId


class LimitRequests:
    def __init__(self, limits: Callable[[], SessionLimitService | None]) -> None:
        self._limits = limits

    async def cancel_resume(self, agent_id: AgentId) -> bool:
        """False when no resume was armed any more (it may be firing now)."""
        return self._service().cancel_resume(agent_id)

    async def resume_now(self, agent_id: AgentId) -> bool:
        """The armed resume runs at once; False when none was armed."""
        return await self._service().resume_now(agent_id)

    async def resume_at(self, agent_id: AgentId, resets_at_ms: int) -> None:
        """ "Resume at this time": the same path as an automatic detection. NOT_FOUND when it does not run."""
        self._service().set_resume_at(agent_id, resets_at_ms)

    async def dismiss(self, agent_id: AgentId) -> None:
        """ "Not a limit — dismiss" (or "Keep waiting"): nothing is armed and nothing is asked again now."""
        self._service().dismiss(agent_id)

    def _service(self) -> SessionLimitService:
        service = self._limits()
        if service is None:
            raise AppError(ErrorCode.INVALID, "usage limits are not followed in this project")
        return service
