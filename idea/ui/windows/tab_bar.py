"""Project tabs that can be dragged out into a new window, or onto another window's tab bar."""

from __future__ import annotations

from typing import Protocol

from PySide6.QtCore import QMimeData, QPoint, Qt, Signal
from PySide6.QtGui import (
    QCursor,
    QDrag,
    QDragEnterEvent,
    QDragMoveEvent,
    QDropEvent,
    QMouseEvent,
)
from PySide6.QtWidgets import QApplication, QTabBar, QToolButton, QWidget

from idea.ui.icons import set_icon

TAB_MIME = "application/x-idea-project-tab"


class TabMoves(Protocol):
    def move_tab(self, project_id: str, target: QWidget | None, index: int, at: QPoint | None) -> None:
        """Move a project's tab into the window owning `target` (None: a new window at `at`)."""
        ...


class ProjectTabBar(QTabBar):
    """Within the bar a drag reorders tabs as usual; once the cursor leaves the bar the tab becomes a
    drag that another IdeA tab bar can accept, or that opens a new window where it is released."""

    contextMenuRequestedAt = Signal(int, QPoint)  # tab index, global position

    def __init__(self, moves: TabMoves, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._moves = moves
        self._press: QPoint | None = None
        self._press_index = -1
        self.setMovable(True)
        self.setTabsClosable(True)
        self.setAcceptDrops(True)
        self.setElideMode(Qt.TextElideMode.ElideRight)
        self.setUsesScrollButtons(True)
        self.setDocumentMode(True)
        self.setDrawBase(False)

    def tabInserted(self, index: int) -> None:
        # The style's close button is a saturated box; a flat icon fits the rest of the chrome.
        super().tabInserted(index)
        button = QToolButton(self)
        set_icon(button, "close")
        button.setAutoRaise(True)
        button.setToolTip("Close project")
        button.setAccessibleName("Close project")
        button.setFixedSize(18, 18)
        button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        button.clicked.connect(lambda: self._close_clicked(button))
        self.setTabButton(index, QTabBar.ButtonPosition.RightSide, button)

    def _close_clicked(self, button: QToolButton) -> None:
        for index in range(self.count()):
            if self.tabButton(index, QTabBar.ButtonPosition.RightSide) is button:
                self.tabCloseRequested.emit(index)
                return

    def project_id(self, index: int) -> str | None:
        data = self.tabData(index)
        return data if isinstance(data, str) else None

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            self._press = event.position().toPoint()
            self._press_index = self.tabAt(self._press)
        elif event.button() == Qt.MouseButton.RightButton:
            index = self.tabAt(event.position().toPoint())
            if index >= 0:
                self.contextMenuRequestedAt.emit(index, event.globalPosition().toPoint())
                return
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        position = event.position().toPoint()
        outside = not self.rect().adjusted(-8, -20, 8, 20).contains(position)
        dragged_far = self._press is not None and (
            (position - self._press).manhattanLength() >= QApplication.startDragDistance()
        )
        if self._press_index >= 0 and outside and dragged_far:
            index, self._press_index, self._press = self._press_index, -1, None
            # End the bar's own move animation before the tab leaves it.
            super().mouseReleaseEvent(event)
            self.drag_out(index)
            return
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        self._press, self._press_index = None, -1
        super().mouseReleaseEvent(event)

    def drag_out(self, index: int) -> None:
        project_id = self.project_id(index)
        if project_id is None:
            return
        drag = QDrag(self)
        mime = QMimeData()
        mime.setData(TAB_MIME, project_id.encode())
        drag.setMimeData(mime)
        pixmap = self.grab(self.tabRect(index))
        drag.setPixmap(pixmap)
        drag.setHotSpot(QPoint(pixmap.width() // 2, pixmap.height() // 2))
        if drag.exec(Qt.DropAction.MoveAction) == Qt.DropAction.IgnoreAction:
            # Released outside every IdeA tab bar: the tab becomes a window of its own there.
            self._moves.move_tab(project_id, None, 0, QCursor.pos())

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if event.mimeData().hasFormat(TAB_MIME):
            event.acceptProposedAction()

    def dragMoveEvent(self, event: QDragMoveEvent) -> None:
        if event.mimeData().hasFormat(TAB_MIME):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        if not event.mimeData().hasFormat(TAB_MIME):
            return
        project_id = bytes(event.mimeData().data(TAB_MIME).data()).decode()
        index = self.tabAt(event.position().toPoint())
        event.acceptProposedAction()
        self._moves.move_tab(project_id, self, index if index >= 0 else self.count(), None)
