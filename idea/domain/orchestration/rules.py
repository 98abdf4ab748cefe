"""The constants of delegation (spec 03 §8-§9), how environment overrides are read, and the exact error
each refusal and each rendezvous verdict produces (§9.3, 00 §9). Messages are one English sentence and
name the agent, so a model reading only the text knows what happened and what to do."""

from __future__ import annotations

from collections.abc import Sequence

from idea.domain.errors import AppError, ErrorCode
from idea.domain.ids import TicketId
from idea.domain.orchestration.tickets import CancelSource, TicketEnd, TicketEndKind

DEFAULT_RENDEZVOUS_WINDOW_MS = 600_000
DEFAULT_RENDEZVOUS_CEILING_MS = 14_400_000
NO_REPLY_GRACE_MS = 2_000
NO_REPLY_QUIET_MS = 60_000
SUBMIT_VERIFY_MS = 5_000
OVERLAY_FLOOR_MS = 2_000
COLD_START_SETTLE_MS = 500  # after the gate opens and after the CLI last drew, before its first task is typed
COLD_START_QUIET_MAX_MS = 3_000  # a CLI still drawing this long after its gate opened is typed into anyway
KEYSTROKE_QUIET_MS = 800  # no human keystroke for this long before IdeA types
HUMAN_LINE_BANNER_AFTER_MS = 30_000
CHUNK_PAUSE_MS = 10
NATIVE_PROMPT_AFTER_DELIVERY_MS = 10_000  # a prompt this soon after a delivery is IdeA's own
DECLARED_INTENT_FRESH_MS = 600_000
AUTO_INTENT_PREVIEW_CHARS = 120
TASK_PREVIEW_CHARS = 160


def parse_override_ms(raw: str | None) -> int | None:
    """A positive integer of milliseconds replaces a default; 0, negatives, empty or garbage mean "no
    override", so a misconfigured zero can never collapse a window to an instant expiry."""
    if raw is None:
        return None
    text = raw.strip()
    if not text.isascii() or not text.isdigit():
        return None
    value = int(text)
    return value if value > 0 else None


def agent_not_found(name: str, known: Sequence[str]) -> AppError:
    listed = ", ".join(known) if known else "none"
    return AppError(ErrorCode.NOT_FOUND, f"agent '{name}' not found; known agents: {listed}", data={"target": name})


def delegation_cycle(target: str, waits: Sequence[str]) -> AppError:
    """`waits`: the chain of waits from the target back to the requester; just the target for a self-ask."""
    if len(waits) < 2:
        reason = f"{target} cannot ask itself"
    else:
        reason = f"{waits[0]} is waiting on {waits[1]}" + "".join(f", which is waiting on {name}" for name in waits[2:])
    return AppError(
        ErrorCode.DELEGATION_CYCLE,
        f"asking {target} would create a delegation cycle: {reason}",
        data={"target": target},
    )


def bridge_unsupported(name: str, profile_name: str) -> AppError:
    return AppError(
        ErrorCode.BRIDGE_UNSUPPORTED,
        f"agent {name} (profile {profile_name}) cannot receive IdeA delegations",
        data={"target": name},
    )


def no_pending_request(name: str) -> AppError:
    return AppError(ErrorCode.NO_PENDING_REQUEST, f"no pending request to reply to for agent {name}")


def unknown_ticket(ticket_id: str) -> AppError:
    return AppError(ErrorCode.NOT_FOUND, f"unknown ticket {ticket_id}", data={"ticket": ticket_id})


def ticket_of_another_agent(ticket_id: str, addressee: str, caller: str) -> AppError:
    return AppError(
        ErrorCode.PERMISSION_DENIED,
        f"ticket {ticket_id} is addressed to {addressee}, not to {caller}",
        data={"ticket": ticket_id},
    )


