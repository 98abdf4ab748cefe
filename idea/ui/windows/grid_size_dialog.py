"""Rows × columns for a grid of cells: two spin boxes bounded by what a layout allows, and a small picture of
the grid they make, so no size can be typed wrong."""

from __future__ import annotations

from PySide6.QtCore import QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QHBoxLayout, QLabel, QSpinBox, QVBoxLayout, QWidget

from idea.domain import layout as lay
from idea.domain.wording import counted
from idea.ui.theme import palette_colors
from idea.ui.widgets.labels import label_for


class GridPreview(QWidget):
    """The grid as boxes; with `first_keeps`, the first cell (where what the cell shows now goes) in the accent
    colour."""

    def __init__(self, first_keeps: bool, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.rows, self.cols = 1, 1
        self._first_keeps = first_keeps
        self.setMinimumSize(QSize(180, 120))

    def show_size(self, rows: int, cols: int) -> None:
        self.rows, self.cols = rows, cols
        self.update()

    def paintEvent(self, _event: QPaintEvent) -> None:
        c = palette_colors(self)
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        width, height = (self.width() - 1) / self.cols, (self.height() - 1) / self.rows
        for row in range(self.rows):
            for col in range(self.cols):
                first = self._first_keeps and row == 0 and col == 0
                painter.setPen(Qt.PenStyle.NoPen)
                painter.setBrush(QColor(c.header_active if first else c.header))
                box = QRectF(col * width + 0.5, row * height + 0.5, width, height).adjusted(1.5, 1.5, -1.5, -1.5)
                painter.drawRoundedRect(box, 2, 2)
                painter.setPen(QPen(QColor(c.accent if first else c.control_edge), 1))
                painter.setBrush(Qt.BrushStyle.NoBrush)
                painter.drawRoundedRect(box, 2, 2)
        painter.end()


class GridSizeDialog(QDialog):
    """`chosen` carries (rows, columns) when the person accepts."""

    chosen = Signal(int, int)

    def __init__(
        self,
        title: str,
        explanation: str,
        size: tuple[int, int],
        first_keeps: bool,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.resize(360, 330)
        self.rows_box, self.cols_box = self._count(size[0]), self._count(size[1])
        self.preview = GridPreview(first_keeps)
        sizes = QHBoxLayout()
        for text, box in (("Rows", self.rows_box), ("Columns", self.cols_box)):
            sizes.addWidget(label_for(text, box))
            sizes.addWidget(box)
            sizes.addSpacing(12)
        sizes.addStretch(1)
        self.summary = QLabel()
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        hint = QLabel(explanation)
        hint.setWordWrap(True)
        column = QVBoxLayout(self)
        column.addWidget(hint)
        column.addLayout(sizes)
        column.addWidget(self.preview, 1)
        column.addWidget(self.summary)
        column.addWidget(buttons)
        for box in (self.rows_box, self.cols_box):
            box.valueChanged.connect(lambda _value: self._show())
        self._show()
        self.accepted.connect(lambda: self.chosen.emit(*self.size()))

    @staticmethod
    def _count(value: int) -> QSpinBox:
        box = QSpinBox()
        box.setRange(1, lay.MAX_COUNT)
        box.setValue(max(1, min(value, lay.MAX_COUNT)))
        return box

    def size(self) -> tuple[int, int]:
        return self.rows_box.value(), self.cols_box.value()

    def _show(self) -> None:
        rows, cols = self.size()
        self.preview.show_size(rows, cols)
        self.summary.setText(counted(rows * cols, "cell"))
