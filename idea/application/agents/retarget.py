"""At project open (spec 00 §5.6 step 6): the run dirs an earlier IdeA wrote start this IdeA's bridge and hook
relay at this project's endpoint, even if the executable moved since (an AppImage replaced by a newer file)."""

from __future__ import annotations

from idea.application.agents.launch_deps import AgentLaunchDeps
from idea.application.ports import Diagnostics


def retarget_run_dirs(deps: AgentLaunchDeps, project_root: str, project_id: str, diagnostics: Diagnostics) -> None:
    for path in deps.run_dirs.retarget(project_root, deps.endpoint_for(project_id)):
        diagnostics.beacon(f"[project] retargeted {path} to this IdeA")
