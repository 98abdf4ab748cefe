"""Project memory (spec 04 §11): reading notes and the index, writing a note with the writing rules (the tool,
the Memory view and the harvest share `write`), deleting (the person only), and keeping `MEMORY.md`
consistent with the files at project open and after every write."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from idea.application.knowledge.file_guard import MEMORY, FileGuard
from idea.application.knowledge.ports import MemoryStore
from idea.application.ports import Diagnostics, EventPublisher
from idea.domain.errors import AppError, ErrorCode, not_found
from idea.domain.knowledge.events import MemoryDeleted, MemorySaved
from idea.domain.knowledge.memory import (
    DEFAULT_INDEX_PREAMBLE,
    LinkReport,
    MemoryIndex,
    MemoryNote,
    MemoryPointerLine,
    MemoryType,
    Reconciliation,
    index_description,
    link_report,
    pointers,
    reconcile_index,
    require_slug,
    write_note,
)


@dataclass(frozen=True)
class MemoryListing:
    """What the Memory view shows: notes in index order, and what could not be read (`file:line: why`)."""

    notes: tuple[MemoryNote, ...]
    problems: tuple[str, ...]

    def links(self, slug: str) -> LinkReport:
        return link_report(slug, {note.slug: note.body for note in self.notes})


class MemoryService:
    def __init__(
        self, store: MemoryStore, guard: FileGuard, events: EventPublisher, diagnostics: Diagnostics
    ) -> None:
        self._store = store
        self._guard = guard
        self._events = events
        self._diagnostics = diagnostics

    # ------------------------------------------------------------------ reading

    async def index_text(self) -> str:
        """`idea_memory_read()`: the index, consistent with the files."""
        async with self._guard.read(MEMORY):
            reconciliation = await asyncio.to_thread(self._reconcile_locked)
        return reconciliation.index.render()

    async def note_text(self, slug: str) -> str:
        """`idea_memory_read(slug)`: the note as stored (front matter and body); NOT_FOUND when absent."""
        require_slug(slug, ErrorCode.INVALID_ARGUMENTS)
        async with self._guard.read(MEMORY):
            text = await asyncio.to_thread(self._store.read_note_text, slug)
        if text is None:
            raise not_found(f"memory note `{slug}` not found; call idea_memory_read() for the index")
        return text

    async def listing(self) -> MemoryListing:
        async with self._guard.read(MEMORY):
            return await asyncio.to_thread(self._listing)

    async def pointers(self) -> tuple[MemoryPointerLine, ...]:
        """The index lines an agent's context file receives (bodies are read on demand)."""
        async with self._guard.read(MEMORY):
            reconciliation = await asyncio.to_thread(self._reconcile_locked)
        return pointers(reconciliation.index)

    # ------------------------------------------------------------------ writing

    async def write(
        self,
        slug: str,
        content: str,
        *,
        description: str | None = None,
        note_type: MemoryType | None = None,
        title: str | None = None,
    ) -> MemoryNote:
        """Create or replace a note (spec 04 §11.2): front-matter blocks merged, markup leftovers stripped,
        a real description, the title as heading, one front-matter block; the index updated in the same
        critical section; `MemorySaved` published."""
        note = write_note(slug, content, description=description, note_type=note_type, title=title)
        async with self._guard.write(MEMORY):
            await asyncio.to_thread(self._write_locked, note)
        self._events.publish(MemorySaved(note.slug))
        return note

    async def delete(self, slug: str) -> None:
        """A gesture of the person only (agents have no delete tool): the file and its index line go."""
        require_slug(slug)
        async with self._guard.write(MEMORY):
            removed = await asyncio.to_thread(self._delete_locked, slug)
        if not removed:
            raise not_found(f"memory note `{slug}` not found")
        self._events.publish(MemoryDeleted(slug))

    async def reconcile(self) -> Reconciliation:
        """At project open: lines of missing files removed, files without a line appended."""
        async with self._guard.write(MEMORY):
            reconciliation = await asyncio.to_thread(self._reconcile_locked)
        if reconciliation.changed:
            self._diagnostics.beacon(
                f"[memory] index reconciled added={','.join(reconciliation.added) or '-'} "
                f"removed={','.join(reconciliation.removed) or '-'} refreshed={len(reconciliation.refreshed)}"
            )
        return reconciliation

    # ------------------------------------------------------------------ on a worker thread

    def _write_locked(self, note: MemoryNote) -> None:
        with self._store.lock():
            self._store.write_note(note)
            self._reconcile_locked()

    def _delete_locked(self, slug: str) -> bool:
        with self._store.lock():
            removed = self._store.delete_note(slug)
            self._reconcile_locked()
            return removed

    def _reconcile_locked(self) -> Reconciliation:
        with self._store.lock():
            scan = self._store.scan()
            for problem in scan.problems:
                self._diagnostics.beacon(f"[memory] {problem}")
            try:
                index = self._store.read_index()
            except AppError as exc:  # not UTF-8: kept aside, rebuilt from the files
                self._diagnostics.beacon(f"[memory] {exc.message}")
                index = None
            existed = index is not None
            index = index or MemoryIndex(DEFAULT_INDEX_PREAMBLE)
            reconciliation = reconcile_index(index, {slug: index_description(read) for slug, read in scan.notes.items()})
            if reconciliation.changed or (not existed and scan.notes):
                self._store.write_index(reconciliation.index)
            return reconciliation

    def _listing(self) -> MemoryListing:
        with self._store.lock():
            scan = self._store.scan()
            try:
                index = self._store.read_index() or MemoryIndex()
            except AppError:
                index = MemoryIndex()
        order = {entry.slug: position for position, entry in enumerate(index.entries)}
        notes = sorted(
            (read.note for read in scan.notes.values()), key=lambda note: (order.get(note.slug, len(order)), note.slug)
        )
        return MemoryListing(tuple(notes), tuple(scan.problems))
