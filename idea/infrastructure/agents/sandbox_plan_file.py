"""`<runDir>/sandbox-plan.json`: written at each launch under a policy, removed when there is none."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from idea.domain.permissions.sandbox import SANDBOX_PLAN_FILE
from idea.infrastructure.fs import atomic_write_json

PLAN_FILE_MODE = 0o600


def write_sandbox_plan(run_dir: Path, plan: Mapping[str, Any] | None) -> None:
    path = run_dir / SANDBOX_PLAN_FILE
    if plan is None:
        path.unlink(missing_ok=True)
    else:
        atomic_write_json(path, dict(plan), PLAN_FILE_MODE)
