"""Folders dropped on a window (from a file manager) open as projects in it.

A terminal cell keeps its own drops (it types the dropped paths, as terminals do); everywhere else in the
window — the welcome page, the tab bar, the docks, the status bar — a dropped folder opens as a project, and a
drop with no folder in it is refused (the cursor says so)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QEvent, QMimeData, QObject
from PySide6.QtGui import QDragEnterEvent, QDragMoveEvent, QDropEvent
from PySide6.QtWidgets import QWidget


def dropped_folders(mime: QMimeData) -> list[str]:
    """The local folders among the dropped URLs, in order (files and remote URLs are left out)."""
    folders = []
    for url in mime.urls():
        if url.isLocalFile() and Path(url.toLocalFile()).is_dir():
            folders.append(str(Path(url.toLocalFile())))
    return folders


class FolderDrops(QObject):
    def __init__(self, window: QWidget, open_folder: Callable[[str], None]) -> None:
        super().__init__(window)
        self._open_folder = open_folder
        window.setAcceptDrops(True)
        window.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if isinstance(event, (QDragEnterEvent, QDragMoveEvent)):
            if dropped_folders(event.mimeData()):
                event.acceptProposedAction()
            else:
                event.ignore()
            return True
        if isinstance(event, QDropEvent):
            folders = dropped_folders(event.mimeData())
            if folders:
                event.acceptProposedAction()
                for folder in folders:
                    self._open_folder(folder)
            return True
        return False
