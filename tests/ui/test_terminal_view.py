"""TerminalView: keys, clipboard, zoom, find, debounced resize, signals and readback, on the GUI thread."""

from __future__ import annotations

import os
import shutil
import signal
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import shiboken6
from PySide6.QtCore import QEvent, QObject, QPoint, QSize, Qt, QUrl, Slot
from PySide6.QtGui import QColor, QDesktopServices, QFontInfo, QGuiApplication, QPalette
from PySide6.QtWidgets import QLineEdit, QWidget
from pyside6_qtermwidget import QTermWidget
from pytestqt.qtbot import QtBot

from idea.domain.workspace import ColorScheme, Settings, TerminalFontSetting
from idea.ui.terminal.appearance import (
    DARK_SCHEME,
    LIGHT_SCHEME,
    TEXT_MARGIN,
    TerminalAppearance,
    register_color_schemes,
    scheme_colors,
)
from idea.ui.terminal.terminal_view import RESIZE_DEBOUNCE_MS, TerminalView
from tests.ui.accessibility import unnamed_controls

CTRL_SHIFT = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
WAIT_MS = 30_000  # a safety net around condition waits

# Prints, in hex, every byte it reads until a "q" arrives; raw mode, so nothing is translated on the way.
KEY_RECORDER = r"""
import os, tty
tty.setraw(0)
os.write(1, b"ready\r\n")
received = b""
while not received.endswith(b"q"):
    received += os.read(0, 64)
os.write(1, b"KEYS:" + received.hex().encode() + b"\r\n")
"""


@pytest.fixture
def view(qtbot: QtBot) -> Iterator[TerminalView]:
    """A view shown in an active window, as in a cell; its program is ended after the test."""
    host = QWidget()
    host.resize(800, 400)
    terminal_view = TerminalView(TerminalAppearance(), host)
    terminal_view.setGeometry(0, 0, 800, 400)
    host.show()
    host.activateWindow()
    qtbot.waitActive(host)
    qtbot.waitUntil(lambda: terminal_view.terminal.geometry() == terminal_view.rect(), timeout=WAIT_MS)
    yield terminal_view
    # Not qtbot.addWidget: pytest-qt would delete the window, and with it the program, before this runs.
    pid = terminal_view.terminal.getShellPID()
    if pid > 0 and not terminal_view.has_exited():
        os.kill(pid, signal.SIGKILL)
        qtbot.waitUntil(terminal_view.has_exited, timeout=WAIT_MS)
    shiboken6.delete(host)


def start(view: TerminalView, argv: list[str], cwd: Path) -> int:
    program = shutil.which(argv[0]) or argv[0]
    return view.start(program, argv[1:], str(cwd), dict(os.environ, TERM="xterm-256color", PS1="$ "))


def wait_for_screen(qtbot: QtBot, view: TerminalView, text: str) -> str:
    qtbot.waitUntil(lambda: text in view.screen_text(), timeout=WAIT_MS)
    return view.screen_text()


def test_typed_keys_reach_the_shell(view: TerminalView, qtbot: QtBot, tmp_path: Path) -> None:
    start(view, ["sh", "-i"], tmp_path)
    wait_for_screen(qtbot, view, "$")
    qtbot.keyClicks(view.terminal.focusProxy(), "echo typed-$((2+3))")
    qtbot.keyClick(view.terminal.focusProxy(), Qt.Key.Key_Return)
    assert "typed-5" in wait_for_screen(qtbot, view, "\ntyped-5").split("\n")


