"""Windows' path length limit, explained: unless long paths are enabled (Windows 10 1607+, the
`LongPathsEnabled` policy), a path of 260 characters or more fails with "file not found" or "path not found",
which sends a user looking for a file that is not missing."""

from __future__ import annotations

import os

MAX_PATH = 260
# ERROR_FILE_NOT_FOUND, ERROR_PATH_NOT_FOUND, ERROR_FILENAME_EXCED_RANGE
_LENGTH_SYMPTOMS = frozenset({2, 3, 206})


def explained(error: OSError, path: str | os.PathLike[str]) -> OSError:
    """`error`, or a clearer OSError when the path's length is the likely cause."""
    text = os.fspath(path)
    winerror = getattr(error, "winerror", None)
    if len(text) < MAX_PATH or (winerror not in _LENGTH_SYMPTOMS and not isinstance(error, FileNotFoundError)):
        return error
    clearer = OSError(
        error.errno,
        f"the path is {len(text)} characters long, past Windows' limit of {MAX_PATH - 1}: enable long paths "
        "(Group Policy \"Enable Win32 long paths\", or LongPathsEnabled=1 under "
        "HKLM\\SYSTEM\\CurrentControlSet\\Control\\FileSystem) or move the project to a shorter folder",
        text,
    )
    clearer.__cause__ = error
    return clearer
