"""File ▸ Settings: the form opens on the saved settings, saves what changed on OK, restyles the
open terminals and the theme, and changes nothing on Cancel."""

from __future__ import annotations

import json
from pathlib import Path

from PySide6.QtGui import QFontDatabase

from idea.domain.workspace import ColorScheme, NewCellContent, Settings, TerminalFontSetting
from idea.ui.windows.settings_dialog import SettingsDialog
from tests.ui.gui_support import Gui


def open_settings(gui: Gui) -> SettingsDialog:
    window = gui.windows[0]
    [file_menu] = [a.menu() for a in window.menuBar().actions() if a.text() == "&File"]
    [action] = [a for a in file_menu.actions() if a.text() == "Settings…"]
    assert action.shortcut().toString() == "Ctrl+Alt+S"
    action.trigger()
    [dialog] = [d for d in window.findChildren(SettingsDialog) if d.isVisible()]
    return dialog


def test_settings_open_on_what_is_saved_and_cancel_changes_nothing(gui_factory, isolated_data_dir: Path) -> None:
    gui = gui_factory()
    gui.restore([])
    dialog = open_settings(gui)
    settings = gui.session.app.preferences.settings
    assert dialog.theme.currentData() == settings.color_scheme
    assert dialog.font_family.currentData() is None and dialog.font_size.value() == settings.terminal_font.point_size
    assert dialog.scrollback.value() == settings.scrollback_lines
    assert dialog.new_cell.currentData() == NewCellContent.SHELL
    assert dialog.changes() == {}  # opening it changes nothing
    for index in range(1, dialog.font_family.count()):  # the terminal font is never proportional
        assert QFontDatabase.isFixedPitch(dialog.font_family.itemData(index))

    assert gui.session.windows.settings.open_dialog(gui.windows[0]) is dialog  # asked again: the same form
    before = (isolated_data_dir / "settings.json").read_text(encoding="utf-8")
    dialog.font_size.setValue(20)
    dialog.reject()
    assert gui.session.app.preferences.settings == settings
    assert (isolated_data_dir / "settings.json").read_text(encoding="utf-8") == before
    assert open_settings(gui) is not dialog  # closed, it opens anew on what is saved


def test_ok_saves_what_changed_and_the_open_terminals_follow(gui_factory, tmp_path: Path, isolated_data_dir: Path) -> None:
    gui = gui_factory()
    _, tab = gui.open_new_project(tmp_path)
    [cell] = gui.wait_for_shells(tab, 1)
    dialog = open_settings(gui)

    dialog.theme.setCurrentIndex(dialog.theme.findData(ColorScheme.LIGHT))
    dialog.font_size.setValue(14)
    dialog.scrollback.setValue(2000)
    dialog.new_cell.setCurrentIndex(dialog.new_cell.findData(NewCellContent.EMPTY))
    dialog.trust_run_dirs.setChecked(True)
    dialog.notifications["humanNet"].setChecked(False)
    dialog.accept()

    settings = gui.session.app.preferences.settings
    assert settings.color_scheme is ColorScheme.LIGHT
    assert settings.terminal_font == TerminalFontSetting(family=None, point_size=14)
    assert settings.scrollback_lines == 2000 and settings.new_cell_content is NewCellContent.EMPTY
    assert settings.trust_run_dirs_automatically and settings.desktop_notifications == ("attention", "usageLimit")
    saved = json.loads((isolated_data_dir / "settings.json").read_text(encoding="utf-8"))
    assert saved["terminalFont"] == {"pointSize": 14} and saved["scrollbackLines"] == 2000
    assert saved["newCellContent"] == "empty" and saved["colorScheme"] == "light"

    assert cell.view.appearance.point_size == 14 and cell.view.appearance.history_lines == 2000
    assert cell.view.terminal.getTerminalFont().pointSize() == 14
    assert gui.windows[0].palette().window().color().lightness() > 200
    # The menus' shortcuts to the same settings read them back.
    [agents_menu] = [a.menu() for a in gui.windows[0].menuBar().actions() if a.text() == "&Agents"]
    agents_menu.aboutToShow.emit()
    [trust] = [a for a in agents_menu.actions() if a.text().startswith("Trust agents")]
    assert trust.isChecked()


def test_a_font_no_longer_installed_stays_chosen_until_another_is(qtbot) -> None:  # noqa: ANN001
    settings = Settings(terminal_font=TerminalFontSetting(family="Gone Mono", point_size=12))
    dialog = SettingsDialog(settings)
    qtbot.addWidget(dialog)

    assert dialog.font_family.currentText() == "Gone Mono (not installed)"
    assert dialog.changes() == {}
    dialog.font_family.setCurrentIndex(0)  # the system's monospace
    assert dialog.changes() == {"terminal_font": TerminalFontSetting(family=None, point_size=12)}
