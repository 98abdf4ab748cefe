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
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from idea.application.orchestrator.cold_start import ColdStartGate
from idea.application.orchestrator.mailbox import TicketRecord
from idea.application.orchestrator.ports import InputPortal, LiveAgent, Timer
from idea.application.orchestrator.rendezvous import ActivitySnapshot, activity_progressed
from idea.application.orchestrator.timing import OrchestratorTimings
from idea.application.ports import Diagnostics
from idea.domain.orchestration.delivery import ERASE_CHAR, encode_delivery, overlay_banner
from idea.domain.orchestration.rules import COLD_START_QUIET_MAX_MS
from idea.domain.profile import DEFAULT_SUBMIT_SEQUENCE


@dataclass(frozen=True)
class DeliveryJob:
    record: TicketRecord
    text: str  # composed by idea.domain.orchestration.delivery.compose_delivery
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
        self._pending_releases: dict[int, asyncio.Task[None]] = {}  # per portal: the overlay's floor
        self._banners: dict[int, str] = {}  # per portal: what its overlay says while it is up

    async def deliver(self, job: DeliveryJob) -> None:
        """Raises AppError when the terminal refuses a write (its process is gone).

        Returns as soon as the CLI took the text: the overlay's floor is only visual, so it ends later on its
        own and never holds the agent's next delivery nor the reply (a next delivery keeps the overlay up)."""
        await self._pass_gate(job)
        await self._wait_for_boundary(job)
        job.record.writing = True
        portal = job.portal
        suspended_at = self._timer.monotonic_ms()
        kept_up = portal is not None and self._keep_overlay(portal)
        released = False
        try:
            banner = overlay_banner(job.record.ticket)
            if portal is not None and (not kept_up or self._banners.get(id(portal)) != banner):
                self._beacon(job, "suspend")
                await portal.suspend(banner)  # kept up for another speaker: its words change
                self._banners[id(portal)] = banner
            await self._type(job)
            if portal is not None:
                floor = suspended_at + self._timings.overlay_floor_ms - self._timer.monotonic_ms()
                self._release_later(portal, max(floor, 0), job)
                released = True
        finally:
            if portal is not None and not released:  # shielded: even a cancelled delivery gives the keyboard back
                self._banners.pop(id(portal), None)
                await asyncio.shield(portal.release())
                self._beacon(job, f"released after_ms={self._timer.monotonic_ms() - suspended_at}")

    def _keep_overlay(self, portal: InputPortal) -> bool:
        """A release still waiting for its floor is called off: the overlay stays up for this delivery."""
        pending = self._pending_releases.pop(id(portal), None)
        if pending is None or pending.done():
            return False
        pending.cancel()
        return True

    def _release_later(self, portal: InputPortal, delay_ms: int, job: DeliveryJob) -> None:
        started = self._timer.monotonic_ms()

        async def release() -> None:
            if delay_ms > 0:
                await self._timer.sleep(delay_ms)
            await asyncio.shield(portal.release())
            self._beacon(job, f"released after_ms={self._timer.monotonic_ms() - started}")

        task = asyncio.get_running_loop().create_task(release())
        self._pending_releases[id(portal)] = task
        task.add_done_callback(lambda done: self._forget_release(portal, done))

    def _forget_release(self, portal: InputPortal, task: asyncio.Task[None]) -> None:
        if self._pending_releases.get(id(portal)) is task:
            del self._pending_releases[id(portal)]
            self._banners.pop(id(portal), None)
        if not task.cancelled() and task.exception() is not None:
            self._diagnostics.beacon(f"[delivery] overlay release failed: {task.exception()!r}")

    async def close(self) -> None:
        """Give every keyboard back now (the project closes)."""
        pending = list(self._pending_releases.values())
        self._pending_releases.clear()
        self._banners.clear()
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)

    async def _pass_gate(self, job: DeliveryJob) -> None:
        gate = job.gate
        if gate is None:
            return
        drawn_at = [0]  # when the CLI last drew, as far as this delivery has seen

        def on_output(_data: bytes) -> None:
            drawn_at[0] = self._timer.monotonic_ms()

        unsubscribe = job.live.terminal.on_output(on_output)
        try:
            if not gate.released:
                self._beacon(job, "gate-wait")
                await gate.wait()
            released_at = gate.released_mono_ms if gate.released_mono_ms is not None else self._timer.monotonic_ms()
            await self._settle(job, released_at, drawn_at)
        finally:
            unsubscribe()

    async def _settle(self, job: DeliveryJob, released_at: int, drawn_at: list[int]) -> None:
        """The TUI finishes drawing: `cold_start_settle_ms` after the gate opened and after the CLI last drew,
        at most `COLD_START_QUIET_MAX_MS` after the gate opened. A CLI may draw its prompt, then draw again
        before it takes input: Gemini CLI resuming a session draws its input box, then "Resuming session…"
        and the conversation, and drops what is typed meanwhile."""
        settle = self._timings.cold_start_settle_ms
        latest = released_at + COLD_START_QUIET_MAX_MS
        while (wait := min(max(released_at, drawn_at[0]) + settle, latest) - self._timer.monotonic_ms()) > 0:
            await self._timer.sleep(wait)
        if drawn_at[0] > released_at:
            self._beacon(job, f"settled after_ms={self._timer.monotonic_ms() - released_at} (the CLI drew on)")

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
        if await self._shows_blocking_prompt(job):  # typed into a dialog, the task would answer it
            return "blocking-prompt"
        return None

    @staticmethod
    async def _shows_blocking_prompt(job: DeliveryJob) -> bool:
        blocking = job.live.profile.blocking_prompts
        if not blocking:
            return False
        screen = await job.live.terminal.screen_text()
        return any(prompt in screen for prompt in blocking)

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
        if await self._shows_blocking_prompt(job):  # it took the text and asks the person: an Enter would answer
            self._beacon(job, "no resubmit: a dialog is on the screen")
            return
        await terminal.write_text(submit)
        self._beacon(job, "resubmit (no turn started)")
        if await self._turn_started(job, before_submit):
            return
        self._beacon(job, "may be stuck in the input box")
        job.on_may_be_stuck()

    async def _turn_started(self, job: DeliveryJob, before: ActivitySnapshot) -> bool:
        """Wait for proof that the CLI took the text, woken by what can prove it — the turn-start hook, the
        ticket's end (a reply), terminal output (after which the activity token is read again) — never by a
        polling timer; at most `submit_verify_ms`. A CLI with no way to tell (no hooks, no transcript) is
        taken at its word: its reply, its prompt pattern and the watchdog follow the ticket from here."""
        record = job.record
        if record.turn_started or record.end is not None or activity_progressed(before, job.probe()):
            return True
        if job.live.profile.hooks is None and record.ticket.target not in before:
            return True
        output = asyncio.Event()
        unsubscribe = job.live.terminal.on_output(lambda _data: output.set())
        deadline = self._timer.monotonic_ms() + self._timings.submit_verify_ms
        try:
            while True:
                remaining = deadline - self._timer.monotonic_ms()
                if remaining <= 0:
                    return False
                output.clear()
                await _first_of(
                    record.turn_signal.wait(), output.wait(), asyncio.shield(record.outcome), self._timer.sleep(remaining)
                )
                if record.turn_started or record.end is not None or activity_progressed(before, job.probe()):
                    return True
        finally:
            unsubscribe()

    def _beacon(self, job: DeliveryJob, what: str) -> None:
        self._diagnostics.beacon(f"[delivery] {what} agent={job.agent_name} ticket={job.record.ticket.id}")


async def _first_of(*waits: Awaitable[object]) -> None:
    """Until the first of `waits` finishes; the others are cancelled."""
    tasks = [asyncio.ensure_future(wait) for wait in waits]
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
