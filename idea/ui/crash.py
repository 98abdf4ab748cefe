"""When IdeA cannot start (a resource missing from the installation, a data folder it cannot use, a bug), the
person gets the reason in one sentence and where the full report was kept, never a raw traceback; the
report stays for them to read or send. Modelled on qutebrowser's crash handler (`crashsignal`,
`crashdialog`): keep the details first, then tell, then quit.

Without a screen (offscreen, automation with `--screenshot` / `--quit-after`) the same sentence goes to
stderr and IdeA exits with status 1 at once: nothing waits for a click nobody can give."""

from __future__ import annotations

import platform
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from types import TracebackType

from PySide6 import __version__ as pyside_version
from PySide6.QtCore import Qt, qVersion
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from idea import __version__
from idea.domain.errors import AppError
from idea.domain.wording import capitalized
from idea.infrastructure.bug_report import crash_report_name
from idea.infrastructure.diagnostics import FileDiagnostics

START_FAILED_EXIT = 1
_HEADLESS_PLATFORMS = {"offscreen", "minimal"}


def reason_of(error: BaseException) -> str:
    """One sentence a person can act on."""
    if isinstance(error, AppError):
        return error.message
    if isinstance(error, OSError) and error.strerror:
        where = f": {error.filename}" if error.filename else ""
        return f"{error.strerror}{where}"
    return f"{type(error).__name__}: {error}" if str(error) else type(error).__name__


def keep_report(error: BaseException, logs: Path, what: str = "could not start") -> Path | None:
    """Write the full report as `crash-<ms>.log` beside the diagnostics log (in the temporary folder when
    that folder cannot be used); None when nothing could be written."""
    stamp = int(time.time() * 1000)
    report = (
        f"IdeA {__version__} {what}.\n"
        f"Python {platform.python_version()} · Qt {qVersion()} · PySide6 {pyside_version} · {platform.platform()}\n"
        f"Command: {' '.join(sys.argv)}\n\n" + "".join(traceback.format_exception(error))
    )
    for folder, name in ((logs, crash_report_name(stamp)), (Path(tempfile.gettempdir()), f"idea-crash-{stamp}.log")):
        path = folder / name
        try:
            folder.mkdir(parents=True, exist_ok=True)
            path.write_text(report, encoding="utf-8")
        except OSError:
            continue
        if folder == logs:
            FileDiagnostics(logs).beacon(f"[crash] IdeA {what}: {reason_of(error)}; report kept as {path}")
        return path
    return None


class CrashDialog(QDialog):
    """The reason, where the report is, the report itself on demand, and one way out."""

    def __init__(self, reason: str, report: Path | None, details: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("IdeA could not start")
        self.setMinimumWidth(520)
        column = QVBoxLayout(self)
        self.reason = QLabel(f"<b>IdeA could not start.</b><br>{_escape(capitalized(reason))}.")
        self.reason.setWordWrap(True)
        column.addWidget(self.reason)
        where = (
            f"The full report was kept in {report}. Send it with your bug report."
            if report is not None
            else "The report could not be written to disk; it is shown below."
        )
        self.where = QLabel(where)
        self.where.setWordWrap(True)
        self.where.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        column.addWidget(self.where)
        self.details = QPlainTextEdit(details)
        self.details.setAccessibleName("Details")
        self.details.setReadOnly(True)
        self.details.setVisible(report is None)
        column.addWidget(self.details, 1)
        buttons = QDialogButtonBox()
        show = QPushButton("Show details")
        show.setCheckable(True)
        show.setChecked(report is None)
        show.toggled.connect(self.details.setVisible)
        copy = QPushButton("Copy details")
        copy.clicked.connect(lambda: QApplication.clipboard().setText(details))
        buttons.addButton(show, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.addButton(copy, QDialogButtonBox.ButtonRole.ActionRole)
        quit_button = buttons.addButton("Quit", QDialogButtonBox.ButtonRole.RejectRole)
        quit_button.setDefault(True)
        buttons.rejected.connect(self.reject)
        column.addWidget(buttons)


def has_screen(automation: bool) -> bool:
    """A person can answer a dialog: a real display platform and no automation flag."""
    return not automation and QGuiApplication.platformName() not in _HEADLESS_PLATFORMS


def report_start_failure(
    error: BaseException,
    logs: Path,
    *,
    interactive: bool,
    show: Callable[[CrashDialog], object] = lambda dialog: dialog.exec(),
) -> int:
    """Keep the report, say why on stderr, and with a screen show the crash dialog; the exit status."""
    report = keep_report(error, logs)
    reason = reason_of(error)
    where = f" The full report was kept in {report}." if report is not None else ""
    print(f"IdeA could not start: {reason}.{where}", file=sys.stderr)
    if interactive and QApplication.instance() is not None:
        show(CrashDialog(reason, report, "".join(traceback.format_exception(error))))
    return START_FAILED_EXIT


def keep_uncaught(logs: Path) -> Callable[[type[BaseException], BaseException, TracebackType | None], None]:
    """An excepthook for the running GUI: an error in a slot keeps its report as well, then prints as usual."""
    previous = sys.excepthook

    def hook(kind: type[BaseException], error: BaseException, trace: TracebackType | None) -> None:
        keep_report(error.with_traceback(trace), logs, what="hit an unexpected error")
        previous(kind, error, trace)

    return hook


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
