"""The right side of Agents ▸ Profiles: the profile's title and detection, its fields (Settings) or its
JSON (Advanced), and Revert / Save with what is wrong with the edits."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QStackedWidget,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from idea.application.agents.limit_patterns import LimitPatternCheck
from idea.application.agents.profile_editing import json_text, parse_json_text
from idea.ui.profiles.profile_form import ProfileForm
from idea.ui.theme import monospace_font
from idea.ui.widgets.labels import DetectionLabel, HintLabel
from idea.ui.widgets.list_editor import editor_title, pane, save_row

FORM_TAB, JSON_TAB = 0, 1


class ProfilePane(QWidget):
    def __init__(
        self,
        changed: Callable[[], None],
        tab_changed: Callable[[int], None],
        revert: Callable[[], None],
        save: Callable[[], None],
        limit_patterns: LimitPatternCheck,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.title = editor_title()
        self.detect_button = QPushButton("Detect")
        self.detect_button.setToolTip("Run the detect command and show the version it prints")
        self.test_button = QPushButton("Test")
        self.detect_result = DetectionLabel()  # what Detect found, or what Test did
        header = QHBoxLayout()
        header.addWidget(self.title, 1)
        header.addWidget(self.detect_result)
        header.addWidget(self.detect_button)
        header.addWidget(self.test_button)
        self.form = ProfileForm(limit_patterns)
        self.form.changed.connect(changed)
        form_scroll = QScrollArea()
        form_scroll.setWidgetResizable(True)
        form_scroll.setWidget(self.form)
        form_scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        self.json = QPlainTextEdit()
        self.json.setAccessibleName("Profile as JSON")
        self.json.setFont(monospace_font())
        self.json.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.json.textChanged.connect(changed)
        self.tabs = QTabWidget()
        self.tabs.addTab(form_scroll, "Settings")
        self.tabs.addTab(self.json, "Advanced (JSON)")
        self.tabs.currentChanged.connect(tab_changed)
        self.nothing = QLabel()  # instead of the tabs while no profile is shown
        self.nothing.setWordWrap(True)
        self.nothing.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.nothing.setEnabled(False)  # in the muted colour
        self.body = QStackedWidget()
        self.body.addWidget(self.tabs)
        self.body.addWidget(self.nothing)
        self.problem = HintLabel()
        self.revert_button = QPushButton("Revert")
        self.revert_button.clicked.connect(revert)
        self.save_button = QPushButton("Save")
        self.save_button.setDefault(True)
        self.save_button.clicked.connect(save)
        side = pane(header, self.body, save_row(self.problem, self.revert_button, self.save_button), stretch=self.body)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(side)

    def show_nothing(self, text: str) -> None:
        """No profile to show: `text` says why and what to do, where the fields were."""
        self.title.setText("No profile")
        self.nothing.setText(text)
        self.body.setCurrentWidget(self.nothing)
        self.tabs.setEnabled(False)

    def load(self, data: dict[str, Any]) -> None:
        """Show a profile's dictionary in both tabs."""
        self.body.setCurrentWidget(self.tabs)
        self.tabs.setEnabled(True)
        self.form.load(data)
        self.json.setPlainText(json_text(data))

    def edited_data(self, profile_id: str | None) -> dict[str, Any]:
        """The profile as edited, from the tab in use; ValueError with a sentence if it cannot be read."""
        if self.tabs.currentIndex() == JSON_TAB:
            return parse_json_text(self.json.toPlainText(), profile_id)
        return self.form.data()
