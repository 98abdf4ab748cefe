"""What a window shows when no project is open in it: how to open one, the projects opening into it now, and
the recent projects."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QListWidget, QListWidgetItem, QPushButton, QVBoxLayout, QWidget

from idea.domain.path_names import last_part
from idea.domain.project import ProjectRecord
from idea.ui.widgets.labels import label_for


class WelcomePage(QWidget):
    def __init__(
        self,
        choose_and_open: Callable[[], None],
        open_project: Callable[[str], None],
        recent_projects: Callable[[], list[ProjectRecord]],
    ) -> None:
        super().__init__()
        self._recent_projects = recent_projects
        self._opening: list[str] = []  # the folders opening into this window, in the order asked
        column = QVBoxLayout(self)
        column.setContentsMargins(48, 48, 48, 48)
        title = QLabel(
            "<h1>IdeA</h1><p>Open a project folder (or drop one here) to manage a team of agents in a grid of "
            "terminals.</p>"
        )
        title.setWordWrap(True)
        column.addWidget(title)
        open_button = QPushButton("Open project…")
        open_button.setFixedWidth(200)
        open_button.clicked.connect(choose_and_open)
        column.addWidget(open_button)
        self.opening_label = QLabel()
        self.opening_label.setVisible(False)
        column.addWidget(self.opening_label)
        column.addSpacing(16)
        self.recent = QListWidget()
        column.addWidget(label_for("Recent projects", self.recent))
        self.recent.itemActivated.connect(lambda item: open_project(item.data(Qt.ItemDataRole.UserRole)))
        column.addWidget(self.recent, 1)
        self.no_recent = QLabel("None yet: the project folders you open are listed here.")
        self.no_recent.setEnabled(False)  # in the muted colour
        column.addWidget(self.no_recent)
        column.addStretch()  # keeps the page at the top while the list is hidden

    def refresh(self) -> None:
        self.recent.clear()
        for record in self._recent_projects():
            item = QListWidgetItem(f"{record.name}    {record.root}")
            item.setData(Qt.ItemDataRole.UserRole, record.root)
            item.setToolTip(record.root)
            self.recent.addItem(item)
        self.recent.setVisible(self.recent.count() > 0)
        self.no_recent.setVisible(self.recent.count() == 0)

    def opening(self, path: str, opening: bool) -> None:
        """`path` started opening into this window (True), or opened or failed (False): said under the button
        meanwhile, so the page does not look idle while a project's tab is on its way."""
        if opening:
            self._opening.append(path)
        elif path in self._opening:
            self._opening.remove(path)
        names = ", ".join(last_part(folder) for folder in self._opening)
        self.opening_label.setText(f"Opening {names}…")
        self.opening_label.setVisible(bool(self._opening))
