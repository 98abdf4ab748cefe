"""Run a program's version command without a shell and with a deadline: `claude --version` and friends."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from collections.abc import Mapping

from idea.application.agents.ports import Detection
from idea.domain.spawn_env import user_environment
from idea.infrastructure.installation import is_frozen

DETECT_TIMEOUT_S = 5.0


class SubprocessCliDetector:
    def detect(self, command_line: str, env: Mapping[str, str] | None = None) -> Detection:
        return probe(command_line, env)


def probe(command_line: str, env: Mapping[str, str] | None = None, timeout_s: float = DETECT_TIMEOUT_S) -> Detection:
    """The first line the command prints (its version), or why it could not run. The command gets the
    user's environment, without the packaged app's own libraries and launcher variables."""
    argv = shlex.split(command_line)
    if not argv:
        return Detection(command_line, None, error="empty command")
    child_env = user_environment(os.environ if env is None else env, frozen=is_frozen())
    search_path = child_env.get("PATH")
    path = shutil.which(argv[0], path=search_path)
    if path is None:
        return Detection(command_line, None, error=f"{argv[0]} not found on PATH")
    try:
        done = subprocess.run(
            [path, *argv[1:]],
            capture_output=True,
            text=True,
            timeout=timeout_s,
            env=child_env,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    except subprocess.TimeoutExpired:
        return Detection(command_line, path, error=f"no answer within {timeout_s:g} s")
    except OSError as exc:
        return Detection(command_line, path, error=exc.strerror or str(exc))
    output = (done.stdout or done.stderr).strip()
    first_line = output.splitlines()[0].strip() if output else ""
    if done.returncode != 0:
        return Detection(command_line, path, error=f"exit code {done.returncode}: {first_line}".rstrip(": "))
    return Detection(command_line, path, version=first_line or "(no version printed)")
