"""Help ▸ Add IdeA to the applications menu / Remove IdeA from the applications menu.

The rules (where the entry goes, whose it is, when it may be written) live in
`idea.infrastructure.desktop_menu`; this module only shows them.
"""

from __future__ import annotations

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu, QMessageBox, QWidget

from idea.application.ports import Diagnostics
from idea.infrastructure.desktop_menu import DesktopMenu, MenuState
from idea.infrastructure.resources import resources_dir

ADD_TEXT = "Add IdeA to the applications menu"
REMOVE_TEXT = "Remove IdeA from the applications menu"


def desktop_menu() -> DesktopMenu:
    return DesktopMenu.for_this_user(resources_dir())


def add_menu_entry_action(parent: QWidget, menu: QMenu) -> QAction:
    """The Help menu's action; its text and state follow the entry each time the menu opens."""
    action = QAction(ADD_TEXT, parent)
    menu.addAction(action)
    menu.setToolTipsVisible(True)
    menu.aboutToShow.connect(lambda: _refresh(action, desktop_menu()))
    action.triggered.connect(lambda _checked=False: _toggle(parent, desktop_menu()))
    _refresh(action, desktop_menu())
    return action


def _refresh(action: QAction, model: DesktopMenu) -> None:
    availability = model.availability()
    state = model.state()
    action.setText(REMOVE_TEXT if state is MenuState.CURRENT else ADD_TEXT)
    if not availability.possible:
        action.setEnabled(False)
        action.setToolTip(availability.reason)
    elif state is MenuState.FOREIGN:
        action.setEnabled(False)
        action.setToolTip(f"{model.entry_path} belongs to another installation of IdeA; IdeA leaves it alone.")
    else:
        action.setEnabled(True)
        action.setToolTip(f"Starts {model.executable()}" if state is not MenuState.CURRENT
                          else f"Removes {model.entry_path} and its icons")
    action.setStatusTip(action.toolTip())


def _toggle(parent: QWidget, model: DesktopMenu) -> None:
    try:
        if model.state() is MenuState.CURRENT:
            model.remove()
            QMessageBox.information(parent, "IdeA", "IdeA is no longer in your applications menu.")
            return
        model.add()
    except OSError as exc:
        QMessageBox.warning(parent, "IdeA", f"The applications menu entry could not be written: "
                                            f"{exc.strerror or exc}")
        return
    QMessageBox.information(
        parent,
        "IdeA",
        f"IdeA is in your applications menu; it starts {model.executable()}.\n\n"
        f"If you move that file, start it once from its new place and the entry follows. "
        f"Help ▸ {REMOVE_TEXT} takes it out again.",
    )


def refresh_at_start(diagnostics: Diagnostics) -> None:
    """Point IdeA's menu entry at this executable when the one it named is gone (a moved AppImage)."""
    model = desktop_menu()
    try:
        written = model.refresh_if_moved()
    except OSError as exc:
        diagnostics.beacon(f"[startup] applications menu entry not updated: {exc}")
        return
    if written:
        diagnostics.beacon(f"[startup] applications menu entry now starts {model.executable()}")
