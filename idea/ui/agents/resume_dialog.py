"""Reopening a project: the agents that were running when it was closed, offered for resume in one dialog
(never resumed automatically). Each resumes in its cell, or in the background when it had none."""

from __future__ import annotations

import html
from collections.abc import Callable

from PySide6.QtCore import Qt
from shiboken6 import isValid
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from idea.application.agents.runner import ResumeCandidate
from idea.application.projects import ProjectRuntime
from idea.domain import layout as lay
from idea.ui.core_client import CoreClient
from idea.ui.widgets.labels import HintLabel
from idea.ui.widgets.messages import show_error

CANDIDATE_ROLE = Qt.ItemDataRole.UserRole + 1


class ResumeDialog(QDialog):
    """Resume all, Resume selected (the unticked ones are not offered again), or Not now (none is)."""

    def __init__(
        self,
        client: CoreClient,
        runtime: ProjectRuntime,
        candidates: list[ResumeCandidate],
        parent: QWidget | None = None,
        leaving: Callable[[], bool] = lambda: False,
    ) -> None:
        """`leaving`: IdeA is quitting; the dialog then closes without an answer, so it is offered again."""
        super().__init__(parent)
        self._client = client
        self._runtime = runtime
        self._leaving = leaving
        self.candidates = candidates
        self.setWindowTitle(f"Resume agents — {runtime.name}")
        self.setMinimumWidth(460)
        count = len(candidates)
        intro = QLabel(
            f"<b>{count} agent{'s were' if count != 1 else ' was'} running</b> when "
            f"“{html.escape(runtime.name)}” was last closed. Resume {'them' if count != 1 else 'it'}?"
        )
        intro.setWordWrap(True)
        self.list = QListWidget()
        self.list.setStyleSheet("QListWidget::item { padding: 3px; }")
        cells = {leaf.id: number for number, leaf in enumerate(lay.leaves(runtime.active.root), start=1)}
        for candidate in candidates:
            where = f"cell {cells[candidate.node_id]}" if candidate.node_id in cells else "background"
            item = QListWidgetItem(f"{candidate.name}  —  {where}")
            item.setData(CANDIDATE_ROLE, candidate)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked)
            self.list.addItem(item)
        rows = min(max(count, 2), 8)
        self.list.setFixedHeight(self.list.sizeHintForRow(0) * rows + 2 * self.list.frameWidth() + 4)
        self.list.itemChanged.connect(lambda _item: self._update_buttons())
        self.status = HintLabel("Their conversations continue where they left off when the CLI supports it.")
        self.resume_all_button = QPushButton("Resume all")
        self.resume_selected_button = QPushButton("Resume selected")
        self.not_now_button = QPushButton("Not now")
        self.not_now_button.setToolTip("Do not resume them; this offer is not repeated")
        self.resume_all_button.setDefault(True)
        buttons = QHBoxLayout()
        buttons.addWidget(self.not_now_button)
        buttons.addStretch(1)
        buttons.addWidget(self.resume_selected_button)
        buttons.addWidget(self.resume_all_button)
        self.resume_all_button.clicked.connect(self.resume_all)
        self.resume_selected_button.clicked.connect(self.resume_selected)
        self.not_now_button.clicked.connect(self.not_now)
        column = QVBoxLayout(self)
        column.addWidget(intro)
        column.addWidget(self.list)
        column.addWidget(self.status)
        column.addLayout(buttons)
        self._update_buttons()
        self.resume_all_button.setFocus()

    def selected(self) -> list[ResumeCandidate]:
        return [
            self.list.item(i).data(CANDIDATE_ROLE)
            for i in range(self.list.count())
            if self.list.item(i).checkState() == Qt.CheckState.Checked
        ]

    def set_selected(self, agent_ids: set[str]) -> None:
        for i in range(self.list.count()):
            item = self.list.item(i)
            chosen = item.data(CANDIDATE_ROLE).agent_id in agent_ids
            item.setCheckState(Qt.CheckState.Checked if chosen else Qt.CheckState.Unchecked)

    def resume_all(self) -> None:
        self._resume(self.candidates)

    def resume_selected(self) -> None:
        self._resume(self.selected())

    def not_now(self) -> None:
        self._resume([])

    def reject(self) -> None:
        if self._leaving():  # quitting closes every window: that is no answer, the offer stays for next time
            super().reject()
            return
        # Escape or closing the window means "not now" as well: the user saw the offer and declined it.
        self.not_now()

    def _resume(self, chosen: list[ResumeCandidate]) -> None:
        chosen_ids = {candidate.agent_id for candidate in chosen}
        declined = [c.agent_id for c in self.candidates if c.agent_id not in chosen_ids]
        for button in (self.resume_all_button, self.resume_selected_button, self.not_now_button):
            button.setEnabled(False)
        if chosen:
            self.status.show_hint(f"Resuming {len(chosen)} agent{'s' if len(chosen) != 1 else ''}…")
        self._client.call(
            self._runtime.placement.resume(chosen, declined), on_done=self._finished, on_error=self._failed
        )

    def _finished(self, failures: list[str]) -> None:
        if not isValid(self):  # the window closed (IdeA quit) while the core was resuming
            return
        self.done(QDialog.DialogCode.Accepted)
        if failures:
            show_error(self.parentWidget() or self, "Some agents were not resumed", "\n".join(failures))

    def _failed(self, error: BaseException) -> None:
        if not isValid(self):
            return
        self.resume_all_button.setEnabled(True)
        self.not_now_button.setEnabled(True)
        self._update_buttons()
        show_error(self, "Resume failed", error)

    def _update_buttons(self) -> None:
        chosen = len(self.selected())
        self.resume_selected_button.setEnabled(chosen > 0)
        self.resume_selected_button.setText(f"Resume selected ({chosen})" if chosen else "Resume selected")


def offer_resume(
    client: CoreClient,
    runtime: ProjectRuntime,
    parent: QWidget,
    on_shown: Callable[[ResumeDialog], None] | None = None,
    leaving: Callable[[], bool] = lambda: False,
) -> None:
    """Ask the core which agents can be resumed and open the dialog only when there are some."""

    def show(candidates: list[ResumeCandidate]) -> None:
        if not candidates or leaving() or not isValid(parent):
            return
        dialog = ResumeDialog(client, runtime, candidates, parent, leaving)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.open()
        if on_shown is not None:
            on_shown(dialog)

    client.call(runtime.placement.resumable(), on_done=show, on_error=lambda error: show_error(parent, "Resume", error))