def ticket_closed(ticket_id: TicketId, requester: str, end: TicketEnd) -> AppError:
    if end.kind is TicketEndKind.CANCELLED:
        message = "the delegation was cancelled; your result was saved"
    elif end.kind is TicketEndKind.REPLIED:
        message = f"ticket {ticket_id} was already answered; your result was saved"
    else:
        message = (
            f"the requester is no longer waiting for ticket {ticket_id}; your result was saved and will be "
            f"shown to {requester}"
        )
    return AppError(ErrorCode.TICKET_CLOSED, message, data={"ticket": ticket_id})


def _seconds(ms: int) -> str:
    return str(ms // 1000) if ms % 1000 == 0 else f"{ms / 1000:g}"


def verdict_error(
    end: TicketEnd, target: str, requester: str, *, ticket_id: TicketId, elapsed_ms: int, window_ms: int
) -> AppError:
    """The error an ask returns for every end but a reply."""
    code = end.error_code
    if code is None:
        raise ValueError(f"a {end.kind} ticket has no verdict error")
    retryable = False
    if end.kind is TicketEndKind.NO_REPLY and end.note:
        retryable = True
        message = (
            f"agent {target}'s turn ended on an error of its model's API ({end.note}) before it replied; retry "
            "the request later"
        )
    elif end.kind is TicketEndKind.NO_REPLY:
        retryable = True
        message = (
            f"agent {target} returned to its prompt without calling idea_reply (no answer was rendered); "
            "retry the request and ensure the agent replies via idea_reply"
        )
    elif end.kind is TicketEndKind.TIMED_OUT:
        retryable = True
        message = f"agent {target} showed no activity for {_seconds(window_ms)} s and did not reply; retry or check it"
    elif end.kind is TicketEndKind.CEILING_REACHED:
        message = (
            f"target {target} is still actively working but the rendezvous ceiling was reached; do not retry "
            "blindly — check the target's in-progress work/branch (it may still finish and call idea_reply), "
            "then re-solicit lightly if needed"
        )
    elif end.kind is TicketEndKind.TARGET_DIED:
        retryable = True
        code_text = end.exit_code if end.exit_code is not None else "unknown"
        message = f"agent {target} exited (code {code_text}) before replying"
    elif end.kind is TicketEndKind.TARGET_STOPPED:
        message = f"agent {target} was stopped before replying"
    elif end.kind is TicketEndKind.RATE_LIMITED:
        data = {"resetsAtMs": end.resets_at_ms, "autoResume": end.auto_resume}
        if end.auto_resume and end.note:
            message = (
                f"agent {target} hit its usage limit; IdeA will resume it at {end.note}; its reply, if any, will be "
                "delivered to you then"
            )
        else:
            message = (
                f"agent {target} hit its usage limit and IdeA could not tell when it resets; the person was asked "
                "when to resume it; its reply, if any, will be delivered to you then"
            )
        return AppError(
            code, message, retryable=False, data={"ticket": ticket_id, "target": target, "elapsedMs": elapsed_ms, **data}
        )
    elif end.kind is TicketEndKind.NEEDS_ATTENTION:
        retryable = True
        message = end.note or f"agent {target} is waiting for the person; retry once they have answered it"
    else:
        message = _cancel_message(end.cancel_source, target, requester)
    return AppError(
        code,
        message,
        retryable=retryable,
        data={"ticket": ticket_id, "target": target, "elapsedMs": elapsed_ms},
    )


def _cancel_message(source: CancelSource | None, target: str, requester: str) -> str:
    if source is CancelSource.USER:
        return f"the user cancelled this delegation to {target}"
    if source is CancelSource.REQUESTER_NEW_PROMPT:
        return f"the delegation to {target} was cancelled because {requester} started a new turn"
    if source is CancelSource.REQUESTER_STOPPED:
        return f"the delegation to {target} was cancelled because {requester} stopped"
    if source is CancelSource.PROJECT_CLOSED:
        return f"the delegation to {target} was cancelled because the project was closed"
    return f"the delegation to {target} was cancelled because {requester} stopped waiting"
