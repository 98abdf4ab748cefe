"""What every terminal adapter checks before it starts a program, so all of them refuse in the same words."""

from __future__ import annotations

import os
import shutil

from idea.domain.errors import AppError, ErrorCode
from idea.domain.session import start_refusal


def start_refused(program: str, reason: str) -> AppError:
    """`reason` as the system words it."""
    return AppError(ErrorCode.PROCESS, start_refusal(program, reason))


def executable_for(program: str, cwd: str, search_path: str) -> str:
    """The absolute path to run, found the way the program's own environment would (its PATH, its cwd).

    A backend left to itself would search IdeA's PATH (and QTermWidget quietly runs $SHELL for an absolute
    path that does not exist). AppError(PROCESS) when the working folder or the program is unusable.
    """
    if not os.path.isdir(cwd):
        raise start_refused(program, f"the folder {cwd} does not exist")
    if not os.access(cwd, os.X_OK):
        raise start_refused(program, f"the folder {cwd} is not accessible")
    if os.sep in program:
        path = os.path.abspath(os.path.join(cwd, program))
        if not os.path.exists(path):
            raise start_refused(program, f"{path} does not exist")
        if os.path.isdir(path):
            raise start_refused(program, f"{path} is a folder")
        if not os.access(path, os.X_OK):
            raise start_refused(program, f"{path} is not executable")
        return path
    # Relative PATH entries (even an empty one) name folders relative to the program's cwd.
    folders = os.pathsep.join(os.path.join(cwd, entry) for entry in search_path.split(os.pathsep))
    found = shutil.which(program, path=folders)
    if found is not None:
        return os.path.abspath(found)
    not_executable = shutil.which(program, mode=os.F_OK, path=folders)
    if not_executable is not None:
        raise start_refused(program, f"{not_executable} is not executable")
    raise start_refused(program, "no program of that name is on its PATH")
