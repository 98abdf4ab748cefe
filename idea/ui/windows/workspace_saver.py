"""The arrangement of windows and tabs in workspace.json: saved a moment after it changes (one save for a
burst of changes), with the tabs restored from the last run that are still opening."""

from __future__ import annotations

import base64
from collections.abc import Callable

from PySide6.QtCore import QByteArray

from idea.application.preferences import Preferences
from idea.domain.workspace import WindowState, Workspace
from idea.ui.windows.main_window import MainWindow
from idea.ui.widgets.timers import single_shot_timer

WORKSPACE_SAVE_DELAY_MS = 1000


class WorkspaceSaver:
    def __init__(
        self, preferences: Preferences, windows: Callable[[], list[MainWindow]], stopped: Callable[[], bool]
    ) -> None:
        self._preferences = preferences
        self._windows = windows
        self._stopped = stopped  # quitting: the workspace was saved as the person left it
        self._timer = single_shot_timer(None, WORKSPACE_SAVE_DELAY_MS, self.save)
        # Restored tabs whose project is still opening, by window id: saved with the workspace meanwhile, so
        # quitting during the start-up loses none.
        self._opening: dict[str, list[str]] = {}

    def changed(self) -> None:
        if not self._stopped():
            self._timer.start()

    def opening(self, window_id: str, project_id: str) -> None:
        self._opening.setdefault(window_id, []).append(project_id)

    def settled(self, window_id: str, project_id: str) -> None:
        if project_id in self._opening.get(window_id, []):
            self._opening[window_id].remove(project_id)

    def save(self) -> None:
        self._timer.stop()
        windows = tuple(
            WindowState(
                id=window.window_id,
                geometry=_encode(window.saveGeometry()),
                state=_encode(window.saveState()),
                tabs=(*window.project_ids(), *self._still_opening(window)),
                active_tab=window.current_tab().project_id if window.current_tab() else None,
            )
            for window in self._windows()
        )
        self._preferences.save_workspace(Workspace(windows=windows))

    def _still_opening(self, window: MainWindow) -> list[str]:
        shown = window.project_ids()
        return [tab for tab in self._opening.get(window.window_id, []) if tab not in shown]


def restore_window_state(window: MainWindow, state: WindowState) -> None:
    if state.geometry:
        window.restoreGeometry(_decode(state.geometry))
    if state.state:
        window.restoreState(_decode(state.state))


def _encode(data: QByteArray) -> str:
    return base64.b64encode(bytes(data.data())).decode("ascii")


def _decode(text: str) -> QByteArray:
    try:
        return QByteArray(base64.b64decode(text))
    except ValueError:
        return QByteArray()
