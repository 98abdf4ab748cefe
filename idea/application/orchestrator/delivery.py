"""Typing a ticket into an agent's live terminal (spec 03 §8.2-§8.5).

One delivery at a time per terminal. It waits for a clean boundary (cold-start gate released, no
attention state, no blocking prompt on screen, no half-typed human line, no recent keystroke) and is never
refused, only delayed. Then it suspends human input, erases keys that slipped in, types the text without a
newline, submits after the profile's delay, verifies that a turn started (one resubmit at most), and
releases human input no sooner than the overlay floor. Background agents have no portal: the same steps
without the overlay.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass

from idea.application.orchestrator.cold_start import ColdStartGate
from idea.application.orchestrator.mailbox import TicketRecord
from idea.application.orchestrator.ports import InputPortal, LiveAgent, Timer
from idea.application.orchestrator.rendezvous import ActivitySnapshot, activity_progressed
from idea.application.orchestrator.timing import OrchestratorTimings
from idea.application.ports import Diagnostics
from idea.domain.delivery import ERASE_CHAR, encode_delivery
from idea.domain.profile import DEFAULT_SUBMIT_SEQUENCE

OVERLAY_BANNER = "An agent is speaking — input paused"


@dataclass(frozen=True)
class DeliveryJob:
    record: TicketRecord
    text: str  # composed by idea.domain.delivery.compose_delivery
    live: LiveAgent
    agent_name: str
    portal: InputPortal | None
    gate: ColdStartGate | None
    attention: Callable[[], str | None]
    probe: Callable[[], ActivitySnapshot]
    on_submitted: Callable[[], None]
    on_waiting_for_human: Callable[[], None]  # the long-wait banner
    on_may_be_stuck: Callable[[], None]


class Deliverer:
    def __init__(self, timer: Timer, timings: OrchestratorTimings, diagnostics: Diagnostics) -> None:
        self._timer = timer
        self._timings = timings
        self._diagnostics = diagnostics

    async def deliver(self, job: DeliveryJob) -> None:
        """Raises AppError when the terminal refuses a write (its process is gone)."""
        await self._pass_gate(job)
        await self._wait_for_boundary(job)
        job.record.writing = True
        suspended_at = self._timer.monotonic_ms()
        try:
            if job.portal is not None:
                self._beacon(job, "suspend")
                await job.portal.suspend(OVERLAY_BANNER)
            await self._type(job)
            if job.portal is not None:  # the overlay stays at least its floor, so it never just flickers
                floor = suspended_at + self._timings.overlay_floor_ms - self._timer.monotonic_ms()
                if floor > 0:
                    await self._timer.sleep(floor)
        finally:
            if job.portal is not None:  # shielded: even a cancelled delivery gives the keyboard back
                await asyncio.shield(job.portal.release())
            self._beacon(job, f"released after_ms={self._timer.monotonic_ms() - suspended_at}")

    async def _pass_gate(self, job: DeliveryJob) -> None:
        gate = job.gate
        if gate is None:
            return
        if not gate.released:
            self._beacon(job, "gate-wait")
            await gate.wait()
        released_at = gate.released_mono_ms if gate.released_mono_ms is not None else self._timer.monotonic_ms()
        settle = released_at + self._timings.cold_start_settle_ms - self._timer.monotonic_ms()
        if settle > 0:  # the TUI finishes its first paint
            await self._timer.sleep(settle)

    async def _wait_for_boundary(self, job: DeliveryJob) -> None:
        started = self._timer.monotonic_ms()
        announced: str | None = None
        banner_shown = False
        while (reason := await self._hold_reason(job)) is not None:
            if reason != announced:
                self._beacon(job, f"waiting reason={reason}")
                announced = reason
            waited = self._timer.monotonic_ms() - started
            if reason == "human-line" and not banner_shown and waited >= self._timings.human_line_banner_after_ms:
                banner_shown = True
                job.on_waiting_for_human()
            await self._timer.sleep(self._timings.poll_ms)

    async def _hold_reason(self, job: DeliveryJob) -> str | None:
        """Why the delivery must wait now, cheapest checks first; None at a clean boundary."""
        if job.attention() is not None:
            return "attention"
        if job.portal is not None and not job.record.force_delivery:
            if job.portal.pending_human_chars() > 0:
                return "human-line"
            idle_ms = job.portal.ms_since_last_keystroke()
            if idle_ms is not None and idle_ms < self._timings.keystroke_quiet_ms:
                return "typing"
        blocking = job.live.profile.blocking_prompts
        if blocking:  # typed into a dialog, the task would answer it
            screen = await job.live.terminal.screen_text()
            if any(prompt in screen for prompt in blocking):
                return "blocking-prompt"
        return None

    async def _type(self, job: DeliveryJob) -> None:
        terminal = job.live.terminal
        pending = job.portal.pending_human_chars() if job.portal is not None else 0
        if pending > 0:
            await terminal.write_text(ERASE_CHAR * pending)
            self._beacon(job, f"erased human chars={pending}")
        encoded = encode_delivery(job.text, terminal.bracketed_paste_enabled())
        if encoded.flattened:
            self._beacon(job, "flattened multi-line text (no bracketed paste)")
        for index, chunk in enumerate(encoded.chunks):
            if index:
                await self._timer.sleep(self._timings.chunk_pause_ms)
            await terminal.write_text(chunk)
        self._beacon(
            job,
            f"write bytes={encoded.byte_count} chunks={len(encoded.chunks)} bracketed={str(encoded.bracketed).lower()}",
        )
        profile = job.live.profile
        await self._timer.sleep(profile.submit_delay_ms)
        submit = profile.submit_sequence or DEFAULT_SUBMIT_SEQUENCE
        before_submit = job.probe()
        await terminal.write_text(submit)
        job.on_submitted()
        self._beacon(job, f"submit delay_ms={profile.submit_delay_ms}")
        if await self._turn_started(job, before_submit):
            return
        await terminal.write_text(submit)
        self._beacon(job, "resubmit (no turn started)")
        if await self._turn_started(job, before_submit):
            return
        self._beacon(job, "may be stuck in the input box")
        job.on_may_be_stuck()

    async def _turn_started(self, job: DeliveryJob, before: ActivitySnapshot) -> bool:
        deadline = self._timer.monotonic_ms() + self._timings.submit_verify_ms
        while True:
            if job.record.turn_started or job.record.end is not None or activity_progressed(before, job.probe()):
                return True
            remaining = deadline - self._timer.monotonic_ms()
            if remaining <= 0:
                return False
            await self._timer.sleep(min(self._timings.poll_ms, remaining))

    def _beacon(self, job: DeliveryJob, what: str) -> None:
        self._diagnostics.beacon(f"[delivery] {what} agent={job.agent_name} ticket={job.record.ticket.id}")
