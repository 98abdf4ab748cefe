"""Help ▸ Keyboard shortcuts lists the keys the window's own actions answer, the terminal cells' and the
conversation viewer's, and filters them."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence

from idea.ui.terminal.font_zoom import TERMINAL_SHORTCUTS, FontZoom, cell_shortcuts
from idea.ui.windows.shortcuts_dialog import AGENTS_PANEL_GROUP, TERMINAL_GROUP, VIEWER_GROUP, ShortcutsDialog
from tests.ui.gui_support import Gui


def open_shortcuts(gui: Gui) -> ShortcutsDialog:
    window = gui.windows[0]
    [help_menu] = [a.menu() for a in window.menuBar().actions() if a.text() == "&Help"]
    [action] = [a for a in help_menu.actions() if a.text() == "Keyboard shortcuts"]
    action.trigger()
    [dialog] = [d for d in window.findChildren(ShortcutsDialog) if d.isVisible()]
    return dialog


def native(keys: str) -> str:
    return QKeySequence(keys).toString(QKeySequence.SequenceFormat.NativeText)


def test_the_list_is_read_from_the_actions_and_filters(gui_factory) -> None:
    gui = gui_factory()
    gui.restore([])
    window = gui.windows[0]
    dialog = open_shortcuts(gui)
    rows = dialog.shown_rows()
    groups = [group for group, _action, _keys in rows]
    assert list(dict.fromkeys(groups))[:2] == ["File", "Cell"]
    assert {AGENTS_PANEL_GROUP, TERMINAL_GROUP, VIEWER_GROUP} <= set(groups)
    assert ("File", "Settings", native("Ctrl+Alt+S")) in rows
    assert ("Cell", "Close cell", native("Ctrl+Shift+W")) in rows
    assert (AGENTS_PANEL_GROUP, "Rename", native("F2")) in rows
    assert (VIEWER_GROUP, "Back to the grid", native("Esc")) in rows
    assert [(keys, action) for group, action, keys in rows if group == TERMINAL_GROUP] == [
        (native(keys), text) for keys, text in TERMINAL_SHORTCUTS
    ]
    # Every shortcut of the window's actions is listed, with the keys it really has.
    listed = {keys for _group, _action, keys in rows}
    for action in window.findChildren(type(window.menuBar().actions()[0])):
        if not action.shortcut().isEmpty() and action.isVisible():
            assert action.shortcut().toString(QKeySequence.SequenceFormat.NativeText) in listed, action.text()

    dialog.filter.setText("font")
    assert [action for _group, action, _keys in dialog.shown_rows()] == ["Font bigger", "Font smaller", "Font size as set"]
    assert dialog.nothing.isHidden()
    dialog.filter.setText(native("Ctrl+Alt+G"))
    assert [action for _group, action, _keys in dialog.shown_rows()] == ["Git panel"]
    dialog.filter.setText("no such key")
    assert dialog.shown_rows() == [] and not dialog.nothing.isHidden()

    assert open_shortcuts(gui) is dialog  # asked again: the open one
    dialog.close()
    gui.qtbot.waitUntil(lambda: not window.findChildren(ShortcutsDialog))
    assert open_shortcuts(gui) is not dialog


def test_every_terminal_key_listed_is_one_the_cells_answer() -> None:
    answered = cell_shortcuts(lambda: None, lambda: None, lambda: None, FontZoom(lambda: None, lambda _f: None))  # type: ignore[arg-type, return-value]
    listed = {QKeySequence(keys)[0].key() for keys, _text in TERMINAL_SHORTCUTS}
    # Each listed key is answered; the others the cells answer are the same key shifted (+ and =, _ and -, ) and 0).
    assert listed <= {Qt.Key(key) for key in answered}
    assert len(listed) == 6 and len(answered) == 9
