"""When an agent needs the person (spec 05 §1 attention axis, §2.3; 02 §9; 03 §8.7): why, in words the
person reads, and what an agent waiting on it is told.

Sources: a Claude `Notification` hook (permission prompt, idle input wait), a profile's `blockingPrompts`
literal visible on the agent's screen (a trust dialog, a sign-in screen, a yes/no question), a delivery whose
text sat in the input box, a cold start that never became ready.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from idea.domain.ids import AgentId


class AttentionReason(Enum):
    PERMISSION = "permission"  # the CLI asks to allow a tool or a command
    INPUT = "input"  # the CLI waits for the person's input (Claude's idle notification)
    TRUST = "trust"  # the workspace-trust dialog of a new folder
    SIGN_IN = "signIn"  # the CLI wants a login
    QUESTION = "question"  # any other on-screen question (yes/no, a menu)
    NOT_STARTED = "notStarted"  # a cold start that gave no readiness signal in time
    DELIVERY_STUCK = "deliveryStuck"  # a delivered task may still sit in the input box

    @property
    def blocks_delivery(self) -> bool:
        """While the CLI shows a dialog, text typed into it would answer the dialog (§8.7)."""
        return self not in (AttentionReason.DELIVERY_STUCK, AttentionReason.NOT_STARTED)


class AttentionOrigin(Enum):
    HOOK = "hook"  # ended by the next turn start or turn end
    SCREEN = "screen"  # ended when the literal leaves the screen
    CORE = "core"  # raised by IdeA itself (a delivery, a cold start); ended by the next turn


@dataclass(frozen=True)
class Attention:
    reason: AttentionReason
    message: str  # what the CLI said, or IdeA's own description
    origin: AttentionOrigin
    since_ms: int


_SIGN_IN_WORDS = ("sign in", "sign-in", "log in", "login", "authenticate", "api key")
_TRUST_WORDS = ("trust", "safety check")
_PERMISSION_WORDS = (
    "permission",
    "allow",
    "approve",
    "would you like to run",
    "would you like to make",
    "to run tool",  # Codex's MCP tool approval: Allow the <server> MCP server to run tool "<tool>"?
    "apply this change",  # Gemini CLI's edit confirmation
    "do you want to proceed",  # Gemini CLI's web-fetch confirmation
)


# Claude Code's `notification_type`s that tell of something over (a sign-in done, a dialog answered): no one
# is needed.
_NOTIFICATIONS_OF_NOTHING_PENDING = frozenset({"auth_success", "elicitation_complete", "elicitation_response"})
_NOTIFICATION_REASONS = {
    "permission_prompt": AttentionReason.PERMISSION,
    "ToolPermission": AttentionReason.PERMISSION,  # Gemini CLI's, before a tool it must confirm
    "idle_prompt": AttentionReason.INPUT,
    "elicitation_dialog": AttentionReason.QUESTION,  # an MCP server asks the person through the CLI
}


def reason_of_notification(message: str | None, notification_type: str | None = None) -> AttentionReason | None:
    """Claude's `Notification` hook (§2.3) and Gemini's, by its `notification_type` when it has one, else by its
    message: a permission prompt when it mentions permission, else an input wait. None: nothing waits for the
    person."""
    if notification_type in _NOTIFICATIONS_OF_NOTHING_PENDING:
        return None
    known = _NOTIFICATION_REASONS.get(notification_type or "")
    if known is not None:
        return known
    return AttentionReason.PERMISSION if message and "permission" in message.lower() else AttentionReason.INPUT


def reason_of_screen_prompt(literal: str) -> AttentionReason:
    """What a profile's blocking-prompt literal means, from its words."""
    text = literal.lower()
    if any(word in text for word in _TRUST_WORDS):
        return AttentionReason.TRUST
    if any(word in text for word in _SIGN_IN_WORDS):
        return AttentionReason.SIGN_IN
    if any(word in text for word in _PERMISSION_WORDS):
        return AttentionReason.PERMISSION
    return AttentionReason.QUESTION


def visible_blocking_prompt(screen: str, literals: tuple[str, ...]) -> str | None:
    """The first literal of the profile shown on `screen`, None when none is."""
    return next((literal for literal in literals if literal and literal in screen), None)


_WHAT_IT_WAITS_FOR = {
    AttentionReason.PERMISSION: "waits for your permission",
    AttentionReason.INPUT: "waits for your input",
    AttentionReason.TRUST: "asks whether you trust its folder",
    AttentionReason.SIGN_IN: "needs you to sign in",
    AttentionReason.QUESTION: "asks you a question",
    AttentionReason.NOT_STARTED: "needs you before it can start",
    AttentionReason.DELIVERY_STUCK: "may not have received its task (it may still sit in its input box)",
}


def attention_title(agent_name: str, reason: AttentionReason) -> str:
    """ "Architect asks whether you trust its folder"."""
    return f"{agent_name} {_WHAT_IT_WAITS_FOR[reason]}"


def requester_note(agent_name: str, attention: Attention, visible: bool, *, delivered: bool) -> str:
    """What an agent waiting on `agent_name` is told: why nothing happens, that the person was told, and
    what becomes of its request (`delivered`: the target already had it)."""
    where = "in its cell" if visible else "(it runs in the background; they can show it in a cell)"
    said = f': "{_shortened(attention.message)}"' if attention.message else ""
    then = (
        "its reply, if any, will be delivered to you later"
        if delivered
        else "your request was not delivered to it; retry once they have answered"
    )
    return (
        f"agent {agent_name} is waiting for the person: it {_WHAT_IT_WAITS_FOR[attention.reason]}{said}. "
        f"IdeA asked the person to answer it {where}; {then}"
    )


@dataclass(frozen=True)
class AttentionEntry:
    """One line of the attention list: an agent that needs the person now."""

    agent_id: AgentId
    agent_name: str
    attention: Attention
    visible: bool


def _shortened(text: str, limit: int = 160) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
