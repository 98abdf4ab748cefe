"""The Memory view (spec 04 §11): the project's notes in index order; read one rendered with its wiki links,
backlinks and broken links; edit, create, delete. Notes that could not be read are reported, never hidden."""

from __future__ import annotations

import html
from collections.abc import Coroutine
from typing import Any, Protocol

from PySide6.QtCore import Qt, QUrl, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QTabWidget,
    QTextBrowser,
    QWidget,
)

from idea.application.knowledge.memory import MemoryListing
from idea.domain.knowledge.events import MemoryDeleted, MemorySaved
from idea.domain.knowledge.memory import MemoryNote, MemoryType, is_valid_slug
from idea.domain.wording import counted
from idea.ui.knowledge.common import Caller, call_for, column, confirm, list_and_editor, theme_of, unwrapped
from idea.ui.widgets.empty_hint import EmptyHint
from idea.ui.widgets.list_row_delegate import ListRowDelegate

LINK_SCHEME = "idea-memory"


class MemoryPort(Protocol):
    def listing(self) -> Coroutine[Any, Any, MemoryListing]: ...

    def write(
        self, slug: str, content: str, *, description: str | None = None, note_type: MemoryType | None = None
    ) -> Coroutine[Any, Any, MemoryNote]: ...

    def delete(self, slug: str) -> Coroutine[Any, Any, None]: ...


def linked_markdown(body: str, known: set[str]) -> str:
    """`[[slug]]` and `[[slug|label]]` as links the preview can follow; links to no note are struck out."""
    out: list[str] = []
    rest = body
    while (start := rest.find("[[")) >= 0 and (end := rest.find("]]", start + 2)) >= 0:
        target, _, label = rest[start + 2 : end].partition("|")
        target, label = target.strip(), (label or target).strip()
        out.append(rest[:start])
        out.append(f"[{label}]({LINK_SCHEME}:{target})" if target in known else f"~~{label}~~")
        rest = rest[end + 2 :]
    out.append(rest)
    return "".join(out)


