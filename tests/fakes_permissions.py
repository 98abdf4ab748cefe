"""In-memory doubles of the permissions ports."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from idea.domain.permissions.model import ProjectPermissions
from idea.domain.permissions.document import (
    PermissionsReading,
    permissions_to_json,
    read_permissions,
    unreadable_reading,
)
from idea.domain.permissions.sandbox import EnforcementLevel, ExecPlan, SandboxStatus

IDEA_EXE = "/opt/idea/idea"


class MemoryPermissionStore:
    """One raw JSON value (as a person may have written it) per project root."""

    def __init__(self) -> None:
        self.raw: dict[str, Any] = {}
        self.unreadable: dict[str, str] = {}
        self.saves = 0

    def read(self, root: str) -> PermissionsReading:
        if root in self.unreadable:
            return unreadable_reading(self.unreadable[root])
        if root not in self.raw:
            return PermissionsReading(ProjectPermissions())
        return read_permissions(self.raw[root])

    def save(self, root: str, document: ProjectPermissions) -> str | None:
        kept = "kept-copy" if self.read(root).has_problems else None
        self.unreadable.pop(root, None)
        self.raw[root] = permissions_to_json(document)
        self.saves += 1
        return kept


class FakeSandbox:
    def __init__(self, status: SandboxStatus | None = None) -> None:
        self.current = status or SandboxStatus(EnforcementLevel.ENFORCED, "Landlock ABI 7")
        self.asked: list[ExecPlan | None] = []
        self.root = False

    def status(self, plan: ExecPlan | None) -> SandboxStatus:
        self.asked.append(plan)
        return self.current

    def wrap(self, argv: Sequence[str], plan_file: str) -> tuple[str, ...]:
        return (IDEA_EXE, "sandbox-exec", "--plan", plan_file, "--", *argv)


    def installation_paths(self) -> tuple[str, ...]:
        return ("/opt/idea",)

    def runs_as_root(self) -> bool:
        return self.root
