"""`DesktopNotifierAdapter`: the `DesktopNotifications` port on `desktop-notifier`, which speaks the
freedesktop notification service over D-Bus on Linux and shows toasts on Windows.

It runs on the core loop (D-Bus replies and clicks arrive on the loop that sent the notification). Without a
session bus, or without a notification service on it, `show` answers False once the library has tried, so
the UI can use its tray icon instead; the library's own warning is kept out of the terminal and said once in
IdeA's diagnostics log.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from pathlib import Path
from typing import Any

from idea.application.notifications import DesktopNote
from idea.application.ports import Diagnostics

APP_NAME = "IdeA"
DISPATCH_WAIT_S = 5.0

logging.getLogger("desktop_notifier").addHandler(logging.NullHandler())  # no traceback on stderr per note


def session_bus_reachable(environ: dict[str, str] | None = None) -> bool:
    """Whether a D-Bus session bus can be found (Linux); other platforms have no such need."""
    if not sys.platform.startswith("linux"):
        return True
    env = os.environ if environ is None else environ
    address = env.get("DBUS_SESSION_BUS_ADDRESS", "")
    if address:
        return True
    runtime = env.get("XDG_RUNTIME_DIR")
    return bool(runtime) and Path(runtime, "bus").exists()


class DesktopNotifierAdapter:
    def __init__(self, diagnostics: Diagnostics, icon_path: str | None = None, app_name: str = APP_NAME) -> None:
        self._diagnostics = diagnostics
        self._icon_path = icon_path
        self._app_name = app_name
        self._notifier: Any = None
        self._shown: dict[str, str] = {}  # key -> the library's identifier
        self._unavailable_said = False

    async def show(self, note: DesktopNote) -> bool:
        if not session_bus_reachable():
            self._say_unavailable("no D-Bus session bus")
            return False
        notifier = self._library()
        if notifier is None:
            return False
        await self.withdraw(note.key)
        dispatched = asyncio.Event()

        def clicked() -> None:
            self._shown.pop(note.key, None)
            if note.on_click is not None:
                note.on_click()

        identifier = await notifier.send(
            title=note.title,
            message=note.body,
            on_dispatched=dispatched.set,
            on_clicked=clicked,
            on_dismissed=lambda: self._shown.pop(note.key, None),
        )
        if not dispatched.is_set():
            self._say_unavailable("the desktop's notification service did not take it")
            return False
        self._shown[note.key] = identifier
        return True

    async def withdraw(self, key: str) -> None:
        identifier = self._shown.pop(key, None)
        if identifier is None or self._notifier is None:
            return
        try:
            await self._notifier.clear(identifier)
        except Exception as exc:  # noqa: BLE001  (already gone on the desktop's side)
            self._diagnostics.beacon(f"[notify] could not withdraw {key}: {exc!r}")

    def _library(self) -> Any:
        if self._notifier is None:
            try:
                from desktop_notifier import DesktopNotifier, Icon
            except ImportError as exc:
                self._say_unavailable(f"desktop-notifier is not installed ({exc})")
                return None
            icon = Icon(path=Path(self._icon_path)) if self._icon_path else None
            self._notifier = DesktopNotifier(app_name=self._app_name, app_icon=icon)
        return self._notifier

    def _say_unavailable(self, why: str) -> None:
        if not self._unavailable_said:
            self._unavailable_said = True
            self._diagnostics.beacon(f"[notify] desktop notifications unavailable: {why}; the tray icon is used")
