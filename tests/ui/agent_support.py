"""The real IdeA application for the agent screens (`BootstrappedApp`): bootstrap with the headless terminal
backend, a project folder, and a custom profile running a fake agent CLI, so no real CLI is needed. (Use-case
tests drive the application wired with in-memory fakes instead: `tests/world.py`.)"""

from __future__ import annotations

import sys
import uuid
from collections.abc import Callable, Coroutine, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from pytestqt.qtbot import QtBot

from idea.application.projects import ProjectRuntime
from idea.bootstrap import App, bootstrap
from idea.domain.agent import AgentEntry
from idea.domain.ids import AgentId, NodeId, SessionId
from idea.domain.profile import Profile
from idea.infrastructure.host import LocalHost
from idea.ui.core_client import CoreClient
from idea.ui.event_relay import EventRelay
from idea.ui.gui_thread import GuiThread

T = TypeVar("T")
WAIT_MS = 60_000  # a safety net around condition waits
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "agents"
FAKE_CLI = FIXTURES / "fake_agent_cli.py"
FAKE_BIN = FIXTURES / "bin"  # holds only a fake `claude` that prints a version


class PathHost(LocalHost):
    """The local machine, except that programs are looked up only on `path`."""

    def __init__(self, path: str) -> None:
        self._path = path

    def environ(self) -> dict[str, str]:
        return {**super().environ(), "PATH": self._path}


@dataclass
class RecordingHost:
    """The window side of the Agents panel: an active cell the test chooses, and the focus requests."""

    leaf: NodeId | None = None
    focused: list[SessionId] = field(default_factory=list)
    conversations: list[AgentId] = field(default_factory=list)

    def active_leaf(self) -> NodeId | None:
        return self.leaf

    def focus_session(self, session_id: SessionId) -> None:
        self.focused.append(session_id)

    def open_agent_conversation(self, agent_id: AgentId) -> None:
        self.conversations.append(agent_id)


@dataclass
class BootstrappedApp:
    app: App
    client: CoreClient
    relay: EventRelay
    project_dir: Path
    unexpected_errors: list[BaseException]

    def on_core(self, work: Coroutine[Any, Any, T]) -> T:
        """Run a use case on the core loop and wait for it (test set-up and checks only)."""
        return self.app.core.submit(work).result(WAIT_MS / 1000)

    def sync(self, fn: Callable[[], T]) -> T:
        async def run() -> T:
            return fn()

        return self.on_core(run())

    def open_project(self, path: Path | None = None) -> ProjectRuntime:
        return self.on_core(self.app.projects.open(str(path or self.project_dir)))

    def add_fake_profile(self, name: str = "Fake CLI") -> Profile:
        profile = Profile.from_json(
            {
                "id": str(uuid.uuid4()),
                "name": name,
                "command": sys.executable,
                "args": [str(FAKE_CLI)],
                "contextInjection": {"strategy": "conventionFile", "target": "AGENTS.md"},
            }
        )
        self.sync(lambda: self.app.profiles.save_profile(profile))
        return profile

    def create_agent(self, runtime: ProjectRuntime, name: str, profile: Profile, persona: str = "# Role\n") -> AgentEntry:
        return self.on_core(runtime.agents.create(name, profile.id, persona))


def bootstrapped_app(qtbot: QtBot, tmp_path: Path, host: LocalHost | None = None) -> Iterator[BootstrappedApp]:
    project_dir = tmp_path / "project"
    project_dir.mkdir()
    app = bootstrap(data_dir=tmp_path / "data", host=host)
    gui = GuiThread()
    errors: list[BaseException] = []
    client = CoreClient(app.core, gui, errors.append)
    relay = EventRelay(app.events)
    started = BootstrappedApp(app, client, relay, project_dir, errors)
    try:
        yield started
    finally:
        relay.close()
        app.shutdown()
    assert not errors, f"errors reached the window's reporter: {errors!r}"
