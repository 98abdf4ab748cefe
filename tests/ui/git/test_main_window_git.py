"""The Git panel in the real main window: a tab beside the Agents panel, shown with View ▸ Git, following the
current project tab, and typing in a terminal cell of IdeA shows up in it."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from idea.ui.git.git_panel import PAGE_REPOSITORY
from idea.ui.git.status_view import Group
from tests.git_support import GitHome, RepoBuilder
from tests.ui.git.conftest import SCREENSHOTS_ENV
from tests.ui.gui_support import new_project

NARROWEST_SIDE_AREA = 300  # pixels: how far the person can narrow the Agents, Git and Work panels


def test_view_git_shows_the_current_projects_repository_and_follows_the_tabs(
    gui_factory, tmp_path: Path, git_home: GitHome  # noqa: ANN001
) -> None:
    shop = new_project(tmp_path, "shop")
    b = RepoBuilder(shop)
    b.commit("import", {"app.py": "print('hi')\n"})
    plain = new_project(tmp_path, "notes")
    gui = gui_factory()
    gui.restore([shop, plain])
    tab = gui.tab(shop)
    gui.tab(plain)
    window = gui.windows[0]
    assert window.git_dock in window.tabifiedDockWidgets(window.agents_dock)  # a tab beside Agents
    git_action = window.git_dock.toggleViewAction()
    assert git_action.shortcut().toString() == "Ctrl+Alt+G"
    view = next(a.menu() for a in window.menuBar().actions() if a.text() == "&View")
    assert git_action in view.actions() and git_action.text() == "Git panel"  # View ▸ Git panel
    assert window.git_dock.windowTitle() == "Git"  # the dock's tab keeps the short name

    window.focus_tab(tab.project_id)
    window.git_dock.raise_()
    gui.wait(lambda: window.git_panel.isVisible())
    panel = window.git_panel
    gui.wait(lambda: panel.pages.currentIndex() == PAGE_REPOSITORY and panel.branch_button.text() == "⎇ main")
    for dock in (window.agents_dock, window.git_dock, window.work_dock):  # no tab keeps the side area wide
        assert dock.minimumSizeHint().width() <= NARROWEST_SIDE_AREA, dock.windowTitle()

    [shell] = gui.wait_for_shells(tab, 1)
    gui.type_line(shell, "echo edited > app.py")  # a change made in IdeA's own terminal

    def changed() -> list[str]:
        top = panel.status._groups.get(Group.CHANGES)
        return [top.child(i).text(0) for i in range(top.childCount())] if top is not None else []

    gui.wait(lambda: changed() == ["M  app.py"])
    assert panel.status._groups[Group.CHANGES].isExpanded()  # a group that appears is open
    path = tmp_path / "git-in-window.png"
    assert window.grab().save(str(path), "PNG")
    keep = os.environ.get(SCREENSHOTS_ENV)
    if keep:
        shutil.copy(path, Path(keep) / path.name)

    window.focus_tab(gui.tab(plain).project_id)
    gui.wait(lambda: panel.pages.currentIndex() == 1)  # no repository there: init offered
    assert "is not in a git repository" in panel.no_repo_text.text()
