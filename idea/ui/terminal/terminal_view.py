"""The widget a cell shows for a terminal session: one QTermWidget, its program, and what IdeA adds to it.

Added: resizes debounced to one per pause (every SIGWINCH makes an agent CLI redraw its whole input box),
Ctrl+Shift shortcuts for copy, paste, find and zoom (the keys CLIs need, Esc, Ctrl+C, Ctrl+R, Tab,
Shift+Tab, arrows, pass through untouched), clickable URLs, an exact exit code, and a readback of the
visible screen that leaves the user's selection alone.

A view lives as long as its session: cells borrow it and give it back to the parking lot; moving it between
cells, tabs and windows only reparents it (destroying the widget would kill the program).
"""

from __future__ import annotations

import logging
import time
import unicodedata
from collections.abc import Callable, Mapping, Sequence

from PySide6.QtCore import (
    QBuffer,
    QCoreApplication,
    QEvent,
    QIODevice,
    QObject,
    QPoint,
    QProcess,
    QRect,
    QSize,
    Qt,
    QUrl,
    Signal,
)
from PySide6.QtGui import (
    QDesktopServices,
    QGuiApplication,
    QKeyEvent,
    QPalette,
    QResizeEvent,
    QShowEvent,
)
from PySide6.QtWidgets import QLineEdit, QWidget
from pyside6_qtermwidget import QTermWidget

from idea.domain.errors import AppError, ErrorCode
from idea.infrastructure.resources import resources_dir
from idea.infrastructure.terminal.start import start_refused
from idea.ui.terminal.activity_mark import ActivityMark
from idea.ui.terminal.shift_enter import shift_enter_mapped
from idea.ui.terminal.appearance import TEXT_MARGIN, TerminalAppearance, register_color_schemes
from idea.ui.terminal.font_zoom import FontZoom, cell_shortcuts
from idea.ui.widgets.timers import single_shot_timer

_log = logging.getLogger(__name__)

KEY_BINDINGS = "IdeA"  # idea/resources/kb-layouts/IdeA.keytab
RESIZE_DEBOUNCE_MS = 150
# The kernel hands PTY output to the reading side asynchronously, so the program's last output can arrive
# after its exit is noticed (measured: 1 exit in 15 after a 3 MB burst). The exit is reported once the
# output has been quiet this long, or after the limit (something the program started may keep writing).
EXIT_SETTLE_MS = 50
EXIT_SETTLE_LIMIT_MS = 1000
# Output after this much quiet emits activity() again; the quiet itself emits silence().
SILENCE_SECONDS = 2

_CTRL_SHIFT = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier


