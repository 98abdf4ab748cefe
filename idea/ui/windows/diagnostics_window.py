"""Help ▸ Diagnostics: the end of the diagnostics log, followed as it grows, filtered by tag, project and text;
the last 500 lines shown copied in one click; a bug report saved as one zip; and whether each line is also
printed on the terminal IdeA was started from (`diagnosticsVerbose`). One window for the whole application."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import Qt, QTimer, QUrl
from PySide6.QtGui import QCloseEvent, QDesktopServices, QFont, QGuiApplication, QTextCursor
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from idea.domain.diagnostics_log import LogFilter, LogLine, parse_line, tags_of
from idea.domain.project import ProjectRecord
from idea.domain.wording import counted
from idea.infrastructure.bug_report import recent_crash_reports, write_bug_report
from idea.infrastructure.diagnostics import FileDiagnostics, LogFollower
from idea.ui.core_client import CoreClient
from idea.ui.terminal.appearance import monospace_family
from idea.ui.widgets.labels import label_for
from idea.ui.widgets.messages import error_text
from idea.ui.widgets.window_size import size_within_screen
from idea.ui.windows.settings_dialog import SettingsControl

SHOWN_LINES = 10_000  # the end of the log the window reads
COPIED_LINES = 500
FOLLOW_EVERY_MS = 1000
ECHO = "Also print each line on the terminal IdeA was started from"
ECHO_TIP = "The diagnosticsVerbose setting: for a person who starts IdeA from a shell to watch what it does"

AboutRows = Callable[[], Sequence[tuple[str, str]]]  # what IdeA runs on; may take seconds (it runs off the GUI)


@dataclass(frozen=True)
class DiagnosticsSources:
    log: FileDiagnostics
    data_dir: Path
    settings: SettingsControl
    client: CoreClient
    projects: Callable[[], list[ProjectRecord]]  # the projects a person may want to see alone
    about: AboutRows


class DiagnosticsScreen:
    """Opens the window, or brings the open one to the front."""

    def __init__(self, sources: DiagnosticsSources) -> None:
        self._sources = sources
        self._window: DiagnosticsWindow | None = None

    def open(self, parent: QWidget) -> DiagnosticsWindow:
        if self._window is None:
            self._window = window = DiagnosticsWindow(self._sources, parent)
            window.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
            window.destroyed.connect(lambda _object: setattr(self, "_window", None))
            window.show()
        self._window.raise_()
        self._window.activateWindow()
        return self._window


class DiagnosticsWindow(QDialog):
    def __init__(self, sources: DiagnosticsSources, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Diagnostics")
        self._sources = sources
        self._follower = LogFollower(sources.log, SHOWN_LINES)
        self._lines: list[LogLine] = []
        self._shown: list[LogLine] = []

        self.tag = QComboBox()
        self.tag.setMinimumContentsLength(14)
        self.project = QComboBox()
        self.project.setMinimumContentsLength(18)
        self.find = QLineEdit()
        self.find.setPlaceholderText("Text in the line")
        self.find.setClearButtonEnabled(True)
        self.find.setAccessibleName("Find in the log")
        filters = QHBoxLayout()
        for text, field in (("Tag", self.tag), ("Project", self.project), ("Find", self.find)):
            filters.addWidget(label_for(text, field))
            filters.addWidget(field, 1 if field is self.find else 0)

        self.text = QPlainTextEdit()
        self.text.setReadOnly(True)
        self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.text.setFont(QFont(monospace_family(None)))
        self.text.setAccessibleName("Diagnostics log")
        self.text.setMaximumBlockCount(SHOWN_LINES)  # what follows the log forgets its oldest lines
        self.status = QLabel()  # what is shown of the log
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.notice = QLabel()  # what the last gesture did: lines copied, a bug report saved
        self.notice.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        status_row = QHBoxLayout()
        status_row.addWidget(self.status, 1)
        status_row.addWidget(self.notice)

        self.echo = QCheckBox(ECHO)
        self.echo.setToolTip(ECHO_TIP)
        self.echo.setChecked(sources.settings.settings.diagnostics_verbose)
        self.echo.toggled.connect(self._set_echo)
        self.copy_button = QPushButton(f"Copy last {COPIED_LINES} lines")
        self.copy_button.setToolTip("The last lines shown, as the log has them, for a message or an issue")
        self.report_button = QPushButton("Save bug report…")
        self.report_button.setToolTip(
            "A zip of the log, your settings without secrets, and the versions of IdeA, Qt and the agent CLIs"
        )
        folder_button = QPushButton("Open log folder")
        close_button = QPushButton("Close")
        self.copy_button.clicked.connect(self.copy_last_lines)
        self.report_button.clicked.connect(self._ask_where_to_save)
        folder_button.clicked.connect(
            lambda: QDesktopServices.openUrl(QUrl.fromLocalFile(str(sources.log.path.parent)))
        )
        close_button.clicked.connect(self.close)
        buttons = QHBoxLayout()
        buttons.addWidget(self.echo)
        buttons.addStretch(1)
        for button in (self.copy_button, self.report_button, folder_button, close_button):
            buttons.addWidget(button)

        layout = QVBoxLayout(self)
        layout.addLayout(filters)
        layout.addWidget(self.text, 1)
        layout.addLayout(status_row)
        layout.addLayout(buttons)
        size_within_screen(self, 1100, 640)

        self.tag.addItem("All tags", None)
        self.project.addItem("All projects", None)
        for record in sources.projects():
            self.project.addItem(record.name, record.id)
            self.project.setItemData(self.project.count() - 1, record.root, Qt.ItemDataRole.ToolTipRole)
        self.tag.currentIndexChanged.connect(self._show)
        self.project.currentIndexChanged.connect(self._show)
        self.find.textChanged.connect(self._show)
        self._follow = QTimer(self)
        self._follow.setInterval(FOLLOW_EVERY_MS)
        self._follow.timeout.connect(self.refresh)
        self._follow.start()
        self.refresh()

    def refresh(self) -> None:
        """Show what was written to the log since it was last read (all of it again if it was rotated)."""
        started_over, texts = self._follower.read()
        if not started_over and not texts:
            return
        new = [parse_line(text) for text in texts]
        self._lines = (new if started_over else [*self._lines, *new])[-SHOWN_LINES:]
        self._refill_tags()
        if started_over:
            self._show()
            return
        chosen = self.current_filter()
        shown = [line for line in new if chosen.matches(line)]
        if shown:
            following = self._at_end()
            self._shown = [*self._shown, *shown][-SHOWN_LINES:]
            self.text.appendPlainText("\n".join(_readable(line) for line in shown))
            if following:
                self._to_end()
        self._tell_counts(chosen)

    def _refill_tags(self) -> None:
        chosen = self.tag.currentData()
        tags = tags_of(self._lines)
        if chosen is not None and chosen not in tags:
            tags = sorted([*tags, chosen])  # a tag chosen stays, even when its lines have left the window
        if [self.tag.itemData(index) for index in range(1, self.tag.count())] == tags:
            return
        self.tag.blockSignals(True)
        self.tag.clear()
        self.tag.addItem("All tags", None)
        for tag in tags:
            self.tag.addItem(f"[{tag}]", tag)
        self.tag.setCurrentIndex(max(0, self.tag.findData(chosen)))
        self.tag.blockSignals(False)

    def current_filter(self) -> LogFilter:
        return LogFilter(self.tag.currentData(), self.project.currentData(), self.find.text().strip())

    def _show(self) -> None:
        chosen = self.current_filter()
        following = self._at_end()
        self._shown = [line for line in self._lines if chosen.matches(line)]
        self.text.setPlainText("\n".join(_readable(line) for line in self._shown))
        if following:
            self._to_end()
        self._tell_counts(chosen)

    def _at_end(self) -> bool:
        bar = self.text.verticalScrollBar()
        return bar.value() >= bar.maximum() - 2  # at the end: stays at the end as lines come

    def _to_end(self) -> None:
        self.text.moveCursor(QTextCursor.MoveOperation.End)
        self.text.verticalScrollBar().setValue(self.text.verticalScrollBar().maximum())

    def _tell_counts(self, chosen: LogFilter) -> None:
        total = counted(len(self._lines), "line")
        if not self._lines:
            self.status.setText(f"The log is empty: {self._sources.log.path}")
        elif chosen == LogFilter():
            self.status.setText(f"The last {total} of {self._sources.log.path}")
        else:
            self.status.setText(f"{counted(len(self._shown), 'line')} of the last {total} match")
        self.copy_button.setEnabled(bool(self._shown))

    def copy_last_lines(self) -> None:
        lines = [line.text for line in self._shown[-COPIED_LINES:]]
        QGuiApplication.clipboard().setText("\n".join(lines) + "\n")
        self.notice.setText(f"Copied the last {counted(len(lines), 'line')} shown")

    def _set_echo(self, on: bool) -> None:
        self._sources.log.echo = on
        self._sources.settings.change(diagnostics_verbose=on)

    def _ask_where_to_save(self) -> None:
        suggested = Path.home() / time.strftime("idea-bug-report-%Y%m%d-%H%M%S.zip")
        chosen, _filter = QFileDialog.getSaveFileName(self, "Save bug report", str(suggested), "Zip archives (*.zip)")
        if chosen:
            self.save_bug_report(Path(chosen))

    def save_bug_report(self, destination: Path) -> None:
        sources = self._sources
        self.report_button.setEnabled(False)
        self.notice.setText("Saving the bug report (asking each agent CLI its version)…")

        async def save() -> Path:
            def write() -> Path:
                logs = [*sources.log.files(), *recent_crash_reports(sources.log.path.parent)]
                return write_bug_report(destination, logs=logs, data_dir=sources.data_dir, about=sources.about())

            return await asyncio.to_thread(write)

        def saved(path: Path) -> None:
            self.report_button.setEnabled(True)
            self.notice.setText(f"Bug report saved: {path}")

        def failed(error: BaseException) -> None:
            self.report_button.setEnabled(True)
            self.notice.setText(f"The bug report was not saved: {error_text(error)}")

        sources.client.call(save(), on_done=saved, on_error=failed)

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 (Qt's name)
        self._follow.stop()
        super().closeEvent(event)


def _readable(line: LogLine) -> str:
    if line.at_ms is None:
        return line.text
    seconds, ms = divmod(line.at_ms, 1000)
    return f"{time.strftime('%Y-%m-%d %H:%M:%S', time.localtime(seconds))}.{ms:03d}  {line.message}"
