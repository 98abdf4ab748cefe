"""The human net as the window shows it (spec 05 §10): when IdeA cannot resume an agent by itself — a usage
limit without a readable reset, a reset that looks wrong, re-limits after each resume, a long stall, an
automatic resume that failed — the
person is asked in a non-modal toast in the window, one per agent, besides the entry under Needs you (Agents
panel) and in the work panel. Never a modal dialog: several agents never stack dialogs.

`NetToasts` decides which toasts are shown: every open net of a live agent (and of any agent whose resume
failed), the most recent first, at most
`MAX_SHOWN` (the rest are counted; all are listed under Needs you). A toast the person closes stays closed for
that raising of the net; the next raising shows it again. Answering the net anywhere (a time, "Not a limit",
"Keep waiting", "Interrupt agent") closes it everywhere, because every view reads the same `ActivityBook`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from idea.application.agents.agent_activity import HumanNet
from idea.application.agents.agent_rows import AgentRow
from idea.domain.agent_states.events import SuspicionReason
from idea.domain.agent_states.session_limit import MINUTE_MS
from idea.domain.ids import AgentId

MAX_SHOWN = 3
DEFAULT_NET_DELAY_MS = 60 * MINUTE_MS  # pre-filled when IdeA read no time at all


def human_net_text(name: str, reason: SuspicionReason, detail: str | None = None) -> str:
    if reason is SuspicionReason.RESUME_FAILED:
        return f"IdeA could not resume {name} after its usage limit" + (f": {detail}" if detail else ".")
    if reason is SuspicionReason.STALLED:  # raised after the stall threshold plus a minute: 6 min by default
        return f"{name} has shown no activity for several minutes while working on a task."
    if reason is SuspicionReason.IMPLAUSIBLE_RESET:
        return f"{name} seems blocked by a usage limit; the reset time IdeA read looks wrong. Check it."
    if reason is SuspicionReason.RELIMITED:
        return f"{name} hit its usage limit again right after each resume; IdeA stopped resuming it."
    return f"{name} seems blocked by a usage limit, but IdeA could not read when it resets."


@dataclass(frozen=True)
class NetToast:
    agent_id: AgentId
    name: str
    text: str
    reason: SuspicionReason
    prefill_ms: int  # the time editor's first value (`net_prefill`)
    raised_at_ms: int
    in_background: bool

    @property
    def key(self) -> tuple[AgentId, int]:
        return self.agent_id, self.raised_at_ms

    @property
    def answers(self) -> tuple[str, ...]:
        """The net's answers besides "Resume at this time", as the buttons say them."""
        return net_answers(self.reason)


DISMISS, KEEP_WAITING, NOT_A_LIMIT, INTERRUPT = "Dismiss", "Keep waiting", "Not a limit — dismiss", "Interrupt agent"


def net_answers(reason: SuspicionReason) -> tuple[str, ...]:
    """A failed resume is not in doubt and its agent may not run: no "Not a limit", nothing to interrupt."""
    if reason is SuspicionReason.RESUME_FAILED:
        return (DISMISS,)
    return (KEEP_WAITING if reason is SuspicionReason.STALLED else NOT_A_LIMIT, INTERRUPT)


def net_shown(row: AgentRow) -> bool:
    """An open net is shown for an agent that runs, and after a failed resume whether it runs or not."""
    net = row.activity.human_net
    return net is not None and (row.is_live or net.reason is SuspicionReason.RESUME_FAILED)


@dataclass(frozen=True)
class ShownToasts:
    toasts: tuple[NetToast, ...]
    more: int  # open nets beyond MAX_SHOWN whose toast the person did not close


class NetToasts:
    def __init__(self) -> None:
        # Kept while the window lives (a few bytes per closed toast): another project's tab shown meanwhile
        # must not bring a closed toast back.
        self._closed: set[tuple[AgentId, int]] = set()

    def shown(self, rows: Iterable[AgentRow], now_ms: int) -> ShownToasts:
        open_nets = [toast for row in rows if (toast := _toast_of(row, now_ms)) is not None]
        visible = sorted((t for t in open_nets if t.key not in self._closed), key=lambda t: -t.raised_at_ms)
        return ShownToasts(tuple(visible[:MAX_SHOWN]), max(0, len(visible) - MAX_SHOWN))

    def close(self, toast: NetToast) -> None:
        """The person closed the toast (×): the net stays open under Needs you and in the work panel."""
        self._closed.add(toast.key)


def net_prefill(net: HumanNet, now_ms: int) -> int:
    """The time editor's first value: the reset IdeA read (if suspicious), now after a failed resume (to try
    again once what stopped it is fixed), else an hour after the net was raised."""
    raised = net.raised_at_ms or now_ms
    if net.resets_at_ms is not None:
        return net.resets_at_ms
    return raised if net.reason is SuspicionReason.RESUME_FAILED else raised + DEFAULT_NET_DELAY_MS


def _toast_of(row: AgentRow, now_ms: int) -> NetToast | None:
    net = row.activity.human_net
    if net is None or not net_shown(row):
        return None
    text = human_net_text(row.name, net.reason, net.detail)
    return NetToast(
        row.agent_id, row.name, text, net.reason, net_prefill(net, now_ms), net.raised_at_ms, row.in_background
    )