class TerminalView(QWidget):
    bell = Signal()
    activity = Signal()
    silence = Signal()
    titleChanged = Signal(str)
    exited = Signal(object)  # the exit code (-N when signal N ended it), or None when unknown
    focused = Signal()
    pasting = Signal(str)  # the clipboard text a person is about to paste

    def __init__(self, appearance: TerminalAppearance, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        register_color_schemes()
        self._appearance = appearance
        self._title = ""
        self._process: QProcess | None = None
        self._exit_code: int | None = None
        self._exit_noticed_at: float | None = None
        self._has_exited = False
        self._paste_blocked = False
        self.shift_enter: str | None = None  # what Shift+Enter types (SpawnSpec.shift_enter)

        term = QTermWidget(0, self)
        # xterm key sequences (TERM is xterm-256color): the widget's Linux-console table has no Shift+Tab.
        term.setCustomKeyBindingsDir(str(resources_dir() / "kb-layouts"))
        term.setKeyBindings(KEY_BINDINGS)
        term.setConfirmMultilinePaste(False)
        term.setAutoClose(True)  # without it the widget never notices that its program ended
        # Activity and silence come from the output hand-over, once per flow (`output_flowing`): the widget's own
        # monitoring restarts a timer for every chunk of output.
        term.setTerminalSizeHint(False)  # no "Size: 80 x 31" box over the program at every resize
        term.setMargin(TEXT_MARGIN)
        self._term = term
        self.zoom = FontZoom(lambda: self._appearance, term.setTerminalFont)
        _name_search_bar(term)
        self.setFocusProxy(term)
        self.setAutoFillBackground(True)
        self._apply_appearance(appearance, previous=None)

        self._resize_timer = single_shot_timer(self, RESIZE_DEBOUNCE_MS, self._fit_terminal)
        self._exit_timer = single_shot_timer(self, EXIT_SETTLE_MS, self._report_exit)

        self._activity = ActivityMark(self, SILENCE_SECONDS * 1000, self.activity.emit, self.silence.emit)

        term.bell.connect(lambda _message: self.bell.emit())
        term.titleChanged.connect(self._on_title_changed)
        term.termGetFocus.connect(self.focused)
        term.urlActivated.connect(self._open_url)

        self._shortcuts = cell_shortcuts(self.copy, self.paste, self.toggle_find, self.zoom)
        self.display.installEventFilter(self)
        if (search_edit := _search_edit(term)) is not None:
            search_edit.installEventFilter(self)

    @property
    def terminal(self) -> QTermWidget:
        return self._term

    # The widget's inner parts are asked for each time rather than kept: they were made in C++, and PySide ties
    # the Python object of such a widget to whatever ancestor last listed it (`findChildren`), so a window
    # closed after this view left it would take that object with it while the widget lives on here.

    @property
    def display(self) -> QWidget:
        """The widget that takes the keyboard (the write portal watches it)."""
        return self._term.focusProxy()

    # The program

    def start(self, program: str, arguments: Sequence[str], cwd: str, environment: Mapping[str, str]) -> int:
        """Run `program` (absolute path) in this view; returns its pid. A view runs one program, once."""
        if self._process is not None:
            raise AppError(ErrorCode.PROCESS, "this terminal has already run a program")
        term = self._term
        term.setShellProgram(program)
        term.setArgs(list(arguments))
        term.setEnvironment([f"{name}={value}" for name, value in environment.items()])
        term.setWorkingDirectory(cwd)
        catcher = _ProcessCatcher()
        application = QCoreApplication.instance()
        application.installEventFilter(catcher)
        try:
            term.startShellProgram()
        finally:
            application.removeEventFilter(catcher)
        pid = term.getShellPID()
        process = catcher.process_with_pid(pid)
        if pid <= 0:
            reason = process.errorString() if process is not None else "the terminal could not run it"
            raise start_refused(program, reason)
        self._process = process
        # Connected only now: a program that fails to start makes the widget report its end right away.
        if process is not None:
            process.finished.connect(self._on_process_finished)
        else:  # not expected with the pinned widget: the exit is still noticed, without its code
            _log.warning("the process object of pid %s was not found; its exit code will be unknown", pid)
            term.finished.connect(lambda: self._on_process_finished(None, None))
        return pid

    def has_exited(self) -> bool:
        return self._has_exited

    def output_flowing(self, flowing: bool) -> None:
        """The program's output started (True) or stopped (False), once per flow of output: activity() for the
        first output after SILENCE_SECONDS of quiet, silence() once it has been quiet that long."""
        if flowing:
            self._activity.output_started()
        else:
            self._activity.output_stopped()

    def set_silence_ms(self, ms: int) -> None:
        self._activity.set_silence_ms(ms)

    def _on_process_finished(self, code: int | None, status: QProcess.ExitStatus | None) -> None:
        if self._exit_noticed_at is not None:
            return
        if code is not None and status == QProcess.ExitStatus.CrashExit:
            code = -code if code > 0 else None  # Qt gives the signal that ended the process
        self._exit_code = code
        self._exit_noticed_at = time.monotonic()
        # Output still arriving delays the report (connected only now: no Python call per chunk before).
        self._term.receivedData.connect(self._on_output)
        # The widget closes its display when the program ends; the last screen stays worth reading.
        self.display.show()
        self._exit_timer.start()

    def _on_output(self, _data: str) -> None:
        noticed_at = self._exit_noticed_at
        settling = noticed_at is not None and not self._has_exited
        if settling and (time.monotonic() - noticed_at) * 1000 < EXIT_SETTLE_LIMIT_MS:
            self._exit_timer.start()

    def _report_exit(self) -> None:
        self._has_exited = True
        self.exited.emit(self._exit_code)

    def _on_title_changed(self) -> None:
        title = self._term.title()
        if title != self._title:
            self._title = title
            self.titleChanged.emit(title)

    def _open_url(self, url: QUrl, from_context_menu: bool) -> None:
        # The widget reports every plain click on a link: only Ctrl+click opens it, so that a click to
        # focus or select never launches a browser.
        if from_context_menu or QGuiApplication.keyboardModifiers() & Qt.KeyboardModifier.ControlModifier:
            QDesktopServices.openUrl(url)

    # Size

    def set_grid_size(self, columns: int, lines: int) -> None:
        """Give the program a window of `columns` × `lines` while no cell shows this view.

        A view in a cell takes the cell's size instead. A hidden widget gets its resize events only once
        shown, so they are delivered here: a parked program must see a sensible size (`stty size`).
        """
        if self.isVisible():
            self._term.setSize(QSize(columns, lines))
            return
        # setSize() only records the size hint when it differs from the display's current size; the
        # display is hidden, so this resize has no effect yet except making the hint always recorded.
        display = self.display
        display.resize(0, 0)
        self._term.setSize(QSize(columns, lines))
        self._term.setGeometry(QRect(QPoint(0, 0), display.sizeHint()))
        for widget in (self._term, display):
            QCoreApplication.sendEvent(widget, QResizeEvent(widget.size(), QSize()))

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._resize_timer.start()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._resize_timer.start()

    def _fit_terminal(self) -> None:
        if self._term.geometry() != self.rect():
            self._term.setGeometry(self.rect())

    # Screen readback

    def screen_text(self) -> str:
        """The visible screen: one line per row, trailing spaces trimmed."""
        if self._term.selectedText(False):
            rows = _visible_rows_from_history(self._term)  # the user is selecting: do not disturb it
        else:
            rows = _visible_rows_by_selection(self._term)
        return "\n".join(row.rstrip(" ") for row in rows)

    # Actions (also offered by the cell's menu)

    def focus_terminal(self) -> None:
        self._term.setFocus(Qt.FocusReason.OtherFocusReason)

    def copy(self) -> None:
        self._term.copyClipboard()

    def paste(self) -> None:
        if self._paste_blocked:
            return
        self.pasting.emit(QGuiApplication.clipboard().text())
        self._term.pasteClipboard()

    def set_paste_blocked(self, blocked: bool) -> None:
        """While an agent's task is being typed, a paste would mix with it."""
        self._paste_blocked = blocked

    def toggle_find(self) -> None:
        """Show or hide the search bar, which finds text in the scrollback (Enter: next, Esc: close)."""
        self._term.toggleShowSearchBar()
        if (bar := self._term.findChild(QWidget, "SearchBar")) is None or bar.isHidden():
            self.focus_terminal()

    # Appearance

    @property
    def appearance(self) -> TerminalAppearance:
        return self._appearance

    def set_appearance(self, appearance: TerminalAppearance) -> None:
        previous, self._appearance = self._appearance, appearance
        self._apply_appearance(appearance, previous)

    def _apply_appearance(self, appearance: TerminalAppearance, previous: TerminalAppearance | None) -> None:
        term = self._term
        if previous is None or (previous.font_family, previous.point_size) != (
            appearance.font_family,
            appearance.point_size,
        ):
            term.setTerminalFont(self.zoom.font())
        if previous is None or previous.scheme != appearance.scheme:
            term.setColorScheme(appearance.scheme)
            # Painted around the terminal while a resize waits for its debounce.
            palette = self.palette()
            palette.setColor(QPalette.ColorRole.Window, appearance.colors().background_color())
            self.setPalette(palette)
        if previous is None or previous.history_lines != appearance.history_lines:
            term.setHistorySize(appearance.history_lines)

    # Keys

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() in (QEvent.Type.ShortcutOverride, QEvent.Type.KeyPress) and isinstance(event, QKeyEvent):
            action = self._shortcut_for(watched, event)
            if action is not None:
                # Accepting the override keeps application shortcuts from taking the key first.
                event.accept()
                if event.type() == QEvent.Type.KeyPress:
                    action()
                return True
            if event.type() == QEvent.Type.KeyPress and watched is self.display and _is_shift_tab(event):
                # Qt would move the focus to the previous widget (another cell); the program wants the key.
                self._term.sendKeyEvent(event)
                return True
            if event.type() == QEvent.Type.KeyPress and watched is self.display and self.shift_enter_mapped(event):
                self._term.sendText(self.shift_enter)  # a new line in an agent CLI's prompt (spec 01 §13.9)
                return True
        return super().eventFilter(watched, event)

    def shift_enter_mapped(self, event: QKeyEvent) -> bool:
        return shift_enter_mapped(self.shift_enter, event)

    def _shortcut_for(self, watched: QObject, event: QKeyEvent) -> Callable[[], None] | None:
        if event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier != _CTRL_SHIFT:
            return None
        if watched is _search_edit(self._term) and event.key() != Qt.Key.Key_F.value:
            return None  # in the search field, copy, paste and zoom keys belong to the field
        return self._shortcuts.get(event.key())


# The widget's search bar shows "<", ">", "..." and "X" with no tooltip: what each does, shown and said.
_SEARCH_BAR_PARTS = {
    "searchTextEdit": "Find in the scrollback",
    "findPreviousButton": "Previous match",
    "findNextButton": "Next match",
    "optionsButton": "Search options",
    "closeButton": "Close the search bar",
}


def _search_edit(term: QTermWidget) -> QLineEdit | None:
    return term.findChild(QLineEdit, "searchTextEdit")


def _name_search_bar(term: QTermWidget) -> None:
    for name, text in _SEARCH_BAR_PARTS.items():
        part = term.findChild(QWidget, name)
        if part is not None:
            part.setAccessibleName(text)
            if not isinstance(part, QLineEdit):
                part.setToolTip(text)


def _is_shift_tab(event: QKeyEvent) -> bool:
    modifiers = event.modifiers()
    if modifiers & (Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier):
        return False  # Qt leaves these to the widget anyway
    return event.key() == Qt.Key.Key_Backtab.value or (
        event.key() == Qt.Key.Key_Tab.value and bool(modifiers & Qt.KeyboardModifier.ShiftModifier)
    )


class _ProcessCatcher(QObject):
    """Notes the QProcess objects that receive events while the widget starts its program.

    The widget keeps its process object private, yet only that object knows the exit status: Qt reaps the
    child in its SIGCHLD handler, so a waitid() of our own races with it and loses for short-lived
    programs. Starting the program sends the process object events (property and child changes), which an
    application-wide event filter sees.
    """

    def __init__(self) -> None:
        super().__init__()
        self._seen: list[QProcess] = []

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if isinstance(watched, QProcess) and not any(seen is watched for seen in self._seen):
            self._seen.append(watched)
        return False

    def process_with_pid(self, pid: int) -> QProcess | None:
        return next((process for process in self._seen if process.processId() == pid), None)


def _visible_rows_by_selection(term: QTermWidget) -> list[str]:
    """Each visible row, selected one at a time (rows count from the top of the scrollback)."""
    first = term.historyLinesCount()
    last_column = term.screenColumnsCount() - 1
    rows = []
    for row in range(first, first + term.screenLinesCount()):
        term.setSelectionStart(row, 0)
        term.setSelectionEnd(row, last_column)
        rows.append(term.selectedText(False).rstrip("\n"))
    # Position -1 (row 0, column -1) is the widget's own "no selection" state.
    term.setSelectionStart(0, -1)
    return rows


def _visible_rows_from_history(term: QTermWidget) -> list[str]:
    """The visible rows rebuilt from the saved scrollback, which joins wrapped rows into one line.

    Slower than selecting (the whole scrollback is written out) and approximate where a wide character
    wrapped early, so used only while the user holds a selection.
    """
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    term.saveHistory(buffer)
    buffer.close()
    # Every line ends with a newline, and the widget writes one empty line past the end.
    lines = bytes(buffer.data().data()).decode("utf-8", errors="replace").split("\n")[:-2]
    columns = term.screenColumnsCount()
    rows = [row for line in lines for row in _wrap(line, columns)]
    visible = rows[-term.screenLinesCount() :]
    return visible + [""] * (term.screenLinesCount() - len(visible))


def _wrap(line: str, columns: int) -> list[str]:
    rows: list[str] = []
    row: list[str] = []
    width = 0
    for char in line:
        char_width = _cell_width(char)
        if width + char_width > columns:  # a wide character that does not fit wraps whole
            rows.append("".join(row))
            row, width = [], 0
        row.append(char)
        width += char_width
    rows.append("".join(row))
    return rows


def _cell_width(char: str) -> int:
    if unicodedata.combining(char):
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1
