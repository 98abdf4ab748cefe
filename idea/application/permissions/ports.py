"""Ports of the permissions use cases: the policy file and the operating-system sandbox."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from idea.domain.permissions.document import PermissionsReading
from idea.domain.permissions.model import ProjectPermissions
from idea.domain.permissions.sandbox import ExecPlan, SandboxStatus


class PermissionStore(Protocol):
    """`.ideai/permissions.json` by project root. Reading never moves, repairs or rewrites the file."""

    def read(self, root: str) -> PermissionsReading:
        """The policy and its problems; a missing file reads as an empty policy, an unusable one as
        `unreadable` (every agent is then refused)."""
        ...

    def save(self, root: str, document: ProjectPermissions) -> str | None:
        """Write the document (the person's action); returns where a previous file with problems was kept."""
        ...


class SandboxEnforcer(Protocol):
    def status(self, plan: ExecPlan | None) -> SandboxStatus:
        """What this machine enforces of `plan` (None: of any plan): Enforced, Degraded or Unsupported."""
        ...

    def wrap(self, argv: Sequence[str], plan_file: str) -> tuple[str, ...]:
        """The argv that runs `argv` under the plan written at `plan_file`."""
        ...

    def installation_paths(self) -> tuple[str, ...]:
        """Folders IdeA's own subcommands read, granted when a plan restricts reading."""
        ...

    def runs_as_root(self) -> bool:
        """Whether agents are started as the root user (some CLIs then refuse to skip their prompts)."""
        ...
