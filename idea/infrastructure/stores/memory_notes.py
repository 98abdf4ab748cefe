"""`.ideai/memory/`: the notes `<slug>.md` and their index `MEMORY.md` (spec 04 §11).

Notes are read as far as they are valid: what cannot be read is reported as `file:line: why`. A note that is
not UTF-8 text is moved aside (`<slug>.md.corrupt-<ms>`), never overwritten. Files whose names are not
memory slugs are left alone and reported. Writes are atomic; `lock()` is the folder's critical section, in
which a note and the index are written together.
"""

from __future__ import annotations

import os
import threading
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path

from idea.domain.errors import CorruptFileError
from idea.domain.knowledge.memory import (
    INDEX_FILE,
    MEMORY_DIR,
    NOTE_SUFFIX,
    MemoryIndex,
    MemoryNote,
    ReadNote,
    is_valid_slug,
)
from idea.domain.knowledge.memory import parse_index as parse_index_text
from idea.domain.knowledge.memory import read_note as parse_note
from idea.domain.project import IDEAI_DIR
from idea.infrastructure.fs import atomic_write_text, read_text, remove_if_present
from idea.infrastructure.stores.document_file import path_lock


@dataclass
class NoteScan:
    notes: dict[str, ReadNote] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


class MarkdownMemoryStore:
    def __init__(self, project_root: str) -> None:
        self.directory = Path(project_root) / IDEAI_DIR / MEMORY_DIR
        self._index_path = self.directory / INDEX_FILE

    def lock(self) -> AbstractContextManager[object]:
        lock: threading.RLock = path_lock(self._index_path)
        return lock

    def note_path(self, slug: str) -> Path:
        if not is_valid_slug(slug):
            raise ValueError(f"{slug!r} is not a memory slug")
        return self.directory / f"{slug}{NOTE_SUFFIX}"

    def scan(self) -> NoteScan:
        """Every note of the folder, read as far as valid."""
        scan = NoteScan()
        try:
            names = sorted(os.listdir(self.directory))
        except FileNotFoundError:
            return scan
        for name in names:
            if name == INDEX_FILE or not name.endswith(NOTE_SUFFIX) or name.startswith("."):
                continue
            slug = name[: -len(NOTE_SUFFIX)]
            if not is_valid_slug(slug):
                scan.problems.append(f"{self.directory / name}: not a memory note name (lowercase, digits, '-'); ignored")
                continue
            try:
                read = self.read_note(slug)
            except CorruptFileError as exc:
                scan.problems.append(exc.message)
                continue
            if read is None:
                continue
            scan.notes[slug] = read
            scan.problems.extend(problem_line for problem_line in self._described(slug, read))
        return scan

    def read_note(self, slug: str) -> ReadNote | None:
        text = self.read_note_text(slug)
        return parse_note(slug, text) if text is not None else None

    def read_note_text(self, slug: str) -> str | None:
        """The file as written, None when absent; CorruptFileError (file kept aside) when not UTF-8."""
        path = self.note_path(slug)
        if path.is_symlink():
            raise CorruptFileError(str(path), "a symbolic link, not a note", None)
        with path_lock(path):
            return read_text(path)

    def write_note(self, note: MemoryNote) -> None:
        path = self.note_path(note.slug)
        with path_lock(path):
            atomic_write_text(path, note.render())

    def delete_note(self, slug: str) -> bool:
        path = self.note_path(slug)
        with path_lock(path):
            return remove_if_present(path)

    def read_index(self) -> MemoryIndex | None:
        """None when `MEMORY.md` does not exist; CorruptFileError (file kept aside) when not UTF-8."""
        with path_lock(self._index_path):
            text = read_text(self._index_path)
        return parse_index_text(text) if text is not None else None

    def read_index_text(self) -> str | None:
        with path_lock(self._index_path):
            return read_text(self._index_path)

    def write_index(self, index: MemoryIndex) -> None:
        with path_lock(self._index_path):
            atomic_write_text(self._index_path, index.render())

    def _described(self, slug: str, read: ReadNote) -> list[str]:
        path = self.note_path(slug)
        return [problem.describe(str(path)) for problem in read.problems]
