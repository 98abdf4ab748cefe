"""Cold starts (spec 03 §8.6): a stopped agent started for a task — once, however many tasks wait for it —
and the cold-start gate that holds deliveries until its CLI is ready (failure #5).

Any launch arms the gate, the person's included (`agent_launching`), before the process starts so that no
ready signal is missed. The gate is released by the first of: the bridge's `initialize`, a `SessionStart`
hook, the profile's prompt-ready pattern in the output or on the screen, or the profile's `coldStartMaxMs`.
"""

from __future__ import annotations

import asyncio

from idea.application.orchestrator.cold_start import ColdStartGate, PromptPatternWatcher
from idea.application.orchestrator.context import CoreContext, cancel_unless_current
from idea.application.orchestrator.ports import LiveAgent
from idea.domain.agent import AgentEntry
from idea.domain.errors import AppError, ErrorCode
from idea.domain.ids import AgentId
from idea.domain.orchestration.events import ColdStartDegraded
from idea.domain.profile import Profile


class ColdLaunches:
    def __init__(self, ctx: CoreContext) -> None:
        self._ctx = ctx
        self._launches: dict[AgentId, asyncio.Task[LiveAgent]] = {}

    def in_flight(self) -> list[asyncio.Task[LiveAgent]]:
        """The launches under way; they belong to the launch service, which stops them with the project."""
        return list(self._launches.values())

    async def settled(self, agent_id: AgentId) -> None:
        """Wait for a launch of the agent that is under way, if any."""
        launch = self._launches.get(agent_id)
        if launch is not None:
            await asyncio.shield(launch)

    async def ensure_live(self, agent: AgentEntry, *, reason: str) -> LiveAgent:
        """The agent's live session; a stopped agent is started (once, however many asks wait for it) in the
        first empty cell of the active layout, else in the background."""
        live = self._ctx.lifecycle.live(agent.agent_id)
        if live is not None:
            return live
        launch = self._launches.get(agent.agent_id)
        if launch is None:
            launch = self._ctx.spawn(self.launch(agent, node_id=None, visible=True, reason=reason))
            self._launches[agent.agent_id] = launch
            launch.add_done_callback(lambda done: self._launch_finished(agent.agent_id, done))
        return await asyncio.shield(launch)

    async def launch(self, agent: AgentEntry, *, node_id: str | None, visible: bool, reason: str) -> LiveAgent:
        """Start the agent with its gate armed first, so an early ready signal counts."""
        ctx = self._ctx
        profile = ctx.lifecycle.profile_of(agent.agent_id)
        gate = self._arm_gate(agent.agent_id, profile)
        try:
            live = await ctx.lifecycle.launch(agent.agent_id, node_id=node_id, visible=visible, reason=reason)
        except BaseException as exc:
            gate.dispose()
            lane = ctx.lanes.of(agent.agent_id)
            if lane.gate is gate:
                lane.gate = None
            if isinstance(exc, Exception) and not isinstance(exc, AppError):
                raise AppError(ErrorCode.PROCESS, f"could not start agent {agent.name}: {exc}") from exc
            raise
        self._watch_prompt(agent.agent_id, gate, live)
        return live

    def agent_launching(self, agent_id: AgentId) -> None:
        """Any launch of an agent, the person's included, is a cold start: a task that arrives before its CLI
        is ready waits at the gate instead of being typed before the prompt exists (§8.6, failure #5).
        Called before the process starts, so its first ready signal is not missed."""
        ctx = self._ctx
        if ctx.closing or ctx.lifecycle.manifest().by_id(agent_id) is None:
            return
        gate = ctx.lanes.of(agent_id).gate
        if gate is not None and not gate.released:
            return  # armed by the delegation that launches it
        self._arm_gate(agent_id, ctx.lifecycle.profile_of(agent_id))

    def agent_launched(self, agent_id: AgentId) -> None:
        """The launched CLI runs: its prompt-ready pattern can release the gate."""
        gate = self._ctx.lanes.of(agent_id).gate
        live = self._ctx.lifecycle.live(agent_id)
        if gate is not None and live is not None:
            self._watch_prompt(agent_id, gate, live)

    def release_gate(self, agent_id: AgentId, by: str) -> bool:
        """Open the agent's gate; True only for the signal that opened it."""
        ctx = self._ctx
        gate = ctx.lanes.of(agent_id).gate
        if gate is None or not gate.release(ctx.timer.monotonic_ms()):
            return False
        after = ctx.timer.monotonic_ms() - gate.armed_mono_ms
        ctx.diagnostics.beacon(f"[cold-start] released agent={ctx.name(agent_id)} by={by} after_ms={after}")
        return True

    def _launch_finished(self, agent_id: AgentId, launch: asyncio.Task[LiveAgent]) -> None:
        self._launches.pop(agent_id, None)
        if not launch.cancelled():
            launch.exception()  # retrieved here: every asker may have gone away

    def _arm_gate(self, agent_id: AgentId, profile: Profile) -> ColdStartGate:
        ctx = self._ctx
        lane = ctx.lanes.of(agent_id)
        if lane.gate is not None:
            lane.gate.dispose()
        gate = ColdStartGate(ctx.timer.monotonic_ms())
        lane.gate = gate
        timeout = ctx.spawn(self._gate_timeout(agent_id, gate, profile.cold_start_max_ms))
        gate.on_dispose(lambda: cancel_unless_current(timeout))
        ctx.diagnostics.beacon(f"[cold-start] armed agent={ctx.name(agent_id)} max_ms={profile.cold_start_max_ms}")
        return gate

    async def _gate_timeout(self, agent_id: AgentId, gate: ColdStartGate, max_ms: int) -> None:
        await self._ctx.timer.sleep(max_ms)
        if self._ctx.lanes.of(agent_id).gate is gate and self.release_gate(agent_id, "timeout") and gate.waited:
            self._ctx.events.publish(ColdStartDegraded(agent_id))  # a task waited that long

    def _watch_prompt(self, agent_id: AgentId, gate: ColdStartGate, live: LiveAgent) -> None:
        pattern = live.profile.prompt_ready_pattern
        if not pattern or gate.released or gate.watching_prompt or self._ctx.closing:
            return
        gate.watching_prompt = True
        watcher = PromptPatternWatcher(pattern)

        def on_output(data: bytes) -> None:
            if watcher.feed(data):
                self.release_gate(agent_id, "prompt")

        gate.on_dispose(live.terminal.on_output(on_output))

        async def check_screen() -> None:  # the prompt may have been drawn before we subscribed
            if watcher.seen_in(await live.terminal.screen_text()):
                self.release_gate(agent_id, "prompt")

        screen_check = self._ctx.spawn(check_screen())
        gate.on_dispose(lambda: cancel_unless_current(screen_check))
