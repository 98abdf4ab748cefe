"""The agents family: `idea_list_agents`, `idea_launch_agent`, `idea_stop_agent`, `idea_update_context`."""

from __future__ import annotations

import json
from typing import Any

from idea.application.orchestrator.callers import caller_of, label_of, required, resolve_target
from idea.application.orchestrator.cold_launch import ColdLaunches
from idea.application.orchestrator.context import CoreContext
from idea.application.orchestrator.dispatch import CommandDispatch
from idea.application.orchestrator.ports import LiveAgent
from idea.application.orchestrator.signals import AgentSignals
from idea.application.orchestrator.ticket_book import TicketBook
from idea.domain.agent import AgentEntry
from idea.domain.errors import AppError, ErrorCode
from idea.domain.knowledge.context import may_replace_persona
from idea.domain.knowledge.conversation_log import TurnRole
from idea.domain.orchestration.commands import (
    LaunchAgent,
    ListAgents,
    Outcome,
    Requester,
    Source,
    StopAgent,
    UpdateAgentContext,
    Visibility,
)
from idea.domain.orchestration.tickets import TicketKind

PERSONA_MAX_CHARS = 200_000


class AgentCommands:
    def __init__(self, ctx: CoreContext, book: TicketBook, launches: ColdLaunches, signals: AgentSignals) -> None:
        self._ctx = ctx
        self._book = book
        self._launches = launches
        self._signals = signals

    def register(self, commands: CommandDispatch) -> None:
        commands.register(ListAgents, self.list_agents)
        commands.register(LaunchAgent, self.launch)
        commands.register(StopAgent, self.stop)
        commands.register(UpdateAgentContext, self.update_context)

    async def list_agents(self, requester: Requester, command: ListAgents, source: Source) -> Outcome:
        ctx = self._ctx
        manifest = ctx.lifecycle.manifest()
        caller = caller_of(requester, manifest)
        orchestrator = manifest.effective_orchestrator()
        agents = []
        for agent in manifest.agents:
            live = ctx.lifecycle.live(agent.agent_id)
            profile = ctx.profile_or_none(agent.agent_id)
            lane = ctx.lanes.of(agent.agent_id)
            row = ctx.board.row(agent.agent_id)
            agents.append(
                {
                    "name": agent.name,
                    "agentId": agent.agent_id,
                    "profile": profile.name if profile else None,
                    "orchestrator": orchestrator is not None and orchestrator.agent_id == agent.agent_id,
                    "running": live is not None,
                    "visible": live is not None and live.node_id is not None,
                    "busy": lane.mailbox.busy is not None,
                    "queueDepth": len(lane.mailbox.records),
                    "status": row.status.value if row else None,
                    "intent": row.intent if row else None,
                    "reachable": profile.reachable_by_delegation() if profile else False,
                    "bridgeConnected": lane.bridge_connected,
                }
            )
        document = {"you": label_of(requester, caller), "agents": agents}
        return Outcome(detail=json.dumps(document, ensure_ascii=False), data=document)

    async def launch(self, requester: Requester, command: LaunchAgent, source: Source) -> Outcome:
        manifest = self._ctx.lifecycle.manifest()
        caller = caller_of(requester, manifest)
        target = resolve_target(manifest, command.target)
        task = required(command.task, "task") if command.task is not None else None
        live, detail = await self._started(target, command)
        data: dict[str, Any] = {"agentId": target.agent_id, "nodeId": live.node_id}
        if task is not None:
            label = label_of(requester, caller)
            ticket = self._book.new_ticket(target, requester, label, task, TicketKind.TASK)
            await self._ctx.record_turn(
                ticket.conversation, ticket.source, TurnRole.PROMPT, task, ticket.id, target.agent_id
            )
            self._book.enqueue(ticket, live.profile)
            detail += f"; task queued as ticket {ticket.id} (no reply expected)"
            data["ticket"] = ticket.id
        return Outcome(detail=detail, data=data)

    async def _started(self, target: AgentEntry, command: LaunchAgent) -> tuple[LiveAgent, str]:
        """The target running where the command asks (already so, or started now), and what to say of it."""
        lifecycle = self._ctx.lifecycle
        visible = command.visibility is Visibility.VISIBLE
        live = lifecycle.live(target.agent_id)
        if live is not None and command.node_id in (None, live.node_id):
            where = f"in cell {live.node_id}" if live.node_id else "in the background"
            return live, f"{target.name} is already running {where}"
        await self._launches.settled(target.agent_id)
        if live is None and lifecycle.live(target.agent_id) is None:
            live = await self._launches.launch(target, node_id=command.node_id, visible=visible, reason="launch")
        else:
            live = await lifecycle.launch(target.agent_id, node_id=command.node_id, visible=visible, reason="launch")
        where = f"in cell {live.node_id}" if live.node_id else "in the background"
        if visible and live.node_id is None:
            where += " (no empty cell)"
        return live, f"launched {target.name} {where}"

    async def stop(self, requester: Requester, command: StopAgent, source: Source) -> Outcome:
        ctx = self._ctx
        manifest = ctx.lifecycle.manifest()
        caller = caller_of(requester, manifest)
        target = resolve_target(manifest, command.target)
        if caller is not None:
            if caller.agent_id == target.agent_id:
                raise AppError(ErrorCode.INVALID, f"{caller.name} cannot stop itself")
            orchestrator = manifest.effective_orchestrator()
            if orchestrator is None or orchestrator.agent_id != caller.agent_id:
                raise AppError(
                    ErrorCode.PERMISSION_DENIED, f"only the orchestrator may stop agents; {caller.name} is not it"
                )
        live = ctx.lifecycle.live(target.agent_id)
        if live is None:
            return Outcome(detail=f"{target.name} is not running")
        lane = ctx.lanes.of(target.agent_id)
        lane.stopping = True
        try:
            await ctx.lifecycle.stop(target.agent_id)
        except BaseException:
            lane.stopping = False
            raise
        if lane.stopping:  # the exit was not reported (yet): its tickets end now all the same
            self._signals.agent_exited(target.agent_id, live.terminal.exit_code())
        return Outcome(detail=f"stopped {target.name}")

    async def update_context(self, requester: Requester, command: UpdateAgentContext, source: Source) -> Outcome:
        manifest = self._ctx.lifecycle.manifest()
        caller = caller_of(requester, manifest)
        target = resolve_target(manifest, command.target)
        if caller is not None and not may_replace_persona(caller.agent_id, target.agent_id, manifest):
            raise AppError(
                ErrorCode.PERMISSION_DENIED,
                f"{caller.name} may update only its own context; the orchestrator may update any",
            )
        content = required(command.content, "content")
        if len(content) > PERSONA_MAX_CHARS:
            raise AppError(ErrorCode.INVALID_ARGUMENTS, f"content is longer than {PERSONA_MAX_CHARS} characters")
        await self._ctx.lifecycle.update_persona(target.agent_id, content)
        return Outcome(detail=f"updated context of {target.name} (applies at next launch)")