def test_the_keys_agent_clis_need_pass_through_and_ide_shortcuts_do_not(
    view: TerminalView, qtbot: QtBot, tmp_path: Path
) -> None:
    # Focusable neighbours, like the other cells: Tab and Shift+Tab must not move the focus to them.
    for _ in range(2):
        QLineEdit(view.parentWidget()).show()
    start(view, [sys.executable, "-c", KEY_RECORDER], tmp_path)
    wait_for_screen(qtbot, view, "ready")
    display = view.terminal.focusProxy()
    view.focus_terminal()
    qtbot.keyClick(display, Qt.Key.Key_Escape)
    qtbot.keyClick(display, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClick(display, Qt.Key.Key_R, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClick(display, Qt.Key.Key_C, CTRL_SHIFT)  # copy: nothing reaches the program
    qtbot.keyClick(display, Qt.Key.Key_Tab)
    qtbot.keyClick(display, Qt.Key.Key_Backtab, Qt.KeyboardModifier.ShiftModifier)
    qtbot.keyClick(display, Qt.Key.Key_Equal, CTRL_SHIFT)  # zoom: nothing reaches the program
    qtbot.keyClick(display, Qt.Key.Key_Up)
    qtbot.keyClick(display, Qt.Key.Key_Backspace)
    qtbot.keyClick(display, Qt.Key.Key_Home)
    qtbot.keyClicks(display, "q")
    screen = wait_for_screen(qtbot, view, "KEYS:")
    keys = next(line for line in screen.split("\n") if line.startswith("KEYS:"))
    escape, ctrl_c, ctrl_r, tab, shift_tab, up = "1b", "03", "12", "09", "1b5b5a", "1b5b41"
    backspace, home, q = "7f", "1b5b48", "71"
    assert keys == "KEYS:" + escape + ctrl_c + ctrl_r + tab + shift_tab + up + backspace + home + q
    assert display.hasFocus()


def test_copy_and_paste_go_through_the_clipboard(view: TerminalView, qtbot: QtBot, tmp_path: Path) -> None:
    start(view, ["sh", "-c", "printf 'copy-me-中文\\n'; exec cat"], tmp_path)
    wait_for_screen(qtbot, view, "copy-me")
    clipboard = QGuiApplication.clipboard()
    clipboard.clear()
    view.terminal.setSelectionStart(0, 0)
    view.terminal.setSelectionEnd(0, len("copy-me-") + 3)  # the wide characters take two columns each
    display = view.terminal.focusProxy()
    qtbot.keyClick(display, Qt.Key.Key_C, CTRL_SHIFT)
    assert clipboard.text() == "copy-me-中文"
    qtbot.keyClick(display, Qt.Key.Key_V, CTRL_SHIFT)
    qtbot.keyClick(display, Qt.Key.Key_Return)
    # The terminal echoes the pasted line, then cat prints it back.
    qtbot.waitUntil(lambda: view.screen_text().split("\n")[1:3] == ["copy-me-中文"] * 2, timeout=WAIT_MS)


def test_zoom_keys_change_the_font_size(view: TerminalView, qtbot: QtBot) -> None:
    display = view.terminal.focusProxy()

    def point_size() -> int:
        return view.terminal.getTerminalFont().pointSize()

    base = point_size()
    qtbot.keyClick(display, Qt.Key.Key_Equal, CTRL_SHIFT)
    qtbot.keyClick(display, Qt.Key.Key_Plus, CTRL_SHIFT)  # Shift+= as some layouts report it
    assert point_size() == base + 2
    qtbot.keyClick(display, Qt.Key.Key_Minus, CTRL_SHIFT)
    assert point_size() == base + 1
    qtbot.keyClick(display, Qt.Key.Key_0, CTRL_SHIFT)
    assert point_size() == base
    assert view.terminal.getTerminalFont().fixedPitch()


def test_find_searches_the_scrollback_and_gives_the_keyboard_back(
    view: TerminalView, qtbot: QtBot, tmp_path: Path
) -> None:
    script = "echo the needle is here; for i in $(seq 1 200); do echo filler $i; done; exec sleep 60"
    start(view, ["sh", "-c", script], tmp_path)
    wait_for_screen(qtbot, view, "filler 200")
    assert "needle" not in view.screen_text()
    display = view.terminal.focusProxy()
    view.focus_terminal()
    qtbot.keyClick(display, Qt.Key.Key_F, CTRL_SHIFT)
    field = view.terminal.findChild(QLineEdit, "searchTextEdit")
    assert field is not None and field.isVisible()
    assert unnamed_controls(view) == []  # the bar's "<", ">", "..." and "X" say what they do
    qtbot.keyClicks(field, "needle")
    qtbot.keyClick(field, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: view.terminal.selectedText(False) == "needle", timeout=WAIT_MS)
    qtbot.keyClick(field, Qt.Key.Key_F, CTRL_SHIFT)
    assert not field.isVisible()
    assert display.hasFocus()


def test_a_resize_storm_reaches_the_terminal_once(view: TerminalView, qtbot: QtBot) -> None:
    view.resize(400, 200)
    qtbot.waitUntil(lambda: view.terminal.geometry() == view.rect(), timeout=WAIT_MS)
    resizes = EventCounter(view.terminal, QEvent.Type.Resize)
    for step in range(10):
        view.resize(500 + 20 * step, 250 + 10 * step)
    assert view.terminal.geometry().size() == QSize(400, 200)  # nothing applied yet
    # Meanwhile the newly uncovered area shows the scheme's background, not a flash of another colour.
    uncovered = view.window().grab().toImage().pixelColor(view.geometry().bottomRight())
    assert uncovered == QColor(*scheme_colors(TerminalAppearance().scheme).background)
    qtbot.waitUntil(lambda: view.terminal.geometry() == view.rect(), timeout=RESIZE_DEBOUNCE_MS * 10)
    assert resizes.count == 1


def test_appearance_changes_apply_to_a_running_view(view: TerminalView, qtbot: QtBot, tmp_path: Path) -> None:
    start(view, ["sh", "-c", "echo styled; exec sleep 60"], tmp_path)
    wait_for_screen(qtbot, view, "styled")
    light = TerminalAppearance(font_family="DejaVu Sans Mono", point_size=14, scheme=LIGHT_SCHEME)
    view.set_appearance(light)
    assert view.terminal.getTerminalFont().pointSize() == 14
    assert view.palette().color(QPalette.ColorRole.Window) == QColor(255, 255, 255)
    rendered = view.terminal.focusProxy().grab().toImage()
    assert rendered.pixelColor(rendered.width() - 2, rendered.height() - 2) == QColor(255, 255, 255)


def test_bell_and_focus_signals(view: TerminalView, qtbot: QtBot, tmp_path: Path) -> None:
    start(view, ["sh", "-c", "read line; printf '\\a'; exec sleep 60"], tmp_path)
    with qtbot.waitSignal(view.bell, timeout=WAIT_MS):
        view.terminal.sendText("\r")
    view.clearFocus()
    with qtbot.waitSignal(view.focused, timeout=WAIT_MS):
        view.focus_terminal()


def test_ctrl_click_on_a_url_opens_it_and_a_plain_click_does_not(
    view: TerminalView, qtbot: QtBot, tmp_path: Path
) -> None:
    opened = UrlRecorder()
    QDesktopServices.setUrlHandler("https", opened, "record")
    try:
        start(view, ["sh", "-c", "echo see https://example.com/docs now; exec sleep 60"], tmp_path)
        wait_for_screen(qtbot, view, "now")
        display = view.terminal.focusProxy()
        cell_width = display.fontMetrics().horizontalAdvance("M")
        line_height = display.fontMetrics().height()
        inside_url = QPoint(view.terminal.getMargin() + cell_width * 10, view.terminal.getMargin() + line_height // 2)

        def click(modifier: Qt.KeyboardModifier) -> list[QUrl]:
            qtbot.mouseClick(display, Qt.MouseButton.LeftButton, modifier, inside_url)
            return opened.urls

        # The widget finds links a moment after the text is drawn: click until it has.
        qtbot.waitUntil(lambda: bool(click(Qt.KeyboardModifier.ControlModifier)), timeout=WAIT_MS)
        assert opened.urls == [QUrl("https://example.com/docs")]
        click(Qt.KeyboardModifier.NoModifier)
        assert len(opened.urls) == 1
    finally:
        QDesktopServices.unsetUrlHandler("https")


def test_readback_leaves_the_users_selection_alone(qtbot: QtBot, tmp_path: Path) -> None:
    parked = TerminalView(TerminalAppearance())
    qtbot.addWidget(parked)
    parked.set_grid_size(40, 6)
    script = "printf 'first row\\n0123456789012345678901234567890123456789|中文|wrapped\\nlast\\n'; exec sleep 60"
    start(parked, ["sh", "-c", script], tmp_path)
    untouched = wait_for_screen(qtbot, parked, "last")
    assert untouched.split("\n") == ["first row", "0123456789012345678901234567890123456789", "|中文|wrapped", "last", "", ""]
    parked.terminal.setSelectionStart(0, 0)  # as the user's mouse would
    parked.terminal.setSelectionEnd(0, 4)
    assert parked.screen_text() == untouched
    assert parked.terminal.selectedText(False) == "first"
    os.kill(parked.terminal.getShellPID(), 9)
    qtbot.waitUntil(parked.has_exited, timeout=WAIT_MS)


def test_the_terminal_font_is_never_proportional(qtbot: QtBot) -> None:
    chosen = TerminalAppearance(font_family="DejaVu Sans Mono", point_size=13).font()
    assert (chosen.family(), chosen.pointSize()) == ("DejaVu Sans Mono", 13)
    for unusable in ("DejaVu Sans", "No Such Font Family", None):
        font = TerminalAppearance(font_family=unusable).font()
        assert QFontInfo(font).fixedPitch(), unusable


def test_settings_give_the_scheme_font_and_scrollback() -> None:
    settings = Settings(
        color_scheme=ColorScheme.LIGHT,
        terminal_font=TerminalFontSetting(family="DejaVu Sans Mono", point_size=13),
        scrollback_lines=2500,
    )
    assert TerminalAppearance.from_settings(settings) == TerminalAppearance(
        font_family="DejaVu Sans Mono", point_size=13, scheme=LIGHT_SCHEME, history_lines=2500
    )
    assert TerminalAppearance.from_settings(Settings()).scheme == DARK_SCHEME


def test_both_schemes_are_installed_and_readable(qtbot: QtBot) -> None:
    register_color_schemes()
    assert {DARK_SCHEME, LIGHT_SCHEME} <= set(QTermWidget.availableColorSchemes())
    dark, light = scheme_colors(DARK_SCHEME), scheme_colors(LIGHT_SCHEME)
    assert (dark.background, light.background) == ((0x16, 0x18, 0x1D), (0xFF, 0xFF, 0xFF))
    assert len(dark.palette) == len(light.palette) == 16


class EventCounter(QObject):
    def __init__(self, watched: QObject, kind: QEvent.Type) -> None:
        super().__init__(watched)
        self.kind = kind
        self.count = 0
        watched.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == self.kind:
            self.count += 1
        return False


class UrlRecorder(QObject):
    def __init__(self) -> None:
        super().__init__()
        self.urls: list[QUrl] = []

    @Slot(QUrl)
    def record(self, url: QUrl) -> None:
        self.urls.append(url)



def test_the_text_keeps_a_margin_from_the_cells_edge(view: TerminalView, qtbot: QtBot, tmp_path: Path) -> None:
    # A reverse-video block at the top left corner: its first pixels are where the text starts.
    block = "import time; print('\\x1b[?25l\\x1b[7mXXXX\\x1b[0m'); time.sleep(30)"
    start(view, [sys.executable, "-c", block], tmp_path)
    wait_for_screen(qtbot, view, "XXXX")
    background = scheme_colors(DARK_SCHEME).background_color()

    def first_text_pixel() -> tuple[int, int] | None:
        image = view.terminal.grab().toImage()
        for offset in range(3 * TEXT_MARGIN):
            if image.pixelColor(offset, offset) != background:
                return offset, offset
        return None

    qtbot.waitUntil(lambda: first_text_pixel() is not None, timeout=WAIT_MS)
    assert first_text_pixel() == (TEXT_MARGIN, TEXT_MARGIN)


def test_a_view_moved_out_of_a_window_that_listed_it_outlives_that_window(qtbot: QtBot, tmp_path: Path) -> None:
    # A cell's view is parked or moved to another window; the window it left had listed its widgets
    # (`findChildren`, as tests and tools do) and is then closed. PySide then drops the Python objects of the
    # widget's inner parts that it had tied to that window: the view must not hold on to them.
    window = QWidget()
    view = TerminalView(TerminalAppearance(), window)
    window.show()
    start(view, ["sh", "-c", "read line; exit 3"], tmp_path)
    window.findChildren(QWidget)
    lot = QWidget()
    view.setParent(lot)
    shiboken6.delete(window)
    lot.show()
    qtbot.waitUntil(view.isVisible, timeout=WAIT_MS)
    with qtbot.waitSignal(view.exited, timeout=WAIT_MS) as exited:
        view.terminal.sendText("\r")
    assert exited.args == [3]
    assert view.display.isVisible()  # the last screen stays shown
    view.toggle_find()
    search_edit = view.terminal.findChild(QLineEdit, "searchTextEdit")
    assert search_edit is not None and search_edit.isVisible()
    shiboken6.delete(lot)
