"""Words over a list while it has no row: what would be listed there and how it gets there, in the muted
colour, instead of an empty box."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QAbstractItemView, QLabel

MARGIN = 12


class EmptyHint(QLabel):
    def __init__(self, view: QAbstractItemView, text: str) -> None:
        super().__init__(text, view.viewport())
        self._view = view
        self.setWordWrap(True)
        self.setAlignment(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop)
        self.setEnabled(False)  # in the muted colour
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        model = view.model()
        for changed in (model.rowsInserted, model.rowsRemoved, model.modelReset):
            changed.connect(self._refresh)
        view.viewport().installEventFilter(self)
        self._refresh()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize:
            self._place()
        return False

    def _place(self) -> None:
        self.setGeometry(self._view.viewport().rect().adjusted(MARGIN, MARGIN, -MARGIN, -MARGIN))

    def _refresh(self) -> None:
        self._place()
        self.setVisible(self._view.model().rowCount() == 0)
