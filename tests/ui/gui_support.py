"""The real GUI, started in-process as the `idea` command does: windows, tabs, cells and QTermWidget
terminals, with an isolated data dir and a HOME without shell start-up files."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any, TypeVar

from pytestqt.qtbot import QtBot

from idea.domain import layout as lay
from idea.ui.app import GuiSession
from idea.ui.layout.cell import CellWidget
from idea.ui.windows.main_window import MainWindow
from idea.ui.windows.project_tab import ProjectTab

WAIT_MS = 60_000  # a safety net around condition waits: a loaded machine starts a shell slowly
T = TypeVar("T")


def complete_first_run(data_dir: Path) -> None:
    """As if the user had finished the first-run wizard without ticking anything."""
    data_dir.mkdir(parents=True, exist_ok=True)
    (data_dir / "settings.json").write_text(json.dumps({"version": 1, "firstRunCompleted": True}))
    (data_dir / "profiles.json").write_text(json.dumps({"version": 1, "profiles": []}))


class Gui:
    def __init__(self, qtbot: QtBot, qapp, data_dir: Path) -> None:  # noqa: ANN001 - QApplication
        self.qtbot = qtbot
        self.session = GuiSession(qapp, data_dir)
        self._closed = False

    @property
    def windows(self) -> list[MainWindow]:
        return self.session.windows.windows

    def restore(self, paths: list[Path]) -> None:
        self.session.windows.restore([str(p) for p in paths])

    def tab(self, project_dir: Path) -> ProjectTab:
        """The project's tab, once it is open."""
        found: list[ProjectTab] = []

        def opened() -> bool:
            found[:] = [t for t in self.session.windows.tabs.values() if t.runtime.root == str(project_dir)]
            return bool(found)

        self.qtbot.waitUntil(opened, timeout=WAIT_MS)
        return found[0]

    def wait(self, condition: Callable[[], bool], timeout: int = WAIT_MS) -> None:
        self.qtbot.waitUntil(condition, timeout=timeout)

    def run(self, work: Coroutine[Any, Any, T]) -> T:
        """Run a use case on the core loop and wait for it while Qt keeps running (the core may need
        the GUI thread, for terminals)."""
        future = self.session.app.core.submit(work)
        self.wait(future.done)
        return future.result()

    def leaves(self, tab: ProjectTab) -> list[lay.Leaf]:
        return lay.leaves(tab.runtime.active.root)

    def cell(self, tab: ProjectTab, index: int) -> CellWidget:
        """The widget of the tab's `index`-th leaf, once the grid shows it: the layout changes on the core
        and the grid renders it when the news reaches the GUI thread."""
        leaf = self.leaves(tab)[index]
        self.wait(lambda: tab.grid.cell(leaf.id) is not None)
        cell = tab.grid.cell(leaf.id)
        assert cell is not None
        return cell

    def wait_for_shells(self, tab: ProjectTab, count: int) -> list[CellWidget]:
        """Every cell shows a running shell with its prompt drawn."""

        def ready() -> bool:
            cells = [tab.grid.cell(leaf.id) for leaf in self.leaves(tab)]
            return len(cells) == count and all(
                c is not None and c.view is not None and c.session is not None and c.session.pid
                and c.view.screen_text().strip() for c in cells
            )

        self.wait(ready)
        return [tab.grid.cell(leaf.id) for leaf in self.leaves(tab)]  # type: ignore[misc]

    def open_new_project(self, tmp_path: Path, name: str = "demo") -> tuple[Path, ProjectTab]:
        """A new project folder under `tmp_path`, opened in this GUI: its path and its tab."""
        project = new_project(tmp_path, name)
        self.restore([project])
        return project, self.tab(project)

    def split_into_two_shells(self, tab: ProjectTab) -> tuple[CellWidget, CellWidget]:
        """The tab's only cell split into two running shells side by side: (left, right)."""
        [first] = self.wait_for_shells(tab, 1)
        tab.gestures.split(first.leaf_id, lay.Direction.ROW, "after")
        self.wait(lambda: len(self.leaves(tab)) == 2)
        left, right = self.wait_for_shells(tab, 2)
        return left, right

    def type_line(self, cell: CellWidget, text: str) -> None:
        assert cell.view is not None
        proxy = cell.view.terminal.focusProxy()
        self.qtbot.keyClicks(proxy, text)
        from PySide6.QtCore import Qt

        self.qtbot.keyClick(proxy, Qt.Key.Key_Return)

    def screen(self, cell: CellWidget) -> str:
        assert cell.view is not None
        return cell.view.screen_text()

    def pids(self, tab: ProjectTab) -> dict[str, int | None]:
        return {leaf.id: tab.runtime.sessions.info(leaf.session).pid for leaf in self.leaves(tab) if leaf.session}

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self.session.windows.quit_without_asking()
        self.session.shutdown()


def new_project(tmp_path: Path, name: str = "demo") -> Path:
    folder = tmp_path / f"{name}-{uuid.uuid4().hex[:6]}"
    folder.mkdir()
    return folder
