"""Atomic replace on Windows: `os.replace` (MoveFileEx with REPLACE_EXISTING) fails while another program
holds the target open without FILE_SHARE_DELETE, which virus scanners, indexers, backup tools and editors do
for a moment after every write. Those holds are short: the replace is retried for a while before IdeA
reports the file as in use, naming it."""

from __future__ import annotations

import errno
import os
import time
from collections.abc import Callable

# ERROR_ACCESS_DENIED (the target is open without delete sharing), ERROR_SHARING_VIOLATION,
# ERROR_LOCK_VIOLATION, ERROR_USER_MAPPED_FILE (a program maps it into memory).
SHARING_ERRORS = frozenset({5, 32, 33, 1224})
RETRY_FOR_S = 2.0
FIRST_WAIT_S = 0.01
LONGEST_WAIT_S = 0.25


class FileInUseError(PermissionError):
    def __init__(self, target: str, winerror: int | None, waited_s: float) -> None:
        super().__init__(
            errno.EACCES,
            f"{target} is in use by another program and could not be replaced (retried for {waited_s:g} s); "
            "close the program that holds it and try again",
        )
        self.target = target
        self.sharing_error = winerror


def replace_with_retry(
    source: str | os.PathLike[str],
    target: str | os.PathLike[str],
    *,
    replace: Callable[[str | os.PathLike[str], str | os.PathLike[str]], None] = os.replace,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
    retry_for_s: float = RETRY_FOR_S,
) -> None:
    deadline = clock() + retry_for_s
    wait = FIRST_WAIT_S
    while True:
        try:
            replace(source, target)
            return
        except PermissionError as exc:
            code = getattr(exc, "winerror", None)
            if code is not None and code not in SHARING_ERRORS:
                raise
            if clock() >= deadline:
                raise FileInUseError(os.fspath(target), code, retry_for_s) from exc
        sleep(wait)
        wait = min(wait * 2, LONGEST_WAIT_S)
