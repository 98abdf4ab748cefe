"""Where a project's agents are shown — in a cell, in a new split beside a cell, in the background — and
every gesture that starts, shows, moves, hides or stops one.

Each gesture is one use case on the core loop and one saved change of `layouts.json`: its layout operations
are tried on a working copy as they are planned (`LayoutChange`), processes are stopped or started in between,
and the operations are applied and saved together at the end. Refusals come before anything is stopped.

Two ways to ask: the person's gestures (`launch`, `attach`, `show`) make room — an idle shell or an ended
session in the chosen cell gives way, a cell still showing the agent's ended run elsewhere is freed — while a
request (`start`: an agent's idea_launch_agent, resume, restart, a profile change) takes the cell only when it
is free.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from functools import partial

from idea.application.agents.catalogue import AgentCatalogue
from idea.application.agents.placement_rules import (
    CellRules,
    InBackground,
    InCell,
    InNewSplit,
    LayoutChange,
    Place,
    free_cell,
    leaf_or_none,
    split_target,
)
from idea.application.agents.ports import AgentProject
from idea.application.agents.runner import AgentRunner
from idea.application.orchestrator.ports import LiveAgent
from idea.domain import layout as lay
from idea.domain.errors import AppError, ErrorCode
from idea.domain.agent_states.resume_offer import APPLY_SPACING_MS, ResumeCandidate, ResumeChoice
from idea.domain.ids import AgentId, ConversationId, NodeId, SessionId
from idea.domain.session import SessionInfo, SessionKind

USER_LAUNCH = "user"


class AgentPlacement:
    def __init__(self, project: AgentProject, catalogue: AgentCatalogue, runner: AgentRunner) -> None:
        self._project = project
        self._catalogue = catalogue
        self._runner = runner
        self._rules = CellRules(project.sessions, project.ids.new_id)
        self._stopping: set[SessionId] = set()  # stopped by a gesture that saves the cell itself
        project.sessions.on_exit(self._session_exited)

    # -- the person's gestures --

    async def launch(self, agent_id: AgentId, where: Place, *, reason: str = USER_LAUNCH) -> LiveAgent:
        """Start the agent there (a running agent is shown there instead), making room as described above."""
        change = self._change()
        await self._run(change, self._launch_into(change, agent_id, where, reason))
        return self._live(agent_id)

    async def attach(self, agent_id: AgentId, where: InCell | InNewSplit) -> LiveAgent:
        """Show a running agent there: same process, same screen."""
        if self._project.sessions.live_agent_session(agent_id) is None:
            raise AppError(ErrorCode.NOT_FOUND, f"{self._name(agent_id)} is not running; launch it instead")
        return await self.launch(agent_id, where)

    async def show(self, agent_id: AgentId, active: NodeId | None) -> LiveAgent:
        """Double-click: a running agent shown in a cell stays there; a background one is shown and a stopped
        one launched — in the cell its last run left (stopped agents only), the active cell, the first free
        cell, else a new split beside the active cell (or the last one)."""
        root = self._project.active.root
        running = self._project.sessions.live_agent_session(agent_id)
        if running is not None and lay.leaf_showing_session(root, running.id) is not None:
            return self._live(agent_id)
        pinned = lay.leaf_pinning_agent(root, agent_id) if running is None else None
        free = free_cell(root, agent_id, self._project.sessions.is_live, pinned.id if pinned else None, active)
        beside = split_target(root, active)
        where: Place = InCell(free) if free is not None else InNewSplit(beside) if beside else InBackground()
        return await self.launch(agent_id, where)

    async def show_running(self, agent_id: AgentId, active: NodeId | None) -> LiveAgent:
        """`show` for an agent that runs (the work panel's Open and Attach); one that does not is refused,
        never launched."""
        if self._project.sessions.live_agent_session(agent_id) is None:
            raise AppError(ErrorCode.NOT_FOUND, f"{self._name(agent_id)} is not running; launch it from the Agents panel")
        return await self.show(agent_id, active)

    async def send_to_background(self, agent_id: AgentId) -> None:
        """Free the agent's cell; it keeps running and receiving tasks."""
        live = self._runner.live(agent_id)
        if live is None or live.node_id is None:
            return
        change = self._change()
        change.add(lay.ClearCell(live.node_id))
        change.after.append(partial(self._runner.remember_running, agent_id, None, None))
        await self._commit(change)

    async def stop(self, agent_id: AgentId) -> None:
        """End the agent's process tree and free its cell; the agent and its history remain."""
        change = self._change()
        await self._stop_into(change, agent_id)
        await self._commit(change)

    # -- requests --

    async def start(
        self,
        agent_id: AgentId,
        where: Place,
        *,
        reason: str,
        conversation_id: ConversationId | None = None,
    ) -> LiveAgent:
        """Start the agent there, or return it when it already runs there (a background agent asked for a
        cell is shown in it). The cell must be empty or already the agent's."""
        change = self._change()
        await self._run(change, self._launch_into(change, agent_id, where, reason, conversation_id, room=False))
        return self._live(agent_id)

    async def restart(self, leaf_id: NodeId) -> LiveAgent:
        """Run the agent a cell pins again in that cell."""
        leaf = lay.find_leaf(self._project.active.root, leaf_id)
        if leaf.agent is None:
            raise AppError(ErrorCode.INVALID, f"cell {leaf_id} shows no agent")
        agent_id = leaf.agent
        change = self._change()
        if leaf.session is not None and self._project.sessions.knows(leaf.session):
            change.add(lay.SetSession(leaf_id, None))
            change.release(leaf.session)
        await self._run(change, self._launch_into(change, agent_id, InCell(leaf_id), "restart", room=False))
        return self._live(agent_id)

    async def change_profile(self, agent_id: AgentId, profile_id: str) -> None:
        """Swap the CLI: a running agent is stopped and started again with the new profile, where it was."""
        if self._project.sessions.live_agent_session(agent_id) is None:
            await self._catalogue.set_profile(agent_id, profile_id)
            return
        await self._relaunch(agent_id, "profile change", partial(self._catalogue.set_profile, agent_id, profile_id))

    async def relaunch(self, agent_id: AgentId, reason: str) -> None:
        """Stop a running agent and start it again where it was (its cell, or the background), so that what
        is written at launch (its permissions, its context file) applies. An agent not running is started in
        the background."""
        if self._project.sessions.live_agent_session(agent_id) is None:
            await self.start(agent_id, InBackground(), reason=reason)
            return
        await self._relaunch(agent_id, reason, None)

    async def _relaunch(self, agent_id: AgentId, reason: str, before_start: Callable[[], Awaitable[None]] | None) -> None:
        change = self._change()
        freed = await self._stop_into(change, agent_id)
        where: Place = InCell(freed) if freed is not None else InBackground()

        async def start_again() -> None:
            if before_start is not None:
                await before_start()
            await self._launch_into(change, agent_id, where, reason, room=False)

        await self._run(change, start_again())

    async def resumable(self) -> list[ResumeCandidate]:
        """The agents to offer for resume when the project opens (reads running.json)."""
        return self._runner.resumable()

    async def resume(self, chosen: Sequence[ResumeCandidate], declined: Sequence[AgentId]) -> list[str]:
        """Resume the chosen agents where they ran (their cell, else the background) and stop offering the
        others. Returns one sentence per agent that could not be resumed."""
        choices = [(candidate, ResumeChoice.RESUME) for candidate in chosen]
        return await self.apply_resume(choices, declined)

    async def apply_resume(
        self,
        choices: Sequence[tuple[ResumeCandidate, ResumeChoice]],
        declined: Sequence[AgentId] = (),
        *,
        spacing_ms: int = APPLY_SPACING_MS,
    ) -> list[str]:
        """The resume offer's choices (spec 05 §11): "Resume" continues the agent's own session when it can
        (each with its conversation), "Start fresh" starts a new one, "Don't start" is not offered again.
        Agents start one by one, `spacing_ms` apart, in their cell or in the background. Returns one sentence
        per agent that could not be started."""
        change = self._change()
        failures = []
        starting = [(c, choice) for c, choice in choices if choice is not ResumeChoice.SKIP]
        skipped = [*declined, *(c.agent_id for c, choice in choices if choice is ResumeChoice.SKIP)]

        async def apply_all() -> None:
            for index, (candidate, choice) in enumerate(starting):
                if index and spacing_ms > 0:
                    await asyncio.sleep(spacing_ms / 1000)
                where: Place = InBackground()
                if candidate.node_id is not None and leaf_or_none(change.layout.root, candidate.node_id):
                    where = InCell(candidate.node_id)
                try:
                    await self._launch_into(
                        change,
                        candidate.agent_id,
                        where,
                        "resume" if choice is ResumeChoice.RESUME else "start fresh",
                        candidate.conversation_id,
                        room=False,
                        fresh=choice is ResumeChoice.FRESH,
                    )
                except AppError as exc:
                    failures.append(f"{candidate.name}: {exc.message}")
            self._forget_resume_into(change, skipped)

        await self._run(change, apply_all())
        return failures

    async def forget_resume(self, agent_ids: Sequence[AgentId]) -> None:
        """The person chose not to resume these agents: the offer is not repeated."""
        change = self._change()
        self._forget_resume_into(change, agent_ids)
        await self._commit(change)

    # -- planning --

    async def _launch_into(
        self,
        change: LayoutChange,
        agent_id: AgentId,
        where: Place,
        reason: str,
        conversation_id: ConversationId | None = None,
        *,
        room: bool = True,
        fresh: bool = False,
    ) -> None:
        """`fresh`: a new session of the CLI, not its own session resumed."""
        running = self._project.sessions.live_agent_session(agent_id)
        if running is not None:
            self._rules.refuse_second_cell(change, running, where, self._name(agent_id))
        target, stopping = self._rules.make_room(change, agent_id, where, room=room, running=running is not None)
        for session_id in stopping:
            await self._project.sessions.stop(session_id)
        if running is not None:
            self._show_running(change, running, target)
            return
        if target is not None:
            conversation_id = conversation_id or change.leaf(target).conversation_id
        try:
            info = await self._runner.start(agent_id, conversation_id, reason, fresh=fresh)
        except BaseException:
            change.drop_split()
            raise
        if target is not None and (info.is_live or change.split is None):
            change.add(lay.AssignAgent(target, agent_id, conversation_id))
            change.add(lay.SetSession(target, info.id))
            if info.is_live:
                change.add(lay.SetAgentWasRunning(target, True))
        elif target is not None:
            change.drop_split()
            change.release(info.id)
            target = None
        if not info.is_live:
            raise AppError(ErrorCode.PROCESS, info.describe_failed_start())
        change.after.append(partial(self._runner.launched, info, target, conversation_id, reason))

    def _show_running(self, change: LayoutChange, running: SessionInfo, target: NodeId | None) -> None:
        shown = lay.leaf_showing_session(change.layout.root, running.id)
        if target is None or (shown is not None and shown.id == target):
            return  # already where it was asked to be
        agent_id = running.agent_id
        assert agent_id is not None
        change.add(lay.AssignAgent(target, agent_id))
        change.add(lay.SetSession(target, running.id))
        change.add(lay.SetAgentWasRunning(target, True))
        change.after.append(partial(self._runner.remember_running, agent_id, target, None))

    async def _stop_into(self, change: LayoutChange, agent_id: AgentId) -> NodeId | None:
        """Stop the agent's process and plan freeing its cell; returns that cell."""
        info = self._project.sessions.live_agent_session(agent_id)
        if info is None:
            return None
        self._stopping.add(info.id)
        try:
            await self._project.sessions.stop(info.id)
        finally:
            self._stopping.discard(info.id)
        leaf = lay.leaf_showing_session(change.layout.root, info.id)
        if leaf is not None:
            change.add(lay.ClearCell(leaf.id))
        change.release(info.id)
        return leaf.id if leaf is not None else None

    def _forget_resume_into(self, change: LayoutChange, agent_ids: Sequence[AgentId]) -> None:
        for agent_id in agent_ids:
            leaf = lay.leaf_pinning_agent(change.layout.root, agent_id)
            if leaf is not None and leaf.agent_was_running:
                change.add(lay.SetAgentWasRunning(leaf.id, False))
            change.after.append(partial(self._runner.forget_running, agent_id))

    # -- committing --

    def _change(self) -> LayoutChange:
        return LayoutChange(self._project.active, self._project.ids.new_id)

    async def _run(self, change: LayoutChange, planning: Awaitable[None]) -> None:
        """Await the planning, then save what it planned — also when it failed: what was done stays done
        (a shell that gave way leaves its cell empty, a CLI that could not start shows why in its cell)."""
        try:
            await planning
        except BaseException:
            await self._commit(change)
            raise
        await self._commit(change)

    async def _commit(self, change: LayoutChange) -> None:
        if change.ops:
            await self._project.change_layout(change.ops)
        for session_id in change.released:
            self._project.release_unshown(session_id)
        for bookkeeping in change.after:
            bookkeeping()
        change.ops, change.released, change.after = [], [], []

    def _live(self, agent_id: AgentId) -> LiveAgent:
        live = self._runner.live(agent_id)
        if live is None:
            raise AppError(ErrorCode.NOT_FOUND, f"{self._name(agent_id)} stopped before it could be shown")
        return live

    def _name(self, agent_id: AgentId) -> str:
        return self._catalogue.agent(agent_id).name

    # -- exits --

    def _session_exited(self, info: SessionInfo) -> None:
        """An agent that ended while the project stays open is not offered for resume; a gesture that stops
        it saves its cell itself."""
        if info.kind is not SessionKind.AGENT or self._runner.closing or info.id in self._stopping:
            return
        self._project.schedule(self._forget_was_running(info.id))

    async def _forget_was_running(self, session_id: SessionId) -> None:
        leaf = lay.leaf_showing_session(self._project.active.root, session_id)
        if leaf is not None and leaf.agent_was_running:
            await self._project.change_layout([lay.SetAgentWasRunning(leaf.id, False)])
