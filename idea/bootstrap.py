"""The composition root: the one place where adapters are chosen and wired to the use cases.

Entry points (the GUI, tests, headless tools) call `bootstrap` and pass what differs between them, as
in cosmicpython's bootstrap: the terminal backend, the clock, the id source.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from idea.application.ports import Clock, Host, IdGenerator, TerminalFactory
from idea.application.preferences import Preferences
from idea.application.projects import ProjectDeps, ProjectService
from idea.infrastructure.clock import SystemClock, Uuid4Generator
from idea.infrastructure.core_loop import CoreLoop
from idea.infrastructure.diagnostics import FileDiagnostics
from idea.infrastructure.event_bus import EventBus
from idea.infrastructure.host import LocalHost
from idea.infrastructure.paths import user_data_dir
from idea.infrastructure.project_folder import LocalProjectFolder
from idea.infrastructure.stores.layouts import JsonLayoutStore
from idea.infrastructure.stores.user_data import JsonUserDataStore

TerminalBackend = Callable[[asyncio.AbstractEventLoop], TerminalFactory]


@dataclass
class App:
    data_dir: Path
    core: CoreLoop
    events: EventBus
    diagnostics: FileDiagnostics
    preferences: Preferences
    projects: ProjectService

    def shutdown(self, timeout: float = 10.0) -> None:
        """Stop every project's processes, then the core loop."""
        try:
            self.core.submit(self.projects.close_all()).result(timeout)
        finally:
            self.core.stop()


def headless_terminals(loop: asyncio.AbstractEventLoop) -> TerminalFactory:
    from idea.infrastructure.pty.ptyprocess_terminal import PtyProcessTerminalFactory

    return PtyProcessTerminalFactory(loop)


def bootstrap(
    *,
    terminals: TerminalBackend = headless_terminals,
    data_dir: Path | None = None,
    clock: Clock | None = None,
    ids: IdGenerator | None = None,
    host: Host | None = None,
) -> App:
    data_dir = data_dir or user_data_dir()
    data_dir.mkdir(parents=True, exist_ok=True)
    diagnostics = FileDiagnostics(data_dir / "logs")
    diagnostics.beacon("[startup] IdeA launched; diagnostics log armed")
    events = EventBus()
    user_data = JsonUserDataStore(data_dir)
    preferences = Preferences(user_data, events, diagnostics)
    core = CoreLoop().start()
    deps = ProjectDeps(
        folder=LocalProjectFolder(),
        layouts=JsonLayoutStore(),
        terminals=terminals(core.loop),
        host=host or LocalHost(),
        clock=clock or SystemClock(),
        ids=ids or Uuid4Generator(),
        events=events,
        diagnostics=diagnostics,
        settings=lambda: preferences.settings,
    )
    return App(
        data_dir=data_dir,
        core=core,
        events=events,
        diagnostics=diagnostics,
        preferences=preferences,
        projects=ProjectService(deps, user_data),
    )
