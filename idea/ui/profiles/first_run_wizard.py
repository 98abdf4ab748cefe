"""Choosing the AI CLIs IdeA may launch (spec 02 §7). Nothing is presumed: every row starts unticked on the
first run, and reopening the dialog later shows what is enabled now.

The four reference CLIs are detected in parallel when the dialog opens; the user may change a command
(for example to a full path) and detect again.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Iterable

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFrame,
    QGridLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from idea.application.agents.ports import Detection
from idea.application.agents.profile_descriptions import agents_using, delegation_sentence, install_hint
from idea.application.agents.profiles import ProfileCatalogue
from idea.application.projects import ProjectRuntime
from idea.domain.profile import Profile
from idea.ui.core_client import CoreClient
from idea.ui.theme import palette_colors
from idea.ui.widgets.labels import DetectionLabel, HintLabel
from idea.ui.widgets.messages import show_error

DETECTING = "detecting…"


class _CommandEdit(QLineEdit):
    """Enter in a command detects it again; it must not also press Finish."""

    entered = Signal()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self.entered.emit()
            event.accept()
            return
        super().keyPressEvent(event)


class CliRow(QWidget):
    """One reference CLI: tick box, command, Detect, what detection found, how it takes delegations."""

    detectRequested = Signal(object)  # this row

    def __init__(self, shipped: Profile, enabled: Profile | None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.shipped = shipped
        self._enabled = enabled
        self.tick = QCheckBox(shipped.name)
        self.tick.setChecked(enabled is not None)
        font = self.tick.font()
        font.setBold(True)
        self.tick.setFont(font)
        self.command = _CommandEdit((enabled or shipped).command)
        self.command.setPlaceholderText(shipped.command)
        self.command.setToolTip("The program to run: its name on PATH, or its full path")
        self.command.setAccessibleName(f"{shipped.name} command")
        self.command.setMinimumWidth(220)
        self.detect_button = QPushButton("Detect")
        self.detect_button.setAutoDefault(False)
        self.detect_button.clicked.connect(lambda: self.detectRequested.emit(self))
        self.command.entered.connect(lambda: self.detectRequested.emit(self))
        self.status = DetectionLabel(DETECTING)
        self.status.setMinimumWidth(200)
        self.explanation = HintLabel(delegation_sentence(shipped))
        # Under the name, past the tick box, so each line reads as part of its row.
        self.explanation.setContentsMargins(self.tick.sizeHint().height() + 4, 0, 0, 0)

    def profile(self) -> Profile:
        """The profile to enable: the stored one (or the shipped one) with the command as typed."""
        base = self._enabled or self.shipped
        command = self.command.text().strip() or self.shipped.command
        if command == base.command:
            return base
        changes: dict[str, object] = {"command": command}
        if base.detect:
            # Detection must run the program the user pointed at, with the same arguments.
            arguments = shlex.split(base.detect)[1:]
            changes["detect"] = shlex.join([command, *arguments])
        return base.with_changes(changes)

    def show_detecting(self) -> None:
        self.detect_button.setEnabled(False)
        self.status.show_hint(DETECTING)

    def show_detection(self, detection: Detection) -> None:
        self.detect_button.setEnabled(True)
        self.status.show_detection(detection)
        hint = install_hint(self.shipped, detection)
        self.explanation.show_hint(delegation_sentence(self.shipped) + (f"\n{hint}" if hint else ""))

    def show_failure(self, error: BaseException) -> None:
        self.detect_button.setEnabled(True)
        self.status.show_error(f"error: {getattr(error, 'message', error)}")


class FirstRunWizard(QDialog):
    """Finish stores the ticked profiles (`complete_setup`) and, when reopened, removes the ones unticked
    (refused for a profile some agent uses). Cancel changes nothing: the first run stays pending."""

    def __init__(
        self,
        client: CoreClient,
        profiles: ProfileCatalogue,
        open_runtimes: Callable[[], Iterable[ProjectRuntime]],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._client = client
        self._profiles = profiles
        self._open_runtimes = open_runtimes
        first_run = profiles.needs_setup()
        self.setWindowTitle("Set up AI CLIs" if first_run else "AI CLIs")
        self.setMinimumWidth(860)
        enabled = {profile.id: profile for profile in profiles.profiles()}
        self.rows = [CliRow(shipped, enabled.get(shipped.id)) for shipped in profiles.reference_profiles()]

        intro = QLabel(
            "<b>Which AI CLIs should IdeA launch?</b><br>"
            "Tick the ones you use; nothing is enabled until you tick it. "
            "Change a command to a full path if the program is not on your PATH, then detect again."
        )
        intro.setWordWrap(True)
        grid = QGridLayout()
        grid.setHorizontalSpacing(12)
        grid.setVerticalSpacing(4)
        grid.setColumnStretch(1, 1)
        for number, row in enumerate(self.rows):
            line = number * 3
            grid.addWidget(row.tick, line, 0)
            grid.addWidget(row.command, line, 1)
            grid.addWidget(row.detect_button, line, 2)
            grid.addWidget(row.status, line, 3)
            grid.addWidget(row.explanation, line + 1, 0, 1, 4)
            if number < len(self.rows) - 1:
                grid.addWidget(_separator(self), line + 2, 0, 1, 4)
            row.detectRequested.connect(self.detect_row)
            row.tick.toggled.connect(lambda _on: self._update_summary())
        self.summary = HintLabel()
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.finish_button = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.finish_button.setText("Finish")
        self.buttons.accepted.connect(self.finish)
        self.buttons.rejected.connect(self.reject)
        column = QVBoxLayout(self)
        column.setSpacing(12)
        column.addWidget(intro)
        column.addLayout(grid)
        column.addWidget(self.summary)
        column.addWidget(self.buttons)
        self._update_summary()
        if self.rows:
            self.rows[0].tick.setFocus()
        self.detect_all()

    def ticked(self) -> list[Profile]:
        return [row.profile() for row in self.rows if row.tick.isChecked()]

    def detect_all(self) -> None:
        for row in self.rows:
            row.show_detecting()
        by_id = {row.shipped.id: row for row in self.rows}

        def done(found: dict[str, Detection]) -> None:
            for profile_id, detection in found.items():
                by_id[profile_id].show_detection(detection)
            self._fit_height()

        def failed(error: BaseException) -> None:
            for row in self.rows:
                row.show_failure(error)

        self._client.call(
            self._profiles.detect_all([row.profile() for row in self.rows]), on_done=done, on_error=failed
        )

    def detect_row(self, row: CliRow) -> None:
        row.show_detecting()

        def done(detection: Detection) -> None:
            row.show_detection(detection)
            self._fit_height()

        self._client.call(self._profiles.detect(row.profile()), on_done=done, on_error=row.show_failure)

    def _fit_height(self) -> None:
        """Grow to show every line: a CLI not found gains a line saying how to install it."""
        layout = self.layout()
        needed = layout.totalHeightForWidth(self.width()) if layout.hasHeightForWidth() else -1
        needed = max(needed, layout.totalMinimumSize().height())
        if needed > self.height():
            self.resize(self.width(), needed)

    def _update_summary(self) -> None:
        names = [row.shipped.name for row in self.rows if row.tick.isChecked()]
        if names:
            self.summary.show_hint(f"Enabled: {', '.join(names)}. You can change profiles later in Agents ▸ Profiles…")
        else:
            self.summary.show_hint("No CLI ticked: you can still add one later in Agents ▸ Profiles…")

    def finish(self) -> None:
        ticked = self.ticked()
        unticked = [
            row.shipped.id
            for row in self.rows
            if not row.tick.isChecked() and self._profiles.book().by_id(row.shipped.id) is not None
        ]
        usage = {profile_id: agents_using(self._open_runtimes(), profile_id) for profile_id in unticked}
        self.finish_button.setEnabled(False)

        async def finish_on_core() -> list[str]:
            self._profiles.complete_setup(ticked)
            kept = []
            for profile_id, used_by in usage.items():
                if used_by:
                    kept.append(f"{self._profiles.profile(profile_id).name} (used by {', '.join(used_by)})")
                else:
                    self._profiles.delete_profile(profile_id, used_by)
            return kept

        def finished(kept: list[str]) -> None:
            self.accept()
            if kept:
                show_error(self.parentWidget() or self, "Some profiles stay enabled", "Still in use: " + "; ".join(kept))

        def failed(error: BaseException) -> None:
            self.finish_button.setEnabled(True)
            show_error(self, "Setup not saved", error)

        self._client.call(finish_on_core(), on_done=finished, on_error=failed)


def _separator(parent: QWidget) -> QFrame:
    line = QFrame()
    line.setFixedHeight(1)
    line.setStyleSheet(f"background: {palette_colors(parent).border};")
    line.setContentsMargins(0, 6, 0, 6)
    return line
