"""`DesktopAlerts`: the desktop notifications of one IdeA (spec 05 §10, 02 §9): an agent needs the person,
hit its usage limit, was resumed, or IdeA cannot tell when its limit ends. Only while IdeA's window is not
the active one, and only for the kinds the person keeps on; a click focuses the agent's cell (attaching a
background agent first). When the desktop has no notification service, the UI is asked to show the note
with its tray icon instead.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from idea.application.notifications import DesktopNote, DesktopNotifications, NotificationKind, should_notify
from idea.application.ports import Diagnostics
from idea.domain.agent_states.attention import Attention, attention_title
from idea.domain.ids import AgentId, ProjectId

ALL_KINDS = frozenset(NotificationKind)


class DesktopAlerts:
    def __init__(
        self,
        *,
        notifications: DesktopNotifications,
        diagnostics: Diagnostics,
        focus_agent: Callable[[ProjectId, AgentId], None],
        tray_fallback: Callable[[DesktopNote], None],
        format_time: Callable[[int], str],
    ) -> None:
        """`focus_agent`: what a click does; `tray_fallback`: shows a note when the desktop cannot;
        `format_time(epoch_ms)`: "15:00" (with the date when not today), local time."""
        self._notifications = notifications
        self._diagnostics = diagnostics
        self._focus_agent = focus_agent
        self._tray_fallback = tray_fallback
        self._format_time = format_time
        self.window_active = True
        self.enabled: frozenset[NotificationKind] = ALL_KINDS
        self._tasks: set[asyncio.Task[Any]] = set()

    # --- what happened ---------------------------------------------------------------------------------

    def attention(
        self, project_id: ProjectId, agent_id: AgentId, name: str, attention: Attention | None, visible: bool
    ) -> None:
        key = f"attention:{project_id}:{agent_id}"
        if attention is None:
            self._spawn(self._notifications.withdraw(key))
            return
        where = "Click to show its cell." if visible else "It runs in the background: click to show it in a cell."
        said = f"“{attention.message}”\n" if attention.message else ""
        title = attention_title(name, attention.reason)
        self._note(project_id, agent_id, key, NotificationKind.ATTENTION, title, said + where)

    def limited(self, project_id: ProjectId, agent_id: AgentId, name: str, resets_at_ms: int | None) -> None:
        when = f"until {self._format_time(resets_at_ms)}" if resets_at_ms is not None else "(reset time unknown)"
        body = "IdeA will resume it then." if resets_at_ms is not None else "Tell IdeA when to resume it."
        title = f"{name} hit its usage limit {when}"
        self._note(project_id, agent_id, f"limit:{project_id}:{agent_id}", NotificationKind.USAGE_LIMIT, title, body)

    def resumed(self, project_id: ProjectId, agent_id: AgentId, name: str) -> None:
        body = "Its usage limit has been lifted; it continues where it left off."
        key = f"limit:{project_id}:{agent_id}"
        self._note(project_id, agent_id, key, NotificationKind.USAGE_LIMIT, f"{name} was resumed", body)

    def human_net(self, project_id: ProjectId, agent_id: AgentId, title: str) -> None:
        body = "Open IdeA to decide when to resume it."
        self._note(project_id, agent_id, f"net:{project_id}:{agent_id}", NotificationKind.HUMAN_NET, title, body)

    # --- internals -------------------------------------------------------------------------------------

    def _note(
        self, project_id: ProjectId, agent_id: AgentId, key: str, kind: NotificationKind, title: str, body: str
    ) -> None:
        if not should_notify(kind, self.enabled, self.window_active):
            return
        note = DesktopNote(key, kind, title, body, on_click=lambda: self._focus_agent(project_id, agent_id))
        self._spawn(self._show(note))

    async def _show(self, note: DesktopNote) -> None:
        try:
            shown = await self._notifications.show(note)
        except Exception as exc:  # noqa: BLE001  (a notification never takes anything down)
            self._diagnostics.beacon(f"[notify] failed {note.key}: {exc!r}")
            shown = False
        if not shown:
            self._tray_fallback(note)

    def _spawn(self, work: Any) -> None:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
