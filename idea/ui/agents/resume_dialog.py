"""Reopening a project: the agents that were running when it was closed (in cells and in the background),
offered in one dialog, never resumed automatically. Each starts in its cell, or in the background when it
had none."""

from __future__ import annotations

import html
from collections.abc import Callable

from PySide6.QtCore import Qt
from shiboken6 import isValid
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from idea.application.projects import ProjectRuntime
from idea.domain import layout as lay
from idea.domain.agent_states.resume_offer import ResumeCandidate, ResumeChoice
from idea.domain.wording import capitalized, counted
from idea.infrastructure.agent_watching import format_local_time
from idea.ui.core_client import CoreClient
from idea.ui.widgets.labels import HintLabel
from idea.ui.widgets.messages import show_error

class ResumeDialog(QDialog):
    """One row per agent that was running, each with its choice — "Resume" (its own conversation when its
    CLI can resume it), "Start fresh", "Don't start" — then "Apply" or "Skip all" (spec 05 §11). Never
    applied without the person."""

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
        self.setMinimumWidth(560)
        count = len(candidates)
        intro = QLabel(
            f"<b>{count} agent{'s were' if count != 1 else ' was'} running</b> when "
            f"“{html.escape(runtime.name)}” was last closed. What should IdeA do with "
            f"{'them' if count != 1 else 'it'}?"
        )
        intro.setWordWrap(True)
        cells = {leaf.id: number for number, leaf in enumerate(lay.leaves(runtime.active.root), start=1)}
        self.rows = QGridLayout()
        self.rows.setColumnStretch(0, 1)
        self.choices: list[QComboBox] = []
        self.labels: list[QLabel] = []
        for index, candidate in enumerate(candidates):
            where = f"cell {cells[candidate.node_id]}" if candidate.node_id in cells else "background"
            label = QLabel(_row_text(candidate, where))
            label.setWordWrap(True)
            label.setToolTip(_row_tip(candidate))
            choice = QComboBox()
            for text, value in CHOICES:
                choice.addItem(text, value)
            choice.setItemData(0, capitalized(candidate.resume_meaning()), Qt.ItemDataRole.ToolTipRole)
            choice.setCurrentIndex(choice.findData(candidate.default_choice))
            label.setBuddy(choice)  # what a screen reader names the choice
            self.rows.addWidget(label, index, 0)
            self.rows.addWidget(choice, index, 1, Qt.AlignmentFlag.AlignTop)
            self.labels.append(label)
            self.choices.append(choice)
        self.status = HintLabel(
            "“Resume” continues each agent's own conversation when its CLI can; agents start one by one."
        )
        self.apply_button = QPushButton("Apply")
        self.skip_button = QPushButton("Skip all")
        self.skip_button.setToolTip("Start none of them; this offer is not repeated")
        self.apply_button.setDefault(True)
        buttons = QHBoxLayout()
        buttons.addWidget(self.skip_button)
        buttons.addStretch(1)
        buttons.addWidget(self.apply_button)
        self.apply_button.clicked.connect(self.apply)
        self.skip_button.clicked.connect(self.skip_all)
        column = QVBoxLayout(self)
        column.addWidget(intro)
        column.addLayout(self.rows)
        column.addWidget(self.status)
        column.addLayout(buttons)
        self.apply_button.setFocus()

    def chosen(self) -> list[tuple[ResumeCandidate, ResumeChoice]]:
        return [(candidate, box.currentData()) for candidate, box in zip(self.candidates, self.choices, strict=True)]

    def choose(self, agent_id: str, choice: ResumeChoice) -> None:
        for candidate, box in zip(self.candidates, self.choices, strict=True):
            if candidate.agent_id == agent_id:
                box.setCurrentIndex(box.findData(choice))

    def apply(self) -> None:
        self._run(self.chosen())

    def skip_all(self) -> None:
        self._run([(candidate, ResumeChoice.SKIP) for candidate in self.candidates])

    def reject(self) -> None:
        if self._leaving():  # quitting closes every window: that is no answer, the offer stays for next time
            super().reject()
            return
        # Escape or closing the window is "Skip all": the person saw the offer and declined it.
        self.skip_all()

    def _run(self, choices: list[tuple[ResumeCandidate, ResumeChoice]]) -> None:
        for widget in (self.apply_button, self.skip_button, *self.choices):
            widget.setEnabled(False)
        starting = sum(choice is not ResumeChoice.SKIP for _c, choice in choices)
        if starting:
            self.status.show_hint(f"Starting {counted(starting, 'agent')}…")
        self._client.call(
            self._runtime.placement.apply_resume(choices), on_done=self._finished, on_error=self._failed
        )

    def _finished(self, failures: list[str]) -> None:
        if not isValid(self):  # the window closed (IdeA quit) while the core was resuming
            return
        self.done(QDialog.DialogCode.Accepted)
        if failures:
            show_error(self.parentWidget() or self, "Some agents were not started", "\n".join(failures))

    def _failed(self, error: BaseException) -> None:
        if not isValid(self):  # the window closed (IdeA quit) while the core was resuming
            return
        for widget in (self.apply_button, self.skip_button, *self.choices):
            widget.setEnabled(True)
        show_error(self, "Resume failed", error)


CHOICES = (("Resume", ResumeChoice.RESUME), ("Start fresh", ResumeChoice.FRESH), ("Don't start", ResumeChoice.SKIP))


def _row_text(candidate: ResumeCandidate, where: str) -> str:
    head = f"<b>{html.escape(candidate.name)}</b> — {where}"
    if not candidate.native_resume:  # why "Don't start" is chosen for it
        head += " · its CLI cannot resume its session"
    parts = [head]
    if candidate.subject:
        parts.append(f"“{html.escape(candidate.subject)}”")
    if candidate.limited_until_ms is not None:
        parts.append(f"was limited until {html.escape(format_local_time(candidate.limited_until_ms))}")
    return "<br>".join(parts)


def _row_tip(candidate: ResumeCandidate) -> str:
    return (
        "Its CLI can continue its own conversation." if candidate.native_resume
        else "Its own session cannot be resumed: Resume starts it again."
    )


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
