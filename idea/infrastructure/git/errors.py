"""libgit2's failures turned into messages a person can act on (AppError GIT)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pygit2

from idea.domain.errors import AppError, ErrorCode

_LOCKED = ("index is locked", "failed to lock", "could not lock", ".lock'")
_CORRUPT_INDEX = ("in index", "index file", "failed to read index", "index uses")


def git_error(action: str, exc: BaseException) -> AppError:
    text = str(exc).strip() or type(exc).__name__
    lowered = text.lower()
    if any(mark in lowered for mark in _LOCKED):
        return AppError(
            ErrorCode.GIT,
            f"Could not {action}: another git process holds a lock file (index.lock or a ref's .lock). "
            "Wait for it to finish; if no git command is running, delete the lock file.",
            retryable=True,
        )
    if any(mark in lowered for mark in _CORRUPT_INDEX):
        return AppError(
            ErrorCode.GIT,
            f"Could not {action}: the index (.git/index) cannot be read ({text}). IdeA leaves it as it is. "
            "To rebuild it, move .git/index aside and run `git reset` in a terminal: your files stay as they "
            "are, only what was staged is lost.",
        )
    if "not owned by current user" in lowered:
        return AppError(
            ErrorCode.GIT,
            f"Could not {action}: the repository belongs to another user. If you trust it, add it with "
            "`git config --global --add safe.directory <path>`.",
        )
    return AppError(ErrorCode.GIT, f"Could not {action}: {text}")


@contextmanager
def git_errors(action: str) -> Iterator[None]:
    """Run a block of libgit2 calls; any failure becomes AppError(GIT) saying what could not be done."""
    try:
        yield
    except AppError:
        raise
    except (pygit2.GitError, OSError, ValueError, KeyError, IndexError, UnicodeError) as exc:
        raise git_error(action, exc) from exc
