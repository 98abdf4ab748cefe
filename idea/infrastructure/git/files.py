"""Copying the `.worktreeinclude` files (git-ignored `.env`, local configs) from the main tree into a new
worktree: only files under the main tree, never over a file the worktree already has."""

from __future__ import annotations

import os
import shutil
from collections.abc import Sequence
from pathlib import Path

INCLUDE_MAX_FILES = 5000
TEXT_MAX_BYTES = 1024 * 1024


class LocalWorktreeFiles:
    def read_text(self, path: str) -> str | None:
        try:
            with open(path, "rb") as handle:
                return handle.read(TEXT_MAX_BYTES).decode("utf-8", "replace")
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            return None

    def copy_included(
        self, source_root: str, target_root: str, patterns: Sequence[str]
    ) -> tuple[tuple[str, ...], tuple[str, ...]]:
        source = Path(source_root).resolve()
        target = Path(target_root)
        copied: list[str] = []
        skipped: list[str] = []
        for pattern in patterns:
            matches = sorted(source.glob(pattern))
            if not matches:
                skipped.append(f"{pattern}: matches nothing")
                continue
            for match in matches:
                for file in _files_under(match):
                    relative = file.relative_to(source).as_posix() if _within(file, source) else None
                    if relative is None or relative.split("/", 1)[0] == ".git":
                        continue
                    if len(copied) >= INCLUDE_MAX_FILES:
                        skipped.append(f"{pattern}: more than {INCLUDE_MAX_FILES} files, the rest not copied")
                        break
                    destination = target / relative
                    if os.path.lexists(destination):
                        skipped.append(f"{relative}: already in the worktree")
                        continue
                    destination.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(file, destination, follow_symlinks=False)
                    copied.append(relative)
        return tuple(copied), tuple(skipped)


def _files_under(path: Path) -> list[Path]:
    if path.is_symlink() or path.is_file():
        return [path]
    if path.is_dir():
        return sorted(p for p in path.rglob("*") if p.is_symlink() or p.is_file())
    return []


def _within(path: Path, root: Path) -> bool:
    """Whether the file is really under the main tree (a symlinked folder may lead elsewhere)."""
    try:
        path.parent.resolve().relative_to(root)
    except ValueError:
        return False
    return True
