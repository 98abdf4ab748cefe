"""File ▸ Settings: what settings.json holds that a person would change — the theme, the terminals' font and
scrollback, what a new cell starts, the trust of agents' run folders, the desktop notifications — in one
form. `chosen` carries only what changed; nothing is saved on Cancel. `SettingsControl` is every gesture that
changes a setting (this dialog and the menus' shortcuts to some of them): one save each, then what follows the
settings is told."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont, QFontDatabase, QFontInfo
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from idea.application.preferences import Preferences
from idea.domain.workspace import ColorScheme, NewCellContent, Settings, TerminalFontSetting
from idea.ui.terminal.appearance import MIN_POINT_SIZE, monospace_family
from idea.ui.widgets.labels import label_for

MAX_POINT_SIZE = 48
MAX_SCROLLBACK_LINES = 1_000_000
DESKTOP_NOTIFICATION_KINDS = (
    ("attention", "When an agent needs you"),
    ("usageLimit", "When an agent hits its usage limit or is resumed"),
    ("humanNet", "When IdeA cannot tell when to resume an agent"),
)
TRUST_RUN_DIRS = "Trust agents' run folders automatically"
TRUST_RUN_DIRS_TIP = (
    "Record each agent's private run folder as trusted in your Claude and Gemini settings, so an agent started "
    "in the background does not wait at a trust question nobody sees."
)
LOOK = frozenset({"color_scheme", "terminal_font", "scrollback_lines"})  # what the theme and terminals follow


class SettingsControl:
    def __init__(self, preferences: Preferences, look_changed: Callable[[], None]) -> None:
        self._preferences = preferences
        self._look_changed = look_changed  # the theme and every terminal restyled from the settings
        self.settings_changed: Callable[[], None] = lambda: None  # told after every change (the desktop alerts)
        self._dialog: SettingsDialog | None = None

    @property
    def settings(self) -> Settings:
        return self._preferences.settings

    def change(self, **changes: Any) -> None:
        if not changes:
            return
        self._preferences.update_settings(**changes)
        if LOOK & changes.keys():
            self._look_changed()
        self.settings_changed()

    def set_color_scheme(self, scheme: str) -> None:
        self.change(color_scheme=ColorScheme(scheme))

    def set_desktop_notification(self, kind: str, on: bool) -> None:
        kinds = [k for k in self.settings.desktop_notifications if k != kind] + ([kind] if on else [])
        self.change(desktop_notifications=tuple(kinds))

    def set_trust_run_dirs(self, enabled: bool) -> None:
        self.change(trust_run_dirs_automatically=enabled)

    def open_dialog(self, parent: QWidget) -> SettingsDialog:
        """The Settings dialog, brought to the front if it is open already (one form, one truth)."""
        if self._dialog is not None:
            self._dialog.raise_()
            self._dialog.activateWindow()
            return self._dialog
        dialog = SettingsDialog(self.settings, parent)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.chosen.connect(lambda changes: self.change(**changes))
        dialog.finished.connect(lambda _result: setattr(self, "_dialog", None))
        self._dialog = dialog
        dialog.open()
        return dialog


class SettingsDialog(QDialog):
    chosen = Signal(object)  # a dict: Settings field names to their new values, only those that changed

    def __init__(self, settings: Settings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Settings")
        self._settings = settings

        self.theme = QComboBox()
        for scheme, text in ((ColorScheme.DARK, "Dark"), (ColorScheme.LIGHT, "Light")):
            self.theme.addItem(text, scheme)
        self.theme.setCurrentIndex(self.theme.findData(settings.color_scheme))
        self.font_family = font_choice(settings.terminal_font.family)
        self.font_size = QSpinBox()
        self.font_size.setRange(MIN_POINT_SIZE, MAX_POINT_SIZE)
        self.font_size.setSuffix(" pt")
        self.font_size.setValue(settings.terminal_font.point_size)
        self.font_size.setAccessibleName("Terminal font size")
        font_row = QHBoxLayout()
        font_row.addWidget(self.font_family, 1)
        font_row.addWidget(self.font_size)
        self.scrollback = QSpinBox()
        self.scrollback.setRange(0, MAX_SCROLLBACK_LINES)
        self.scrollback.setSingleStep(1000)
        self.scrollback.setGroupSeparatorShown(True)
        self.scrollback.setSuffix(" lines")
        self.scrollback.setValue(settings.scrollback_lines)
        self.scrollback.setToolTip("How much of a terminal's past output it keeps to scroll back and search")
        self.new_cell = QComboBox()
        self.new_cell.addItem("A shell in the project folder", NewCellContent.SHELL)
        self.new_cell.addItem("Nothing: I choose what runs in it", NewCellContent.EMPTY)
        self.new_cell.setCurrentIndex(self.new_cell.findData(settings.new_cell_content))
        look = QFormLayout()
        look.addRow("Theme", self.theme)
        look.addRow(label_for("Terminal font", self.font_family), font_row)
        look.addRow("Scrollback", self.scrollback)
        look.addRow("A new cell starts", self.new_cell)

        self.trust_run_dirs = QCheckBox(TRUST_RUN_DIRS)
        self.trust_run_dirs.setToolTip(TRUST_RUN_DIRS_TIP)
        self.trust_run_dirs.setChecked(settings.trust_run_dirs_automatically)
        agents = QGroupBox("Agents")
        QVBoxLayout(agents).addWidget(self.trust_run_dirs)

        self.notifications: dict[str, QCheckBox] = {}
        notifications = QGroupBox("Desktop notifications, while IdeA's window is not the active one")
        column = QVBoxLayout(notifications)
        for kind, text in DESKTOP_NOTIFICATION_KINDS:
            box = QCheckBox(text)
            box.setChecked(kind in settings.desktop_notifications)
            column.addWidget(box)
            self.notifications[kind] = box

        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(look)
        layout.addWidget(agents)
        layout.addWidget(notifications)
        layout.addStretch(1)
        layout.addWidget(buttons)

    def changes(self) -> dict[str, Any]:
        """What the form says that differs from the settings it was opened with."""
        chosen: dict[str, Any] = {
            "color_scheme": ColorScheme(self.theme.currentData()),  # Qt hands the enum back as its string
            "terminal_font": TerminalFontSetting(
                family=self.font_family.currentData(), point_size=self.font_size.value()
            ),
            "scrollback_lines": self.scrollback.value(),
            "new_cell_content": NewCellContent(self.new_cell.currentData()),
            "trust_run_dirs_automatically": self.trust_run_dirs.isChecked(),
            "desktop_notifications": tuple(kind for kind, box in self.notifications.items() if box.isChecked()),
        }
        return {name: value for name, value in chosen.items() if getattr(self._settings, name) != value}

    def accept(self) -> None:
        changes = self.changes()
        super().accept()
        if changes:
            self.chosen.emit(changes)


def font_choice(current: str | None) -> QComboBox:
    """The fixed-width families installed, after the system's own (None); a family chosen before and no longer
    installed stays listed as such, so opening the dialog changes nothing by itself."""
    combo = QComboBox()
    system = QFontInfo(QFont(monospace_family(None))).family()  # "monospace" is an alias: name what it gives
    combo.addItem(f"System monospace ({system})", None)
    for family in QFontDatabase.families():
        if QFontDatabase.isFixedPitch(family) and not QFontDatabase.isPrivateFamily(family):
            combo.addItem(family, family)
            combo.setItemData(combo.count() - 1, QFont(family), Qt.ItemDataRole.FontRole)  # shown in itself
    index = combo.findData(current)
    if index < 0:
        combo.addItem(f"{current} (not installed)", current)
        index = combo.count() - 1
    combo.setCurrentIndex(index)
    return combo
