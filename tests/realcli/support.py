"""Running a real agent CLI as an IdeA agent in a cell of the real GUI, and finding the processes it left."""

from __future__ import annotations

import concurrent.futures
import os
import signal
import time
from collections.abc import Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Self, TypeVar

import psutil
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QLabel, QPushButton
from pytestqt.exceptions import TimeoutError as WaitTimeout

from idea.application.agents.placement_rules import InCell
from idea.application.projects import ProjectRuntime
from idea.domain import layout as lay
from idea.domain.agent import AgentEntry
from idea.domain.agent_states.attention import AttentionReason
from idea.domain.profile import reference_profile_id
from idea.domain.session import SessionInfo
from idea.ui.agents.agents_panel import AgentsPanel
from idea.ui.layout.cell import CellWidget
from idea.ui.windows.project_tab import ProjectTab
from tests.ui.gui_support import Gui

T = TypeVar("T")

# First starts of these CLIs are slow on a fresh machine (cold caches, a daemon unpacked into CODEX_HOME).
START_TIMEOUT_MS = 60_000
CALL_TIMEOUT_MS = 30_000
QUIET_MS = 300  # the display redraws at most 40 ms after output
QUIET_TIMEOUT_MS = 10_000
PERSONA = "# Role\nYou check that IdeA runs this CLI.\n"


# -- processes --


def processes_with_home(home: Path) -> list[psutil.Process]:
    """The live processes of this user whose environment has HOME=`home` (never this test process)."""
    wanted = str(home)
    own = os.getpid()
    uid = os.getuid()
    found = []
    for process in psutil.process_iter(["uids"]):
        uids = process.info["uids"]
        if process.pid == own or uids is None or uids.real != uid:
            continue
        try:
            if process.environ().get("HOME") == wanted and process.status() != psutil.STATUS_ZOMBIE:
                found.append(process)
        except psutil.Error:
            continue
    return found


def process_tree(pid: int | None) -> list[psutil.Process]:
    """`pid` and all its descendants, as they are now."""
    if pid is None:
        return []
    try:
        root = psutil.Process(pid)
        return [root, *root.children(recursive=True)]
    except psutil.Error:
        return []


def alive(processes: list[psutil.Process]) -> list[psutil.Process]:
    def running(process: psutil.Process) -> bool:
        try:
            return process.is_running() and process.status() != psutil.STATUS_ZOMBIE
        except psutil.Error:
            return False

    return [process for process in processes if running(process)]


def describe(processes: list[psutil.Process]) -> list[str]:
    described = []
    for process in processes:
        try:
            described.append(f"{process.pid}: {' '.join(process.cmdline())[:160]}")
        except psutil.Error:
            described.append(f"{process.pid}: (gone)")
    return described


def end_processes(processes: list[psutil.Process]) -> None:
    """SIGKILL, then wait: for leftovers only, after the test has judged them."""
    for process in processes:
        try:
            process.send_signal(signal.SIGKILL)
        except psutil.Error:
            pass
    psutil.wait_procs(processes, timeout=5)


def assert_processes_end(gui: Gui, started: list[psutil.Process], home: Path, timeout_ms: int, after: str) -> None:
    """No process of `started`, nor any process run with the test's HOME, may remain `after` something."""

    def leftovers() -> list[psutil.Process]:
        return alive(started) + processes_with_home(home)

    try:
        gui.wait(lambda: not leftovers(), timeout=timeout_ms)
    except WaitTimeout as exc:
        raise AssertionError(f"processes survived {after}: {describe(leftovers())}") from exc


# -- the GUI --


def on_core(gui: Gui, work: Coroutine[Any, Any, T]) -> T:
    """Set-up only: run a use case on the core loop when it needs nothing from the GUI thread."""
    return gui.session.app.core.submit(work).result(CALL_TIMEOUT_MS / 1000)


def through_client(gui: Gui, work: Coroutine[Any, Any, T], timeout: int = CALL_TIMEOUT_MS) -> T:
    """Run a use case as the window does (the core may call back into the GUI thread meanwhile)."""
    errors: list[BaseException] = []  # an error handler of our own: no message box to block the test
    future: concurrent.futures.Future[T] = gui.session.client.call(work, on_error=errors.append)
    gui.wait(future.done, timeout=timeout)
    return future.result()


def enable_reference_profile(gui: Gui, slug: str) -> str:
    """As if the user had ticked this CLI in the first-run wizard; returns the profile id."""
    profile_id = reference_profile_id(slug)
    catalogue = gui.session.app.profiles

    async def enable() -> None:
        [profile] = [p for p in catalogue.reference_profiles() if p.id == profile_id]
        catalogue.complete_setup([profile])

    on_core(gui, enable())
    return profile_id


