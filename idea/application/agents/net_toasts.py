"""The human net as the window shows it (spec 05 §10): when IdeA cannot resume an agent by itself — a usage
limit without a readable reset, a reset that looks wrong, re-limits after each resume, a long stall — the
person is asked in a non-modal toast in the window, one per agent, besides the entry under Needs you (Agents
panel) and in the work panel. Never a modal dialog: several agents never stack dialogs.

`NetToasts` decides which toasts are shown: every open net of a live agent, the most recent first, at most
`MAX_SHOWN` (the rest are counted; all are listed under Needs you). A toast the person closes stays closed for
that raising of the net; the next raising shows it again. Answering the net anywhere (a time, "Not a limit",
"Keep waiting", "Interrupt agent") closes it everywhere, because every view reads the same `ActivityBook`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from idea.application.agents.agent_rows import AgentRow
from idea.domain.agent_state_events import SuspicionReason
from idea.domain.ids import AgentId
from idea.domain.session_limit import MINUTE_MS

MAX_SHOWN = 3
DEFAULT_NET_DELAY_MS = 60 * MINUTE_MS  # pre-filled when IdeA read no time at all


def human_net_text(name: str, reason: SuspicionReason) -> str:
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
    prefill_ms: int  # the time editor's first value: the suspicious reset read, else an hour from the raising
    raised_at_ms: int
    in_background: bool

    @property
    def key(self) -> tuple[AgentId, int]:
        return self.agent_id, self.raised_at_ms

    @property
    def is_stall(self) -> bool:
        return self.reason is SuspicionReason.STALLED


@dataclass(frozen=True)
class ShownToasts:
    toasts: tuple[NetToast, ...]
    more: int  # open nets beyond MAX_SHOWN whose toast the person did not close


class NetToasts:
    def __init__(self) -> None:
        self._closed: set[tuple[AgentId, int]] = set()

    def shown(self, rows: Iterable[AgentRow], now_ms: int) -> ShownToasts:
        open_nets = [toast for row in rows if (toast := _toast_of(row, now_ms)) is not None]
        open_keys = {toast.key for toast in open_nets}
        self._closed &= open_keys  # a net answered or raised again forgets its closed toast
        visible = sorted((t for t in open_nets if t.key not in self._closed), key=lambda t: -t.raised_at_ms)
        return ShownToasts(tuple(visible[:MAX_SHOWN]), max(0, len(visible) - MAX_SHOWN))

    def close(self, toast: NetToast) -> None:
        """The person closed the toast (×): the net stays open under Needs you and in the work panel."""
        self._closed.add(toast.key)


def _toast_of(row: AgentRow, now_ms: int) -> NetToast | None:
    net = row.activity.human_net
    if net is None or not row.is_live:
        return None
    raised = net.raised_at_ms or now_ms
    prefill = net.resets_at_ms if net.resets_at_ms is not None else raised + DEFAULT_NET_DELAY_MS
    return NetToast(
        row.agent_id, row.name, human_net_text(row.name, net.reason), net.reason, prefill, net.raised_at_ms,
        row.in_background,
    )
