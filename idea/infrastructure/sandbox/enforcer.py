"""The sandbox adapters the composition root chooses from: Landlock through `sandbox-exec` on Linux, and a
no-op elsewhere that says honestly that nothing is enforced."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

import idea
from idea.domain.permissions.sandbox import EnforcementLevel, ExecPlan, SandboxStatus
from idea.infrastructure.agents.executable import idea_command
from idea.infrastructure.installation import detect
from idea.infrastructure.sandbox.exec_wrapper import kernel_check


class LandlockSandbox:
    """Linux: the CLI is started through `idea sandbox-exec`, which applies the plan with Landlock."""

    def __init__(self, command_prefix: Sequence[str] | None = None, environ: Mapping[str, str] | None = None) -> None:
        self._command = list(command_prefix) if command_prefix else idea_command()
        self._environ = environ

    def status(self, plan: ExecPlan | None) -> SandboxStatus:
        level, detail, _abi = kernel_check(plan, os.environ if self._environ is None else self._environ)
        return SandboxStatus(EnforcementLevel(level), detail)

    def wrap(self, argv: Sequence[str], plan_file: str) -> tuple[str, ...]:
        return (*self._command, "sandbox-exec", "--plan", plan_file, "--", *argv)

    def installation_paths(self) -> tuple[str, ...]:
        """What IdeA's own subcommands (bridge, hook relay) read when a plan restricts reading: from an
        AppImage, also the mount they run from (the runtime then starts them from IdeA's own, AppRun first)."""
        paths = {str(Path(idea.__file__).resolve().parent.parent), sys.prefix, sys.base_prefix}
        command = Path(self._command[0]).resolve()
        paths.add(str(command.parent))
        paths.update(_venv_of(command))
        appdir = detect(self._environ).appdir
        if appdir:
            paths.add(appdir)
        return tuple(sorted(paths))

    def runs_as_root(self) -> bool:
        return os.geteuid() == 0


def _venv_of(command: Path) -> tuple[str, ...]:
    """A console script in a venv (pipx, a wheel installed in a venv of its own): the venv, for its packages,
    and the interpreter it was made from (`home` in `pyvenv.cfg`), for the standard library."""
    config = command.parent.parent / "pyvenv.cfg"
    try:
        lines = config.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return ()
    found = [str(config.parent)]
    for line in lines:
        key, _, value = line.partition("=")
        if key.strip() == "home" and value.strip():
            found.append(str(Path(value.strip()).resolve().parent))
    return tuple(found)


class NoSandbox:
    """Windows and macOS: no operating-system enforcement (the summary says advisory only)."""

    def __init__(self, reason: str | None = None) -> None:
        self._reason = reason or f"no operating-system sandbox on {sys.platform}"

    def status(self, plan: ExecPlan | None) -> SandboxStatus:
        return SandboxStatus(EnforcementLevel.UNSUPPORTED, self._reason)

    def wrap(self, argv: Sequence[str], plan_file: str) -> tuple[str, ...]:
        return tuple(argv)

    def installation_paths(self) -> tuple[str, ...]:
        return ()

    def runs_as_root(self) -> bool:
        return hasattr(os, "geteuid") and os.geteuid() == 0


def platform_sandbox() -> LandlockSandbox | NoSandbox:
    return LandlockSandbox() if sys.platform.startswith("linux") else NoSandbox()
