"""Diffs as the viewer and the review use them: which comparison, its files, hunks and lines."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import NamedTuple

from idea.domain.errors import invalid
from idea.domain.git.model import ChangeKind, short_oid
from idea.domain.wording import counted


class DiffKind(StrEnum):
    WORKING = "working"  # HEAD → working tree (untracked files included)
    UNSTAGED = "unstaged"  # index → working tree: what staging a hunk takes from
    STAGED = "staged"  # HEAD → index: what the next commit holds
    COMMIT = "commit"  # one commit against its first parent
    BRANCH = "branch"  # a branch against its merge base with `base` (what a pull request shows)
    WORKTREE = "worktree"  # a worktree's working tree against its merge base with `base`


@dataclass(frozen=True)
class DiffSpec:
    kind: DiffKind
    base: str | None = None  # BRANCH, WORKTREE: the base branch
    head: str | None = None  # COMMIT: the commit id; BRANCH: the branch; WORKTREE: the worktree's path

    def __post_init__(self) -> None:
        needs_head = self.kind in (DiffKind.COMMIT, DiffKind.BRANCH, DiffKind.WORKTREE)
        if needs_head and not self.head:
            raise invalid(f"a {self.kind.value} diff needs what to compare")

    def title(self, head_label: str | None = None) -> str:
        match self.kind:
            case DiffKind.WORKING:
                return "Working tree vs HEAD"
            case DiffKind.UNSTAGED:
                return "Unstaged changes"
            case DiffKind.STAGED:
                return "Staged changes"
            case DiffKind.COMMIT:
                return f"Commit {short_oid(self.head)}"
            case DiffKind.BRANCH:
                return f"{self.head} vs {self.base}"
            case DiffKind.WORKTREE:
                return f"Worktree {head_label or self.head} vs {self.base}"


class LineKind(StrEnum):
    CONTEXT = " "
    ADDED = "+"
    REMOVED = "-"


class DiffLine(NamedTuple):
    """One line of a hunk (a named tuple: a 10,000-line diff makes 10,000 of them, cheaply)."""

    kind: LineKind
    old: int | None  # line number on the old side (None for an added line)
    new: int | None  # line number on the new side (None for a removed line)
    text: str  # without its line ending; bytes that are not UTF-8 shown as U+FFFD
    no_newline: bool = False  # the last line of its side, with no newline at the end of the file


@dataclass(frozen=True)
class Hunk:
    header: str  # "@@ -30,7 +30,12 @@ def save" (no line ending)
    old_start: int
    old_lines: int
    new_start: int
    new_lines: int
    lines: tuple[DiffLine, ...]

    @property
    def range_header(self) -> str:
        """The `@@ -a,b +c,d @@` part alone, which anchors review comments."""
        end = self.header.find("@@", 2)
        return self.header[: end + 2] if end > 0 else self.header

    def line_at(self, side: str, number: int) -> DiffLine | None:
        for line in self.lines:
            if (line.old if side == "old" else line.new) == number:
                return line
        return None


@dataclass(frozen=True)
class FileDiff:
    old_path: str | None  # None for an added file
    new_path: str | None  # None for a deleted file
    change: ChangeKind
    hunks: tuple[Hunk, ...] = ()
    additions: int = 0
    deletions: int = 0
    binary: bool = False
    old_size: int = 0
    new_size: int = 0
    similarity: int | None = None  # renames
    elided: bool = False  # too many changed lines to show: listed with its stats only

    @property
    def path(self) -> str:
        return self.new_path or self.old_path or ""

    @property
    def changed_lines(self) -> int:
        return self.additions + self.deletions

    def hunk_with_header(self, range_header: str) -> Hunk | None:
        return next((h for h in self.hunks if h.range_header == range_header), None)


@dataclass(frozen=True)
class Diff:
    spec: DiffSpec
    files: tuple[FileDiff, ...] = ()
    base_label: str = ""  # what the old side is, in words ("main", "HEAD", "abc1234^")
    head_label: str = ""  # what the new side is ("working tree", "feature/x", ...)

    @property
    def additions(self) -> int:
        return sum(f.additions for f in self.files)

    @property
    def deletions(self) -> int:
        return sum(f.deletions for f in self.files)

    @property
    def changed_lines(self) -> int:
        return self.additions + self.deletions

    def file(self, path: str) -> FileDiff | None:
        return next((f for f in self.files if f.path == path or f.old_path == path), None)

    def stats_text(self) -> str:
        count = len(self.files)
        return f"{counted(count, 'file')} changed, +{self.additions} −{self.deletions}"


def human_size(size: int) -> str:
    value = float(size)
    for unit in ("bytes", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{int(value)} {unit}" if unit == "bytes" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{size} bytes"
