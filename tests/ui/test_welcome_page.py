"""The welcome page lists the recent projects, and says so in words when there are none yet rather than showing
an empty box; activating one opens it in the page's window."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from idea.domain.ids import ProjectId
from idea.domain.project import ProjectRecord
from idea.ui.windows.main_window import WelcomePage


class Projects:
    def __init__(self) -> None:
        self.records: list[ProjectRecord] = []
        self.opened: list[str] = []

    def recent_projects(self) -> list[ProjectRecord]:
        return self.records

    def open_project(self, root: str, _window: object) -> None:
        self.opened.append(root)

    def choose_and_open(self, _window: object) -> None:
        raise AssertionError("not asked here")


def test_no_recent_project_reads_as_words_then_the_list_replaces_them(qtbot: QtBot) -> None:
    projects = Projects()
    page = WelcomePage(projects, QWidget())  # type: ignore[arg-type]
    qtbot.addWidget(page)
    page.refresh()
    page.show()

    assert page.no_recent.isVisible() and not page.recent.isVisible()
    assert "None yet" in page.no_recent.text()

    projects.records = [ProjectRecord(id=ProjectId("p-1"), name="shop", root="/work/shop")]
    page.refresh()

    assert page.recent.isVisible() and not page.no_recent.isVisible()
    item = page.recent.item(0)
    assert item.text().startswith("shop") and item.data(Qt.ItemDataRole.UserRole) == "/work/shop"
    page.recent.itemActivated.emit(item)
    assert projects.opened == ["/work/shop"]
