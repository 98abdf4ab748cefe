"""`SessionLimitService` (spec 05 §8.3): detect → plan → resume, cancellable, with the person as the net.

State in memory only: one armed resume per agent and the limit it answers. Lives on the core loop; every
method is synchronous except the resume itself. Event order is part of the contract (LR-2..LR-5):

- a known reset: `agentRateLimited{resetsAtMs}` (the raw announced time) then `agentResumeScheduled{fireAtMs}`
  (clamped to now, staggered); a second signal re-arms silently;
- an unknown reset, an implausible one, or a third re-limit within the hour: `agentRateLimited` then
  `agentRateLimitSuspected` (the human net), nothing armed;
- `agentResumed` only when the resume succeeded; `agentResumeCancelled` only when a pending timer was disarmed;
- "Not a limit — dismiss" (or "Keep waiting"): `agentLimitDismissed` alone;
- an automatic resume that fails: `agentRateLimited` then `agentRateLimitSuspected{reason: resumeFailed}`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, replace

from idea.application.limits.open_nets import OpenNets
from idea.application.limits.ports import AgentResumer, ScheduledTask, ScheduleId, Scheduler
from idea.application.ports import Clock, Diagnostics, EventPublisher
from idea.domain.agent_states.events import (
    AgentLimitDismissed,
    AgentRateLimited,
    AgentRateLimitSuspected,
    AgentResumeCancelled,
    AgentResumed,
    AgentResumeScheduled,
    ResumeCancelReason,
    SuspicionReason,
)
from idea.domain.agent_states.session_limit import (
    RESUME_PROMPT,
    HumanFallback,
    LimitEpisodes,
    LimitReport,
    RateLimitSource,
    RelimitGuard,
    ResumeAgent,
    Scheduled,
    SessionLimit,
    is_suspicious_reset,
    plan_resume,
    staggered_fire_at,
)
from idea.domain.errors import AppError, not_found
from idea.domain.ids import AgentId, NodeId


@dataclass(frozen=True)
class AgentPlace:
    """Where a live agent runs: its cell (None: the background) and the conversation its CLI carries."""

    node_id: NodeId | None
    conversation_id: str | None


@dataclass(frozen=True)
class _Armed:
    schedule_id: ScheduleId
    fire_at_ms: int
    task: ResumeAgent


class SessionLimitService:
    def __init__(
        self,
        *,
        clock: Clock,
        scheduler: Scheduler,
        events: EventPublisher,
        resumer: AgentResumer,
        diagnostics: Diagnostics,
        locate: Callable[[AgentId], AgentPlace | None],
    ) -> None:
        """`locate(agent)`: the agent's live session, None when it does not run."""
        self._clock = clock
        self._scheduler = scheduler
        self._events = events
        self._resumer = resumer
        self._diagnostics = diagnostics
        self._locate = locate
        self._armed: dict[AgentId, _Armed] = {}
        self._limits: dict[AgentId, SessionLimit] = {}
        self._failed: dict[AgentId, ScheduledTask] = {}  # automatic resumes that failed, kept for "Resume at"
        self._nets = OpenNets()
        self._episodes = LimitEpisodes()
        self._relimits = RelimitGuard()

    # ------------------------------------------------------------------ detection

    def report(
        self,
        agent_id: AgentId,
        node_id: NodeId | None,
        conversation_id: str | None,
        resets_at_ms: int | None,
        source: RateLimitSource,
    ) -> bool:
        """A detector saw a limit. Reports of the same episode after the first are dropped (§6.2); True when
        this one was news."""
        if not self._episodes.is_new(LimitReport(agent_id, resets_at_ms, self._clock.now_ms())):
            return False
        self.on_rate_limited(agent_id, node_id, conversation_id, resets_at_ms, source)
        return True

    def on_rate_limited(
        self,
        agent_id: AgentId,
        node_id: NodeId | None,
        conversation_id: str | None,
        resets_at_ms: int | None,
        source: RateLimitSource,
    ) -> None:
        now = self._clock.now_ms()
        limit = SessionLimit(resets_at_ms, now, source)
        self._limits[agent_id] = limit
        self._diagnostics.beacon(
            f"[limit] detected agent={agent_id} source={source.value} resets_at_ms={resets_at_ms}"
        )
        if not self._relimits.limited(agent_id, now):
            self._human_net(agent_id, resets_at_ms, SuspicionReason.RELIMITED)
            return
        if resets_at_ms is not None and is_suspicious_reset(now, resets_at_ms):
            self._human_net(agent_id, resets_at_ms, SuspicionReason.IMPLAUSIBLE_RESET)
            return
        plan = plan_resume(now, limit, conversation_id)
        if isinstance(plan, Scheduled):
            self._arm_scheduled(agent_id, plan.fire_at_ms, node_id, plan.conversation_id, resets_at_ms)
        else:
            assert isinstance(plan, HumanFallback)
            self._human_net(agent_id, None, SuspicionReason.NO_RESET_TIME)

    def stall_suspected(self, agent_id: AgentId) -> None:
        """A busy agent stalled well past its threshold (§6.3 b): ask the person unless a limit is known."""
        if agent_id in self._limits:
            return
        self._disarm(agent_id)
        self._raise_net(AgentRateLimitSuspected(agent_id, None, SuspicionReason.STALLED))

    def confirm_human_resume(
        self, agent_id: AgentId, node_id: NodeId | None, conversation_id: str | None, resets_at_ms: int
    ) -> None:
        """The person gave the reset time (level 3): the same events as the automatic path."""
        now = self._clock.now_ms()
        limit = SessionLimit(resets_at_ms, now, RateLimitSource.HUMAN)
        self._limits[agent_id] = limit
        self._relimits.reset(agent_id)
        self._episodes.is_new(LimitReport(agent_id, resets_at_ms, now))  # a detection of it now is no news
        plan = plan_resume(now, limit, conversation_id)
        assert isinstance(plan, Scheduled)
        self._arm_scheduled(agent_id, plan.fire_at_ms, node_id, plan.conversation_id, resets_at_ms)

    # ------------------------------------------------------------------ commands of the person

    def set_resume_at(self, agent_id: AgentId, resets_at_ms: int) -> None:
        """ "Resume at this time" of the human net; the agent must run (visible or in the background), or its
        automatic resume must have failed (it is tried again where it would have run)."""
        place = self._locate(agent_id)
        failed = self._failed.pop(agent_id, None)
        if place is None and failed is not None:
            place = AgentPlace(failed.node_id, failed.conversation_id)
        if place is None:
            raise not_found(f"no live session for agent {agent_id}", agentId=agent_id)
        self.confirm_human_resume(agent_id, place.node_id, place.conversation_id, resets_at_ms)

    def cancel_resume(self, agent_id: AgentId, reason: ResumeCancelReason = ResumeCancelReason.USER) -> bool:
        armed = self._armed.get(agent_id)
        if armed is None:
            return False
        if not self._scheduler.cancel(armed.schedule_id):
            return False  # it already fired: the running resume removes the entry and goes ahead
        del self._armed[agent_id]
        self._events.publish(AgentResumeCancelled(agent_id, reason))
        self._diagnostics.beacon(f"[limit] resume cancelled agent={agent_id} reason={reason.value}")
        return True

    def user_took_over(self, agent_id: AgentId) -> bool:
        """The person pressed Enter in the agent's cell while a resume was armed: they are in control (§9.4)."""
        cancelled = self.cancel_resume(agent_id, ResumeCancelReason.USER_TOOK_OVER)
        if cancelled:
            self._relimits.reset(agent_id)
        return cancelled

    async def resume_now(self, agent_id: AgentId) -> bool:
        """ "Resume now": the armed timer is cancelled and the resume runs at once. False when nothing was
        armed, or the timer fired meanwhile (that resume goes ahead)."""
        armed = self._armed.get(agent_id)
        if armed is None or not self._scheduler.cancel(armed.schedule_id):
            return False
        await self.execute_resume(armed.task)
        return True

    def dismiss(self, agent_id: AgentId) -> None:
        """ "Not a limit — dismiss": forget the limit and any armed resume (no `agentResumeCancelled`);
        `agentLimitDismissed` tells every view that shows the limit or its net."""
        self._disarm(agent_id)
        self._limits.pop(agent_id, None)
        self._failed.pop(agent_id, None)
        self._nets.closed(agent_id)
        self._episodes.forget(agent_id)
        self._relimits.reset(agent_id)
        self._events.publish(AgentLimitDismissed(agent_id))

    # ------------------------------------------------------------------ firing

    async def execute_resume(self, task: ScheduledTask) -> None:
        """Raises what the resumer raises (nothing is published then); the armed entry is gone either way."""
        self._armed.pop(task.agent_id, None)
        self._diagnostics.beacon(f"[limit] resuming agent={task.agent_id} node={task.node_id}")
        await self._resumer.resume(task.agent_id, task.node_id, task.conversation_id, RESUME_PROMPT)
        self._limits.pop(task.agent_id, None)
        self._failed.pop(task.agent_id, None)
        self._nets.closed(task.agent_id)
        self._episodes.forget(task.agent_id)
        self._relimits.resumed(task.agent_id, self._clock.now_ms())
        self._events.publish(AgentResumed(task.agent_id))

    async def drain(self, fired: asyncio.Queue[ScheduledTask]) -> None:
        """Run every resume the scheduler fires, one after the other, until cancelled."""
        while True:
            task = await fired.get()
            try:
                await self.execute_resume(task)
            except AppError as exc:
                self._resume_failed(task, exc.message)
            except Exception as exc:  # noqa: BLE001  (one failed resume must not stop the next ones)
                self._resume_failed(task, repr(exc))

    # ------------------------------------------------------------------ queries

    def limit_of(self, agent_id: AgentId) -> SessionLimit | None:
        return self._limits.get(agent_id)

    def armed_fire_at(self, agent_id: AgentId) -> int | None:
        armed = self._armed.get(agent_id)
        return armed.fire_at_ms if armed is not None else None

    def state(self) -> list[tuple[object, int]]:
        """The events, each with its time, that bring a view opened now to what the published ones said:
        each agent's limit, its armed resume, and the nets not answered yet."""
        now = self._clock.now_ms()
        events: list[tuple[object, int]] = []
        for agent_id, limit in self._limits.items():
            events.append((AgentRateLimited(agent_id, limit.resets_at_ms), limit.detected_at_ms))
            armed = self._armed.get(agent_id)
            if armed is not None:
                events.append((AgentResumeScheduled(agent_id, armed.fire_at_ms), now))
        return [*events, *((net, net.raised_at_ms or now) for net in self._nets.all())]

    def forget_agent(self, agent_id: AgentId) -> None:
        """The agent left the team or its project closed."""
        self.dismiss(agent_id)

    # ------------------------------------------------------------------ internals

    def _arm_scheduled(
        self,
        agent_id: AgentId,
        fire_at_ms: int,
        node_id: NodeId | None,
        conversation_id: str | None,
        resets_at_ms: int | None,
    ) -> None:
        self._events.publish(AgentRateLimited(agent_id, resets_at_ms))
        self._disarm(agent_id)
        fire_at = staggered_fire_at(fire_at_ms, (armed.fire_at_ms for armed in self._armed.values()))
        task = ResumeAgent(agent_id, node_id, conversation_id)
        schedule_id = self._scheduler.arm(fire_at, task)
        self._armed[agent_id] = _Armed(schedule_id, fire_at, task)
        self._nets.closed(agent_id)  # a time is known now
        self._events.publish(AgentResumeScheduled(agent_id, fire_at))
        self._diagnostics.beacon(f"[limit] resume scheduled agent={agent_id} fire_at_ms={fire_at}")

    def _human_net(self, agent_id: AgentId, resets_at_ms: int | None, reason: SuspicionReason) -> None:
        self._disarm(agent_id)
        self._events.publish(AgentRateLimited(agent_id, resets_at_ms))
        self._raise_net(AgentRateLimitSuspected(agent_id, resets_at_ms, reason))
        self._diagnostics.beacon(f"[limit] human net agent={agent_id} reason={reason.value}")

    def _resume_failed(self, task: ScheduledTask, detail: str) -> None:
        """An automatic resume failed, nobody watching: never silent, the person is asked (the human net)."""
        agent_id = task.agent_id
        self._failed[agent_id] = task
        self._diagnostics.beacon(f"[limit] resume failed agent={agent_id}: {detail}")
        limit = self._limits.get(agent_id)
        self._events.publish(AgentRateLimited(agent_id, limit.resets_at_ms if limit is not None else None))
        self._raise_net(AgentRateLimitSuspected(agent_id, None, SuspicionReason.RESUME_FAILED, detail))

    def _raise_net(self, net: AgentRateLimitSuspected) -> None:
        net = replace(net, raised_at_ms=self._clock.now_ms())
        self._nets.raised(net)
        self._events.publish(net)

    def _disarm(self, agent_id: AgentId) -> None:
        armed = self._armed.pop(agent_id, None)
        if armed is not None:
            self._scheduler.cancel(armed.schedule_id)
