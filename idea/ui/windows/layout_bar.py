"""The bar above a project's grid: which named layout is shown, the gestures on named layouts (new,
duplicate, rename, delete, switch — each one use case of the project runtime), and the grid-wide buttons."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QComboBox, QFrame, QHBoxLayout, QInputDialog, QMessageBox, QPushButton, QWidget

from idea.application.projects import ProjectRuntime
from idea.domain import layout as lay
from idea.ui.core_client import CoreClient
from idea.ui.icons import set_icon
from idea.ui.widgets.labels import label_for


class LayoutBar(QFrame):
    def __init__(
        self,
        runtime: ProjectRuntime,
        client: CoreClient,
        make_grid: Callable[[], None],
        equalize: Callable[[], None],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("LayoutBar")
        self._runtime = runtime
        self._client = client
        self._document = runtime.document
        row = QHBoxLayout(self)
        row.setContentsMargins(6, 3, 6, 3)
        row.setSpacing(4)
        self.layout_picker = QComboBox()
        row.addWidget(label_for("Layout", self.layout_picker))
        self.layout_picker.setMinimumWidth(160)
        self.layout_picker.activated.connect(lambda index: self.activate_layout(self.layout_picker.itemData(index)))
        row.addWidget(self.layout_picker)
        for text, tip, slot in (
            ("New", "Create a new layout", self.create_layout),
            ("Duplicate", "Duplicate this layout", self.duplicate_layout),
            ("Rename", "Rename this layout", self.rename_layout),
            ("Delete", "Delete this layout (its terminals keep running)", self.delete_layout),
        ):
            button = QPushButton(text)
            button.setToolTip(tip)
            button.clicked.connect(slot)
            row.addWidget(button)
            if text == "Delete":
                self._delete_layout_button = button
        row.addStretch(1)
        grid = QPushButton("Grid…")
        set_icon(grid, "grid")
        grid.setToolTip("Turn the active cell into a grid of rows × columns")
        grid.clicked.connect(make_grid)
        row.addWidget(grid)
        equalize_button = QPushButton("Equalize")
        equalize_button.setToolTip("Give every cell of the layout the same size (Ctrl+Alt+=)")
        equalize_button.clicked.connect(equalize)
        row.addWidget(equalize_button)

    def show_document(self, document: lay.LayoutDocument) -> None:
        self._document = document
        picker = self.layout_picker
        names = [(layout.id, layout.name) for layout in document.layouts]
        if [picker.itemData(i) for i in range(picker.count())] != [i for i, _ in names] or [
            picker.itemText(i) for i in range(picker.count())
        ] != [n for _, n in names]:
            picker.blockSignals(True)
            picker.clear()
            for layout_id, name in names:
                picker.addItem(name, layout_id)
            picker.blockSignals(False)
        picker.setCurrentIndex(max(0, picker.findData(document.active_id)))
        self._delete_layout_button.setEnabled(len(names) > 1)

    # -- gestures on named layouts --

    def activate_layout(self, layout_id: str) -> None:
        self._client.call(self._runtime.layouts.activate(layout_id))

    def next_layout(self, step: int) -> None:
        """The layout `step` places after the active one (before it when negative), cycling."""
        document = self._runtime.document
        ids = [layout.id for layout in document.layouts]
        self.activate_layout(ids[(ids.index(document.active_id) + step) % len(ids)])

    def create_layout(self) -> None:
        name, ok = QInputDialog.getText(self, "New layout", "Name of the new layout:", text=self._free_name("Layout"))
        if ok:
            self._client.call(self._runtime.layouts.create(name))

    def duplicate_layout(self) -> None:
        active = self._document.active
        name, ok = QInputDialog.getText(
            self, "Duplicate layout", "Name of the copy:", text=self._free_name(f"{active.name} copy")
        )
        if ok:
            self._client.call(self._runtime.layouts.duplicate(active.id, name))

    def rename_layout(self) -> None:
        active = self._document.active
        name, ok = QInputDialog.getText(self, "Rename layout", "New name:", text=active.name)
        if ok and name != active.name:
            self._client.call(self._runtime.layouts.rename(active.id, name))

    def delete_layout(self) -> None:
        active = self._document.active
        answer = QMessageBox.question(
            self,
            "Delete layout",
            f"Delete the layout “{active.name}”? Terminals it shows keep running in the background.",
        )
        if answer == QMessageBox.StandardButton.Yes:
            self._client.call(self._runtime.layouts.delete(active.id))

    def _free_name(self, base: str) -> str:
        taken = {layout.name.casefold() for layout in self._document.layouts}
        if base.casefold() not in taken:
            return base
        number = 2
        while f"{base} {number}".casefold() in taken:
            number += 1
        return f"{base} {number}"
