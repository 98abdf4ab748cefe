"""The Git panel and diff viewer on a real core (bootstrap, headless terminals) and real repositories."""

from __future__ import annotations

import os
import shutil
import sys
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from idea.application.projects import ProjectRuntime
from idea.domain.profile import Profile
from idea.ui.git.git_panel import GitPanel
from tests.git_support import GitHome, git_home  # noqa: F401  (fixture)
from tests.ui.agent_support import FAKE_CLI, WAIT_MS, BootstrappedApp, bootstrapped_app

SCREENSHOTS_ENV = "IDEA_TEST_SCREENSHOTS"  # a folder that keeps a copy of every screenshot, to look at


@dataclass
class PanelWorld:
    world: BootstrappedApp
    panel: GitPanel
    project: Path
    git: GitHome
    shots: Path
    qtbot: QtBot

    def add_echo_profile(self) -> Profile:
        """The fake CLI that echoes each line it receives, ready once its banner shows."""
        profile = Profile.from_json({
            "id": str(uuid.uuid4()),
            "name": "Echo CLI",
            "command": sys.executable,
            "args": [str(FAKE_CLI)],
            "contextInjection": {"strategy": "conventionFile", "target": "AGENTS.md"},
            "promptReadyPattern": "Fake agent CLI ready",
            "submitDelayMs": 50,
        })
        self.world.sync(lambda: self.world.app.profiles.save_profile(profile))
        return profile

    def open(self) -> ProjectRuntime:
        runtime = self.world.open_project(self.project)
        self.panel.set_project(runtime)
        return runtime

    def wait(self, condition, timeout: int = WAIT_MS) -> None:  # noqa: ANN001
        self.qtbot.waitUntil(condition, timeout=timeout)

    def refreshed(self) -> None:
        """Wait for the panel's next refresh to land."""
        before = self.panel.snapshot
        self.panel.refresh()
        self.wait(lambda: self.panel.snapshot is not before and not self.panel._refreshing)

    def screenshot(self, widget: QWidget, name: str) -> Path:
        widget.repaint()
        path = self.shots / f"{name}.png"
        assert widget.grab().save(str(path), "PNG")
        assert path.stat().st_size > 5000  # a real picture, not an empty one
        keep = os.environ.get(SCREENSHOTS_ENV)
        if keep:
            Path(keep).mkdir(parents=True, exist_ok=True)
            shutil.copy(path, Path(keep) / path.name)
        return path


@pytest.fixture
def panel_world(
    qtbot: QtBot, tmp_path: Path, git_home: GitHome, monkeypatch: pytest.MonkeyPatch  # noqa: F811
) -> Iterator[PanelWorld]:
    # Agents here run a fake CLI that reports no turn: deliveries do not wait long for one to start.
    monkeypatch.setenv("IDEA_SUBMIT_VERIFY_MS", "200")
    monkeypatch.setenv("IDEA_COLD_START_SETTLE_MS", "50")
    for world in bootstrapped_app(qtbot, tmp_path):
        panel = GitPanel(world.client)
        qtbot.addWidget(panel)
        panel.resize(460, 720)
        world.relay.published.connect(panel.on_event)
        panel.show()
        shots = tmp_path / "screenshots"
        shots.mkdir()
        yield PanelWorld(world, panel, world.project_dir, git_home, shots, qtbot)
        for window in list(panel.diff_windows):
            window.close()
