"""The layout of the dialogs that show a list of records beside an editor for the one selected (Agents ▸
Profiles, Templates): the list with its buttons and a legend at the left, the editor with its message, Revert
and Save at the right, Close under both."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLayout,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QTreeWidget,
    QVBoxLayout,
    QWidget,
)

from idea.ui.widgets.labels import HintLabel


def record_list(headers: Sequence[str], stretch_column: int) -> QTreeWidget:
    """A flat list in columns: `stretch_column` takes the spare width, the others fit their contents."""
    records = QTreeWidget()
    records.setHeaderLabels(list(headers))
    records.setRootIsDecorated(False)
    records.setUniformRowHeights(True)
    records.setStyleSheet("QTreeWidget::item { padding: 4px 2px; }")
    header = records.header()
    header.setStretchLastSection(False)
    for column in range(len(headers)):
        mode = QHeaderView.ResizeMode.Stretch if column == stretch_column else QHeaderView.ResizeMode.ResizeToContents
        header.setSectionResizeMode(column, mode)
    return records


def editor_title() -> QLabel:
    """The line naming the record the editor shows."""
    title = QLabel()
    title.setStyleSheet("font-size: 15px; font-weight: 600;")
    return title


def pane(*parts: QWidget | QLayout, stretch: QWidget) -> QWidget:
    """One side of the dialog: `parts` in a column without margins, `stretch` taking the spare height."""
    side = QWidget()
    column = QVBoxLayout(side)
    column.setContentsMargins(0, 0, 0, 0)
    for part in parts:
        if isinstance(part, QLayout):
            column.addLayout(part)
        else:
            column.addWidget(part, 1 if part is stretch else 0)
    return side


def list_pane(records: QTreeWidget, buttons: Sequence[QPushButton], legend: QWidget) -> QWidget:
    """The list, its buttons in a row under it, and a legend."""
    row = QHBoxLayout()
    for button in buttons:
        row.addWidget(button)
    row.addStretch(1)
    return pane(records, row, legend, stretch=records)


def button(text: str, slot: Callable[[], object], tip: str | None = None) -> QPushButton:
    """A push button calling `slot` when clicked."""
    created = QPushButton(text)
    if tip:
        created.setToolTip(tip)
    created.clicked.connect(lambda _checked=False: slot())
    return created


def lay_out_list_side(side: QWidget, records: QTreeWidget, buttons: Sequence[QPushButton], legend: str) -> None:
    """Fill `side` with the list, its buttons in a row under it, and a legend."""
    column = QVBoxLayout(side)
    column.setContentsMargins(0, 0, 0, 0)
    column.addWidget(list_pane(records, buttons, HintLabel(legend)))


def save_row(message: HintLabel, revert: QPushButton, save: QPushButton) -> QHBoxLayout:
    """The editor's last line: a message at the left, Revert and Save at the right."""
    keep_place = message.sizePolicy()
    keep_place.setRetainSizeWhenHidden(True)  # the buttons stay at the right when there is no message
    message.setSizePolicy(keep_place)
    for button in (revert, save):
        button.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
    row = QHBoxLayout()
    row.addWidget(message, 1)
    row.addWidget(revert)
    row.addWidget(save)
    return row


def close_buttons(dialog: QDialog) -> QDialogButtonBox:
    """The dialog's Close button, in a box where a dialog may add its own buttons before `split_dialog`."""
    buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
    buttons.rejected.connect(dialog.close)
    return buttons


def split_dialog(
    dialog: QDialog, list_side: QWidget, editor_side: QWidget, widths: Sequence[int], buttons: QDialogButtonBox
) -> None:
    """Lay `dialog` out as the list beside the editor, over `buttons`."""
    splitter = QSplitter(Qt.Orientation.Horizontal)
    splitter.addWidget(list_side)
    splitter.addWidget(editor_side)
    splitter.setChildrenCollapsible(False)
    splitter.setSizes(list(widths))
    column = QVBoxLayout(dialog)
    column.addWidget(splitter, 1)
    column.addWidget(buttons)
