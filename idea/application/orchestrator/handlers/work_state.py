"""The work-state family (spec 03 §10): `idea_workstate_read` (the team's lean rows) and `idea_workstate_set`
(the caller's own row only)."""

from __future__ import annotations

import json

from idea.application.orchestrator.callers import require_agent
from idea.application.orchestrator.context import CoreContext
from idea.application.orchestrator.dispatch import CommandDispatch
from idea.domain.orchestration.commands import Outcome, ReadWorkState, Requester, SetWorkState, Source
from idea.domain.orchestration.live_state import KEEP, RowChange


class WorkStateCommands:
    def __init__(self, ctx: CoreContext) -> None:
        self._ctx = ctx

    def register(self, commands: CommandDispatch) -> None:
        commands.register(ReadWorkState, self.read)
        commands.register(SetWorkState, self.set)

    async def read(self, requester: Requester, command: ReadWorkState, source: Source) -> Outcome:
        names = {agent.agent_id: agent.name for agent in self._ctx.lifecycle.manifest().agents}
        document = {"entries": self._ctx.board.lean(names)}
        return Outcome(detail=json.dumps(document, ensure_ascii=False), data=document)

    async def set(self, requester: Requester, command: SetWorkState, source: Source) -> Outcome:
        caller = require_agent(requester, self._ctx.lifecycle.manifest(), "idea_workstate_set")
        change = RowChange(
            status=command.status,
            intent=KEEP if command.intent is None else command.intent,
            progress=KEEP if command.progress is None else command.progress,
        )
        self._ctx.board.declare(caller.agent_id, change)
        return Outcome(detail="work state updated")
