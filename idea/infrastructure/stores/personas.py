"""Persona Markdown files at `.ideai/<mdPath>`; a deleted agent's persona goes to a recoverable trash."""

from __future__ import annotations

import os
from pathlib import Path

from idea.domain.agent import PERSONA_DIR, validate_persona_path
from idea.domain.errors import invalid
from idea.domain.project import IDEAI_DIR
from idea.infrastructure.fs import atomic_write_text, read_text
from idea.infrastructure.stores.document_file import path_lock

TRASH_DIR = ".deleted"


class MarkdownPersonaStore:
    def read(self, root: str, md_path: str) -> str | None:
        path = self._path(root, md_path)
        with path_lock(path):
            return read_text(path)

    def write(self, root: str, md_path: str, body: str) -> None:
        path = self._path(root, md_path)
        with path_lock(path):
            atomic_write_text(path, body)

    def trash(self, root: str, md_path: str, at_ms: int) -> str | None:
        path = self._path(root, md_path)
        with path_lock(path):
            if not path.is_file():
                return None
            trash = Path(root) / IDEAI_DIR / PERSONA_DIR / TRASH_DIR
            trash.mkdir(parents=True, exist_ok=True)
            name = f"{path.stem}-{at_ms}.md"
            suffix = 2
            while (trash / name).exists():  # two deletions in the same millisecond must not overwrite
                name = f"{path.stem}-{at_ms}-{suffix}.md"
                suffix += 1
            os.replace(path, trash / name)
            return f"{PERSONA_DIR}/{TRASH_DIR}/{name}"

    @staticmethod
    def _path(root: str, md_path: str) -> Path:
        validate_persona_path(md_path)
        agents_dir = Path(root) / IDEAI_DIR / PERSONA_DIR
        path = agents_dir / md_path.removeprefix(f"{PERSONA_DIR}/")
        # A symbolic link inside agents/ must not lead the write elsewhere.
        if not path.resolve().is_relative_to(agents_dir.resolve()):
            raise invalid(f"The persona path {md_path!r} leads outside .ideai/{PERSONA_DIR}/.", mdPath=md_path)
        return path
