"""Facts about one repository: where it is, what state it is in, its status, branches and commits."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from idea.domain.errors import invalid


class ChangeKind(StrEnum):
    NEW = "new"
    MODIFIED = "modified"
    DELETED = "deleted"
    RENAMED = "renamed"
    TYPECHANGE = "typechange"
    UNREADABLE = "unreadable"


class RepoState(StrEnum):
    """An operation git left half-done in the repository (`repo.state()`)."""

    NONE = "none"
    MERGE = "merge"
    REBASE = "rebase"
    CHERRY_PICK = "cherry-pick"
    REVERT = "revert"
    BISECT = "bisect"
    APPLY_MAILBOX = "apply-mailbox"


@dataclass(frozen=True, slots=True)
class StatusEntry:
    """One path with a change in the index (`staged`, HEAD → index) and/or the working tree (`unstaged`,
    index → working tree). A path git has never seen is untracked: `unstaged` NEW, nothing staged."""

    path: str
    staged: ChangeKind | None = None
    unstaged: ChangeKind | None = None
    conflicted: bool = False
    ignored: bool = False

    @property
    def untracked(self) -> bool:
        return self.unstaged is ChangeKind.NEW and self.staged is None and not self.conflicted


@dataclass(frozen=True)
class StatusReport:
    entries: tuple[StatusEntry, ...] = ()

    def staged(self) -> list[StatusEntry]:
        return [e for e in self.entries if e.staged is not None and not e.conflicted]

    def unstaged(self) -> list[StatusEntry]:
        return [e for e in self.entries if e.unstaged is not None and not e.untracked and not e.conflicted]

    def untracked(self) -> list[StatusEntry]:
        return [e for e in self.entries if e.untracked and not e.ignored]

    def conflicted(self) -> list[StatusEntry]:
        return [e for e in self.entries if e.conflicted]

    def changed(self) -> list[StatusEntry]:
        """Everything that is not committed (untracked files included, ignored files excluded)."""
        return [e for e in self.entries if not e.ignored]

    @property
    def is_clean(self) -> bool:
        return not self.changed()

    def by_path(self, path: str) -> StatusEntry | None:
        return next((e for e in self.entries if e.path == path), None)


@dataclass(frozen=True)
class Head:
    branch: str | None  # the short branch name; None when detached
    oid: str | None  # None on an unborn branch (a repository with no commit yet)

    @property
    def detached(self) -> bool:
        return self.branch is None and self.oid is not None

    @property
    def unborn(self) -> bool:
        return self.oid is None

    def label(self) -> str:
        if self.branch is not None:
            return self.branch
        return f"detached at {short_oid(self.oid)}" if self.oid else "no commit yet"


@dataclass(frozen=True)
class RepoFacts:
    """What the panel shows above everything else; read fresh at every refresh."""

    git_dir: str
    workdir: str | None  # None for a bare repository
    head: Head
    state: RepoState = RepoState.NONE
    shallow: bool = False
    index_lock: str | None = None  # the path of an `index.lock` another process left, when present
    linked_worktree: bool = False  # the project lives in a linked worktree of another repository
    conflicted_paths: tuple[str, ...] = ()

    @property
    def bare(self) -> bool:
        return self.workdir is None


@dataclass(frozen=True)
class Identity:
    name: str
    email: str

    def __post_init__(self) -> None:
        if not self.name.strip() or not self.email.strip():
            raise invalid("A commit author needs both a name and an email address.")
        if any(ch in self.name + self.email for ch in "<>\n"):
            raise invalid("A name or email address must not contain '<', '>' or a line break.")

    def display(self) -> str:
        return f"{self.name} <{self.email}>"


@dataclass(frozen=True)
class Branch:
    name: str
    oid: str
    is_head: bool = False
    upstream: str | None = None
    worktree: str | None = None  # the path of the worktree that has it checked out, other than this one


@dataclass(frozen=True)
class CommitInfo:
    oid: str
    parents: tuple[str, ...]
    summary: str
    author: str
    email: str
    time_ms: int
    message: str = field(default="", compare=False)

    @property
    def short(self) -> str:
        return short_oid(self.oid)


def short_oid(oid: str | None) -> str:
    return (oid or "")[:7]


def display_path(path: str) -> str:
    """A path for people: bytes that are not UTF-8 (kept as surrogates, as Python reads such file names)
    shown as `\\xNN` escapes, so the name stays readable and unambiguous."""
    if not any("\udc80" <= ch <= "\udcff" for ch in path):
        return path
    return "".join(f"\\x{ord(ch) - 0xDC00:02x}" if "\udc80" <= ch <= "\udcff" else ch for ch in path)
