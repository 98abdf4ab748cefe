"""Find in a conversation (spec 04 §9): the next older turn holding the text, above the selection; at the top
of what is loaded, older pages are loaded (at most `SEARCH_PAGES_PER_STEP` per press) until the text is found
or the conversation begins. The matches are highlighted as the text is typed."""

from __future__ import annotations

from typing import Protocol

from PySide6.QtWidgets import QLineEdit

from idea.ui.knowledge.common import StatusLine
from idea.ui.knowledge.turn_list import TurnDelegate, TurnListModel

SEARCH_PAGES_PER_STEP = 20


class SearchedViewer(Protocol):
    """What the search uses of the conversation viewer."""

    model: TurnListModel
    delegate: TurnDelegate
    status: StatusLine
    has_older: bool

    def load_older(self) -> None: ...

    def selected_row(self) -> int | None: ...

    def select_row(self, row: int | None) -> None: ...

    def repaint_turns(self) -> None: ...


class TurnSearch:
    def __init__(self, viewer: SearchedViewer) -> None:
        self._viewer = viewer
        self._pages_left = 0  # older pages this press may still load
        self.field = QLineEdit()
        self.field.setPlaceholderText("Find in this conversation…")
        self.field.setAccessibleName("Find in this conversation")
        self.field.setClearButtonEnabled(True)
        self.field.returnPressed.connect(self.find_next)
        self.field.textChanged.connect(self._changed)

    @property
    def searching(self) -> bool:
        """Older pages are being loaded for this search."""
        return self._pages_left > 0

    def stop(self) -> None:
        self._pages_left = 0

    def find_next(self) -> None:
        viewer = self._viewer
        needle = self._needle()
        if not needle:
            return
        start = viewer.selected_row()
        start = len(viewer.model.turns) if start is None else start
        for row in range(start - 1, -1, -1):
            if needle in viewer.model.turns[row].text.casefold():
                viewer.select_row(row)
                viewer.status.say("")
                return
        if viewer.has_older:
            self._pages_left = SEARCH_PAGES_PER_STEP
            viewer.status.say("Searching older turns…")
            viewer.select_row(None)
            viewer.load_older()
        else:
            viewer.status.say(f"“{self.field.text().strip()}” is not in this conversation above the selection.")

    def older_loaded(self, added: int) -> None:
        """Look through the `added` older turns just loaded at the top."""
        viewer = self._viewer
        self._pages_left -= 1
        needle = self._needle()
        for row in range(added - 1, -1, -1):
            if needle and needle in viewer.model.turns[row].text.casefold():
                self._pages_left = 0
                viewer.select_row(row)
                viewer.status.say("")
                return
        if self._pages_left > 0 and viewer.has_older:
            viewer.load_older()
        elif viewer.has_older:
            self._pages_left = 0
            viewer.status.say("Not found yet; press Enter to search older turns.")
        else:
            self._pages_left = 0
            viewer.status.say(f"“{self.field.text().strip()}” is not in this conversation.")

    def _needle(self) -> str:
        return self.field.text().strip().casefold()

    def _changed(self, text: str) -> None:
        self._viewer.delegate.highlight = text.strip()
        self._viewer.repaint_turns()