class MemoryView(QWidget):
    loaded = Signal()

    def __init__(self, caller: Caller, memory: MemoryPort, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._caller = caller
        self._memory = memory
        self.listing: MemoryListing | None = None
        self.current: str | None = None  # slug shown; None: a new note

        self.notes = QListWidget()
        self.notes.setAccessibleName("Notes")
        self.notes.setItemDelegate(ListRowDelegate(self.notes))
        self.notes.currentItemChanged.connect(self._selected)
        EmptyHint(self.notes, "No note yet. Agents keep what the team learns here (idea_memory_write); New note "
                              "adds one of yours.")
        self.new_button = QPushButton("New note")
        self.new_button.clicked.connect(self.new_note)

        self.slug = QLineEdit()
        self.slug.setPlaceholderText("short-kebab-case-id")
        self.description = QLineEdit()
        self.description.setPlaceholderText("One line shown in the index (derived from the note when empty)")
        self.type = QComboBox()
        for kind in MemoryType:
            self.type.addItem(kind.value, kind.value)
        form = QFormLayout()
        form.addRow("Slug", self.slug)
        form.addRow("Description", self.description)
        form.addRow("Type", self.type)
        self.body = QPlainTextEdit()
        self.body.setPlaceholderText("The note, in Markdown. Link other notes with [[slug]].")
        self.body.setAccessibleName("Note")
        self.preview = QTextBrowser()
        self.preview.setAccessibleName("Note as read")
        self.preview.setOpenLinks(False)
        self.preview.anchorClicked.connect(self._follow)
        self.tabs = QTabWidget()
        self.tabs.addTab(self.preview, "Read")
        self.tabs.addTab(self.body, "Edit")
        self.links = QLabel()
        self.links.setWordWrap(True)
        self.links.setTextFormat(Qt.TextFormat.RichText)
        self.links.linkActivated.connect(lambda url: self.select(url.removeprefix(f"{LINK_SCHEME}:")))
        self.save_button = QPushButton("Save")
        self.save_button.clicked.connect(self.save)
        self.delete_button = QPushButton("Delete…")
        self.delete_button.clicked.connect(self.confirm_delete)
        buttons = QHBoxLayout()
        buttons.addWidget(self.links, 1)
        buttons.addWidget(self.delete_button)
        buttons.addWidget(self.save_button)
        self.status = list_and_editor(
            self,
            "<b>Project memory</b> — durable notes shared by the team; agents see the index and read notes on demand.",
            self.notes,
            self.new_button,
            column(form, (self.tabs, 1), buttons),
        )
        self._show_note(None)

    # ------------------------------------------------------------------ loading

    def reload(self) -> None:
        call_for(self, self._caller, self._memory.listing(), self._loaded, self.status.fail)

    def on_event(self, event: object) -> None:
        if isinstance(unwrapped(event), MemorySaved | MemoryDeleted):
            self.reload()

    def _loaded(self, listing: MemoryListing) -> None:
        self.listing = listing
        keep = self.current
        self.notes.blockSignals(True)
        self.notes.clear()
        for note in listing.notes:
            item = QListWidgetItem(note.slug)
            item.setData(ListRowDelegate.SUBTITLE_ROLE, note.description)
            item.setData(ListRowDelegate.NOTE_ROLE, note.type.value)
            item.setData(Qt.ItemDataRole.UserRole, note.slug)
            item.setToolTip(note.description)
            self.notes.addItem(item)
        self.notes.blockSignals(False)
        if listing.problems:
            problems = "; ".join(listing.problems)
            self.status.fail(f"{counted(len(listing.problems), 'problem')} reading the notes: {problems}")
        else:
            self.status.say(counted(len(listing.notes), "note"))
        if keep is not None and self._note(keep) is not None:
            self.select(keep)
        elif listing.notes:
            self.select(listing.notes[0].slug)
        else:
            self._show_note(None)
        self.loaded.emit()

    def _note(self, slug: str) -> MemoryNote | None:
        notes = self.listing.notes if self.listing is not None else ()
        return next((note for note in notes if note.slug == slug), None)

    def select(self, slug: str) -> None:
        for row in range(self.notes.count()):
            if self.notes.item(row).data(Qt.ItemDataRole.UserRole) == slug:
                self.notes.setCurrentRow(row)
                return

    def _selected(self, item: QListWidgetItem | None) -> None:
        self._show_note(self._note(item.data(Qt.ItemDataRole.UserRole)) if item is not None else None)

    def _show_note(self, note: MemoryNote | None) -> None:
        self.current = note.slug if note is not None else None
        self.slug.setText(note.slug if note else "")
        self.slug.setReadOnly(note is not None)
        self.description.setText(note.description if note else "")
        self.type.setCurrentIndex(self.type.findData((note.type if note else MemoryType.PROJECT).value))
        self.body.setPlainText(note.body if note else "")
        self.delete_button.setEnabled(note is not None)
        known = {n.slug for n in self.listing.notes} if self.listing is not None else set()
        self.preview.setMarkdown(linked_markdown(note.body, known) if note else "")
        self.tabs.setCurrentWidget(self.preview if note else self.body)
        if note is None or self.listing is None:
            self.links.setText("")
            return
        accent = theme_of(self).accent
        report = self.listing.links(note.slug)
        parts = []
        if report.backlinks:
            parts.append(
                "Linked from "
                + ", ".join(f'<a style="color:{accent}" href="{LINK_SCHEME}:{s}">{html.escape(s)}</a>' for s in report.backlinks)
            )
        if report.broken:
            parts.append("Broken links: " + ", ".join(html.escape(s) for s in report.broken))
        self.links.setText(" · ".join(parts))

    def _follow(self, url: QUrl) -> None:
        if url.scheme() == LINK_SCHEME:
            self.select(url.path())

    # ------------------------------------------------------------------ editing

    def new_note(self) -> None:
        self.notes.clearSelection()
        self.notes.setCurrentRow(-1)
        self._show_note(None)
        self.slug.setFocus()

    def save(self) -> None:
        slug = self.slug.text().strip()
        if not is_valid_slug(slug):
            self.status.fail("The slug is lowercase letters, digits and '-', starting with a letter or a digit.")
            return
        if not self.body.toPlainText().strip():
            self.status.fail("The note is empty.")
            return
        self.current = slug
        work = self._memory.write(
            slug,
            self.body.toPlainText(),
            description=self.description.text().strip() or None,
            note_type=MemoryType(self.type.currentData()),
        )
        call_for(self, self._caller, work, lambda note: (self.status.say(f"Saved {note.slug}."), self.reload()), self.status.fail)

    def confirm_delete(self) -> None:
        if self.current is None:
            return
        slug = self.current
        text = f"Delete the note “{slug}” and its line in MEMORY.md? Agents will no longer see it."
        confirm(self, "Delete memory note", text, "Delete", lambda: self.delete(slug))

    def delete(self, slug: str) -> None:
        self.current = None
        call_for(self, self._caller, self._memory.delete(slug), lambda _: (self.status.say(f"Deleted {slug}."), self.reload()), self.status.fail)