@dataclass
class WatchedCell:
    """A cell of the real GUI and the program it shows, read as the person sees it."""

    gui: Gui
    tab: ProjectTab
    leaf_id: str
    last_output: float = field(default_factory=time.monotonic)

    def follow(self) -> Self:
        """Once the cell shows its terminal, note when its program writes (see `wait_until_drawn`)."""
        self.gui.wait(lambda: self.cell.view is not None)
        view = self.cell.view
        assert view is not None
        view.terminal.receivedData.connect(self._received)
        return self

    def _received(self, _data: str) -> None:
        self.last_output = time.monotonic()

    @property
    def runtime(self) -> ProjectRuntime:
        return self.tab.runtime

    @property
    def cell(self) -> CellWidget:
        cell = self.tab.grid.cell(self.leaf_id)
        assert cell is not None, "the cell is gone"
        return cell

    def screen(self) -> str:
        view = self.cell.view
        return view.screen_text() if view is not None else ""

    def wait_for_screen(self, text: str, timeout: int = START_TIMEOUT_MS) -> str:
        """Wait until `text` is on the cell's screen; a timeout shows what the screen held instead."""
        try:
            self.gui.wait(lambda: text in self.screen(), timeout=timeout)
        except WaitTimeout as exc:
            raise AssertionError(f"{text!r} never appeared in the cell; the screen is:\n{self.screen()}") from exc
        return self.screen()

    def wait_until_drawn(self, quiet_ms: int = QUIET_MS, timeout: int = QUIET_TIMEOUT_MS) -> None:
        """Wait until the program has been silent for `quiet_ms`: the display then paints what the screen
        holds (it redraws on a timer after output, so a capture right after new text may show the frame
        before it). A program that never stops writing is captured as it is."""
        try:
            self.gui.wait(lambda: time.monotonic() - self.last_output >= quiet_ms / 1000, timeout=timeout)
        except WaitTimeout:
            return

    def press(self, key: Qt.Key) -> None:
        """A key press on the terminal's display, the widget that has the keyboard focus in a cell."""
        view = self.cell.view
        assert view is not None
        self.gui.qtbot.keyClick(view.terminal.focusProxy(), key)

    def banner_text(self) -> str | None:
        """The text of the cell's exit banner (the bar with Restart), None while it is hidden."""
        for banner in self.cell.findChildren(QFrame, "CellBanner"):
            buttons = [button.text() for button in banner.findChildren(QPushButton)]
            if "Restart" in buttons:
                if banner.isHidden():
                    return None
                label = banner.findChild(QLabel)
                return label.text() if label is not None else ""
        raise AssertionError("the cell has no exit banner")

    def screenshot(self, path: Path) -> Path:
        """The whole window, as the user sees it, once the display has caught up with the program."""
        self.wait_until_drawn()
        window = self.tab.window()
        assert window.grab().save(str(path), "PNG"), f"could not save {path}"
        return path


@dataclass
class LaunchedAgent(WatchedCell):
    entry: AgentEntry = field(kw_only=True)

    @property
    def run_dir(self) -> Path:
        return Path(self.runtime.root) / ".ideai" / "run" / self.entry.agent_id

    def session(self) -> SessionInfo | None:
        """The agent's live session in the project's session registry."""
        return self.runtime.sessions.live_agent_session(self.entry.agent_id)

    def wait_for_attention(self, reason: AttentionReason, timeout: int = START_TIMEOUT_MS) -> None:
        """Wait until IdeA says the agent needs the person for `reason` (read on the core loop, where it lives),
        its cell shows the badge and its row in the Agents panel the reason; a timeout shows what IdeA said
        instead, and the screen."""
        board = self.runtime.orchestrator.states.attention
        panel = self.tab.window().findChild(AgentsPanel)
        assert panel is not None

        async def current() -> AttentionReason | None:
            attention = board.current(self.entry.agent_id)
            return attention.reason if attention is not None else None

        def shown() -> bool:
            row = panel.row(self.entry.agent_id)
            return (
                on_core(self.gui, current()) is reason
                and not self.cell.header.attention.isHidden()
                and row is not None
                and row.activity.attention == reason.value
            )

        try:
            self.gui.wait(shown, timeout=timeout)
        except WaitTimeout as exc:
            said = on_core(self.gui, current())
            raise AssertionError(
                f"no {reason.value} attention (IdeA says {said}); the screen is:\n{self.screen()}"
            ) from exc

    def stop(self) -> None:
        through_client(self.gui, self.runtime.placement.stop(self.entry.agent_id))


def launch_agent(gui: Gui, project: Path, slug: str, name: str) -> LaunchedAgent:
    """Open `project`, create an agent on the reference profile `slug` and launch it in the first cell."""
    profile_id = enable_reference_profile(gui, slug)
    gui.restore([project])
    tab = gui.tab(project)
    gui.wait(lambda: len(gui.leaves(tab)) == 1 and tab.grid.cell(gui.leaves(tab)[0].id) is not None)
    [leaf] = gui.leaves(tab)
    assert leaf.session is None, "the first cell should be empty (new cells start empty in these tests)"
    entry = on_core(gui, tab.runtime.agents.create(name, profile_id, PERSONA))
    through_client(gui, tab.runtime.placement.launch(entry.agent_id, InCell(leaf.id)))
    launched = LaunchedAgent(gui, tab, leaf.id, entry=entry).follow()
    assert lay.find_leaf(tab.runtime.active.root, leaf.id).agent == entry.agent_id
    return launched
