"""The welcome page lists the recent projects, and says so in words when there are none yet rather than showing
an empty box; activating one opens it; a project on its way into the window is said while it opens."""

from __future__ import annotations

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from idea.domain.ids import ProjectId
from idea.domain.project import ProjectRecord
from idea.ui.windows.main_window import WelcomePage
from tests.ui.accessibility import unnamed_controls


class Projects:
    def __init__(self) -> None:
        self.records: list[ProjectRecord] = []
        self.opened: list[str] = []

    def recent_projects(self) -> list[ProjectRecord]:
        return self.records

    def open_project(self, root: str) -> None:
        self.opened.append(root)

    def choose_and_open(self) -> None:
        raise AssertionError("not asked here")


def test_no_recent_project_reads_as_words_then_the_list_replaces_them(qtbot: QtBot) -> None:
    projects = Projects()
    page = WelcomePage(projects.choose_and_open, projects.open_project, projects.recent_projects)
    qtbot.addWidget(page)
    page.refresh()
    page.show()

    assert page.no_recent.isVisible() and not page.recent.isVisible()
    assert "None yet" in page.no_recent.text()

    projects.records = [ProjectRecord(id=ProjectId("p-1"), name="shop", root="/work/shop")]
    page.refresh()

    assert page.recent.isVisible() and not page.no_recent.isVisible()
    assert unnamed_controls(page) == []
    item = page.recent.item(0)
    assert item.text().startswith("shop") and item.data(Qt.ItemDataRole.UserRole) == "/work/shop"
    page.recent.itemActivated.emit(item)
    assert projects.opened == ["/work/shop"]


def test_the_projects_on_their_way_are_said_until_each_opens_or_fails(qtbot: QtBot) -> None:
    projects = Projects()
    page = WelcomePage(projects.choose_and_open, projects.open_project, projects.recent_projects)
    qtbot.addWidget(page)
    page.show()
    assert not page.opening_label.isVisible()

    page.opening("/work/shop/", True)
    page.opening("C:\\Users\\ada\\notes", True)
    assert page.opening_label.isVisible() and page.opening_label.text() == "Opening shop, notes…"
    page.opening("/work/shop/", False)
    assert page.opening_label.text() == "Opening notes…"
    page.opening("C:\\Users\\ada\\notes", False)
    assert not page.opening_label.isVisible()
