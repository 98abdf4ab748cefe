"""Desktop notifications through a real D-Bus session bus (`dbus-daemon`) and a fake freedesktop
notification service on it: shown, clicked, withdrawn; and a clean "unavailable" without a service or a bus."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
from collections.abc import AsyncIterator, Iterator

import pytest
from dbus_fast.aio import MessageBus
from dbus_fast.service import ServiceInterface, method, signal

from idea.application.notifications import DesktopNote, NotificationKind
from idea.infrastructure.notify.desktop import DesktopNotifierAdapter
from tests.fakes import RecordingDiagnostics

pytestmark = pytest.mark.skipif(shutil.which("dbus-daemon") is None, reason="dbus-daemon is not installed")


class FakeNotificationService(ServiceInterface):
    """org.freedesktop.Notifications as a desktop shell serves it, recording what it is asked."""

    def __init__(self) -> None:
        super().__init__("org.freedesktop.Notifications")
        self.shown: dict[int, tuple[str, str, list[str]]] = {}
        self.closed: list[int] = []
        self.received = asyncio.Event()
        self._next = 0

    @method()
    def GetCapabilities(self) -> "as":  # noqa: F722, N802
        return ["actions", "body"]

    @method()
    def GetServerInformation(self) -> "ssss":  # noqa: F722, N802
        return ["fake-shell", "IdeA tests", "1.0", "1.2"]

    @method()
    def Notify(  # noqa: N802
        self,
        app_name: "s",  # noqa: F821
        replaces_id: "u",  # noqa: F821
        app_icon: "s",  # noqa: F821
        summary: "s",  # noqa: F821
        body: "s",  # noqa: F821
        actions: "as",  # noqa: F821, F722
        hints: "a{sv}",  # noqa: F722
        expire_timeout: "i",  # noqa: F821
    ) -> "u":  # noqa: F821
        self._next += 1
        self.shown[self._next] = (summary, body, list(actions))
        self.received.set()
        return self._next

    @method()
    def CloseNotification(self, notification_id: "u"):  # noqa: F821, N802
        self.closed.append(notification_id)
        self.NotificationClosed(notification_id, 3)

    @signal()
    def ActionInvoked(self, notification_id, action_key) -> "us":  # noqa: F821, N802
        return [notification_id, action_key]

    @signal()
    def NotificationClosed(self, notification_id, reason) -> "uu":  # noqa: F821, N802
        return [notification_id, reason]


@pytest.fixture
def session_bus(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    daemon = subprocess.Popen(
        ["dbus-daemon", "--session", "--nofork", "--nopidfile", "--print-address=1"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert daemon.stdout is not None
        address = daemon.stdout.readline().strip()
        assert address, "dbus-daemon printed no address"
        monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", address)
        yield address
    finally:
        daemon.terminate()
        daemon.wait(10)


@pytest.fixture
async def notification_service(session_bus: str) -> AsyncIterator[FakeNotificationService]:
    bus = await MessageBus(bus_address=session_bus).connect()
    service = FakeNotificationService()
    bus.export("/org/freedesktop/Notifications", service)
    await bus.request_name("org.freedesktop.Notifications")
    yield service
    bus.disconnect()


async def test_a_note_is_shown_clicked_and_withdrawn(notification_service: FakeNotificationService) -> None:
    clicked = asyncio.Event()
    diagnostics = RecordingDiagnostics()
    adapter = DesktopNotifierAdapter(diagnostics)
    note = DesktopNote(
        key="attention:architect",
        kind=NotificationKind.ATTENTION,
        title="Architect asks whether you trust its folder",
        body="It runs in the background. Click to show it.",
        on_click=clicked.set,
    )

    assert await adapter.show(note) is True
    [(notification_id, (summary, body, actions))] = notification_service.shown.items()
    assert (summary, body) == (note.title, note.body)
    assert "default" in actions  # a click on the body is an action the service reports

    notification_service.ActionInvoked(notification_id, "default")
    await asyncio.wait_for(clicked.wait(), 10)

    assert await adapter.show(note) is True  # a second note of the same key replaces the first
    second = max(notification_service.shown)
    await adapter.withdraw(note.key)
    assert notification_service.closed == [second]
    assert diagnostics.lines == []


async def test_a_bus_without_a_notification_service_is_reported_unavailable_once(session_bus: str) -> None:
    diagnostics = RecordingDiagnostics()
    adapter = DesktopNotifierAdapter(diagnostics)
    note = DesktopNote("k", NotificationKind.USAGE_LIMIT, "Architect hit its usage limit", "until 15:00")
    assert await adapter.show(note) is False
    assert await adapter.show(note) is False
    assert len(diagnostics.lines) == 1 and "unavailable" in diagnostics.lines[0]


async def test_no_session_bus_at_all(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    monkeypatch.delenv("DBUS_SESSION_BUS_ADDRESS", raising=False)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    diagnostics = RecordingDiagnostics()
    adapter = DesktopNotifierAdapter(diagnostics)
    assert await adapter.show(DesktopNote("k", NotificationKind.HUMAN_NET, "t", "b")) is False
    assert diagnostics.lines == ["[notify] desktop notifications unavailable: no D-Bus session bus; the tray icon is used"]
