"""The machine IdeA runs on: environment, the user's shell, packaged or not."""

from __future__ import annotations

import os
import pwd
import shutil
from collections.abc import Sequence

from idea.infrastructure.installation import is_frozen
from idea.infrastructure.scratch import new_scratch_dir


class LocalHost:
    def environ(self) -> dict[str, str]:
        return dict(os.environ)

    def login_shell(self) -> str:
        candidates = []
        try:
            candidates.append(pwd.getpwuid(os.getuid()).pw_shell)
        except KeyError:
            pass
        candidates += [os.environ.get("SHELL", ""), "/bin/bash", "/bin/sh"]
        for shell in candidates:
            if shell and os.path.isabs(shell) and os.access(shell, os.X_OK) and not shell.endswith("nologin"):
                return shell
        return shutil.which("sh") or "/bin/sh"

    def which(self, program: str, path: str | None) -> str | None:
        if "/" in program:
            return program if os.access(program, os.X_OK) and os.path.isfile(program) else None
        return shutil.which(program, path=path)

    def launch_argv(self, program: str, args: Sequence[str]) -> list[str]:
        return [program, *args]

    def is_dir(self, path: str) -> bool:
        return os.path.isdir(path)

    def scratch_dir(self, prefix: str) -> str:
        return new_scratch_dir(prefix)

    def is_frozen(self) -> bool:
        return is_frozen()
