"""Desktop notifications (spec 05 §10, 02 §9): what IdeA tells the person when its window is not in front,
and which kinds they want.

The port is implemented by the infrastructure on the desktop's notification service (freedesktop
notifications, Windows toasts); when the desktop has none, `show` answers False and the UI falls back to its
tray icon. Clicking a notification runs its `on_click` on the core loop.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import Protocol


class NotificationKind(Enum):
    ATTENTION = "attention"  # an agent waits for the person (a dialog, a permission, a sign-in)
    USAGE_LIMIT = "usageLimit"  # an agent hit its usage limit, or IdeA resumed it
    HUMAN_NET = "humanNet"  # IdeA cannot tell when a limit ends, or an agent stalled: the person decides


@dataclass(frozen=True)
class DesktopNote:
    key: str  # one note per key: a new one replaces the previous (e.g. "attention:<agentId>")
    kind: NotificationKind
    title: str
    body: str
    on_click: Callable[[], None] | None = None


class DesktopNotifications(Protocol):
    async def show(self, note: DesktopNote) -> bool:
        """True when the desktop took the notification; False when it has no notification service."""
        ...

    async def withdraw(self, key: str) -> None:
        """Remove the note shown under `key`, if any (the agent no longer needs the person)."""
        ...


def should_notify(kind: NotificationKind, enabled: frozenset[NotificationKind], window_active: bool) -> bool:
    """Only kinds the person kept on, and only while IdeA's window is not the active one: in front of them,
    the cell's badge and the attention list already say it."""
    return kind in enabled and not window_active
