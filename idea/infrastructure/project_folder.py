"""The files IdeA maintains inside a project folder."""

from __future__ import annotations

import os
import time
from pathlib import Path

from idea.domain.errors import AppError, CorruptFileError, ErrorCode
from idea.domain.project import IDEAI_DIR, with_managed_gitignore_block
from idea.infrastructure.fs import atomic_write_json, atomic_write_text, read_json
from idea.infrastructure.write_leftovers import sweep_write_leftovers

EMPTY_MANIFEST = {"agents": []}


class LocalProjectFolder:
    def resolve_root(self, path: str) -> str:
        root = Path(path).expanduser()
        try:
            root = root.resolve(strict=True)
        except FileNotFoundError:
            raise AppError(ErrorCode.NOT_FOUND, f"The project folder {path} does not exist.") from None
        except OSError as exc:
            raise AppError(ErrorCode.INVALID, f"The project folder {path} is unusable: {exc.strerror}.") from exc
        if not root.is_dir():
            raise AppError(ErrorCode.INVALID, f"{root} is not a folder.")
        if not os.access(root, os.R_OK | os.X_OK):
            raise AppError(ErrorCode.PERMISSION_DENIED, f"The project folder {root} is not readable.")
        return str(root)

    def ensure_scaffold(self, root: str) -> None:
        ideai = Path(root) / IDEAI_DIR
        ideai.mkdir(exist_ok=True)
        self._update_gitignore(root)
        manifest = ideai / "agents.json"
        try:
            existing = read_json(manifest)
        except CorruptFileError:
            atomic_write_json(manifest, EMPTY_MANIFEST)  # the broken one was kept aside
            raise
        if existing is None:
            atomic_write_json(manifest, EMPTY_MANIFEST)

    def remove_write_leftovers(self, root: str) -> list[str]:
        now = time.time()
        removed = sweep_write_leftovers(Path(root), now_s=now, recursive=False)  # the .gitignore's
        removed += sweep_write_leftovers(Path(root) / IDEAI_DIR, now_s=now)
        return [str(path) for path in removed]

    @staticmethod
    def _update_gitignore(root: str) -> None:
        gitignore = Path(root) / ".gitignore"
        try:
            raw = gitignore.read_bytes().decode("utf-8")
        except FileNotFoundError:
            raw = ""
        # A .gitignore checked out with CRLF (Windows, core.autocrlf) keeps its line ends.
        crlf = "\r\n" in raw
        current = raw.replace("\r\n", "\n")
        updated = with_managed_gitignore_block(current)
        if updated != current:
            atomic_write_text(gitignore, updated.replace("\n", "\r\n") if crlf else updated)
